"""A folder's index: walk -> load -> chunk -> BM25 + manifest (the text phase) -> embed -> vectors (the vector
phase). `indexer` (`FolderIndex`), `chunking` (documents into chunks with exact line spans), `windows` (embedding
windows over a chunk), `vector_phase`, index-time LLM enrichment (`contextual` chunk contexts, `graph_extract`
entities and relations), where indexes live (`paths`), which process writes one (`ownership`), the git facts a
team index depends on (`repo`) and `ragls prune` (`prune`)."""
