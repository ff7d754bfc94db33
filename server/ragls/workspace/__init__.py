"""The operations layer: one client's workspace and what it does. `rag_workspace` (`RagWorkspace`: the folders'
indexes and named RAGs; rag/query, rag/ask, status, rebuild), `live` (`LiveWorkspace`: the one lifecycle every server
shares — index worker, watcher, local socket, writer hand-off, named-RAG sync, reopen on a ragls.toml change),
`watch` (the indexer thread fed by file events), `roots` (which folder is the project) and `estimate` (a folder's
first index, estimated before anything is indexed)."""
