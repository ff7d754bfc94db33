"""Knowledge bases beyond the workspace folders: named RAGs declared as `[rags.NAME]` tables (`rags`: local folders,
web pages, the registry that opens and syncs them), team mode's shared Qdrant index with a local overlay (`team`), and
Qdrant collections attached as they are (`qdrant_attach`)."""
