"""Settings and folder trust: the pydantic settings tree merged from ragls.toml < initializationOptions <
didChangeConfiguration (`settings`), the user's list of trusted folders (`trust`), what an untrusted folder's
ragls.toml may set (`trust_filter`), and brace sets in globs (`globs`)."""
