"""Answer layer of `rag/ask`: prompt template, chat models, citation checks and the ask pipeline."""
