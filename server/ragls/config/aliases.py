"""The other names a setting answers to, besides its nested snake_case one (`[retrieval] top_k`): flat aliases
(the `rag_*` family of the editors' settings and a few short forms: `rag_top_k`, `top_k`), old names of a setting
that was renamed (they keep working, with a notice), and camelCase (`topK`, as VS Code settings are written).
`config.settings.normalize` reads a settings layer through these tables; docs/configuration.md lists the names.
"""

from __future__ import annotations

import re

# Flat names (the `rag_*` family and a few short forms) -> (section, field).
ALIASES: dict[str, tuple[str, str]] = {
    "rag_top_k": ("retrieval", "top_k"),
    "top_k": ("retrieval", "top_k"),
    "rag_template": ("generation", "template"),
    "template": ("generation", "template"),
    "reranker_model": ("retrieval", "reranker_model"),
    "extractor_model": ("retrieval", "extractor_model"),
    "min_similarity": ("retrieval", "min_similarity"),
    "rag_reranker_model": ("retrieval", "reranker_model"),
    "rag_reranker_model_path": ("retrieval", "reranker_model_path"),
    "rag_extractor_model": ("retrieval", "extractor_model"),
    "rag_extractor_prompt": ("retrieval", "extractor_prompt"),
    "rag_graph_hops": ("retrieval", "graph_hops"),
    "graph_hops": ("retrieval", "graph_hops"),
    "rag_min_similarity": ("retrieval", "min_similarity"),
    "rag_hybrid": ("retrieval", "hybrid"),
    "rag_dedup_cosine": ("retrieval", "dedup_cosine"),
    "rag_parent_document": ("retrieval", "parent_document"),
    "rag_relevance_floor": ("retrieval", "relevance_floor"),
    "rag_abstention_probability": ("retrieval", "abstention_probability"),
    "rag_contextual": ("retrieval", "contextual"),
    "rag_rerank_backend": ("retrieval", "rerank_backend"),
    "rag_colbert_model": ("retrieval", "colbert_model"),
    "rag_hyde": ("retrieval", "hyde"),
    "rag_step_back": ("retrieval", "step_back"),
    "rag_expand_n": ("retrieval", "expand_n"),
    "rag_corrective": ("retrieval", "corrective"),
    "rag_chunk_size": ("chunking", "chunk_size"),
    "chunk_size": ("chunking", "chunk_size"),
    "rag_chunk_overlap": ("chunking", "chunk_overlap"),
    "chunk_overlap": ("chunking", "chunk_overlap"),
    "rag_embedding_model": ("embedding", "model"),
    "embedding_model": ("embedding", "model"),
    "rag_max_context_chars": ("generation", "max_context_chars"),
}

# Old names of a setting that has one name now: old name -> (section, field). They keep working (flat or inside
# their section); when a layer gives both, the old name wins there, as it did when it was a setting of its own; and
# `normalize` returns an `OldName` notice naming the setting to use (rag/status `notices`).
RENAMED: dict[str, tuple[str, str]] = {
    "sufficiency_floor": ("retrieval", "min_similarity"),
    "rag_sufficiency_floor": ("retrieval", "min_similarity"),
}


class OldName(str):
    """A `normalize` warning that is only a notice: an old setting name was used (`RENAMED`); the text names the
    setting to use instead."""


_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def snake_case(key: str) -> str:
    """`key` as the settings spell it: camelCase words joined by underscores, lower case ("topK" -> "top_k")."""
    return _CAMEL.sub(r"_\1", key).lower()


def did_you_mean(key: str, names: list[str], prefix: str = "") -> str:
    """' (did you mean x?)' for the closest known name (difflib ratio >= 0.75), else ''."""
    import difflib  # only when a name is unknown

    close = difflib.get_close_matches(key, names, n=1, cutoff=0.75)
    return f" (did you mean {prefix}{close[0]}?)" if close else ""
