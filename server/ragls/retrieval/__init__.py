"""Retrieval: signals (vector, BM25, graph), their fusion, optional reranking."""
