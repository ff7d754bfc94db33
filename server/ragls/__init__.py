"""ragls: a retrieval-augmented generation language server.

Data flows one way: sources -> chunks -> embeddings -> stores -> retrieval -> answer -> LSP.
"""

__version__ = "0.1.0"
