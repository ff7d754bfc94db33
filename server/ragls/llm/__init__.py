"""Chat LLM clients, below every layer that calls one (answers, retrieval steps, index-time contexts and graph
extraction, commit messages): the OpenAI/Anthropic-compatible chat models and their streaming (`chat`), and the
discovery and start-up of a local runtime such as Ollama or llama.cpp (`local`), and the count of LLM calls
retrieval and indexing spend, per step (`costs`)."""
