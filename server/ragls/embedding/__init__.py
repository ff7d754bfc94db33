"""Text embeddings: the fastembed/ONNX Runtime embedder and the offline fallback model (`embed`), its worker
processes for `embedding.parallel` (`pool`), and the memory-lean copy of an int8 model (`onnx_prep`)."""

#: How a progress message starts while the embedding model loads (docs/protocol.md: clients show "loading model" on it;
#: the workspace's indexer and the language server's progress use it).
MODEL_LOADING = "loading the embedding model"
