"""Stores: the manifest (source of truth), BM25 (tantivy), vectors (LanceDB), graph (networkx)."""
