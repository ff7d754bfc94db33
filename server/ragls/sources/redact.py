"""Secret values inside indexed documents, masked before chunking: API keys, tokens, passwords and private keys
pasted into a README or a notes file never reach the index (manifest, BM25, vectors), `rag/query` results, an
LLM's prompt or an agent.

`sources.exclude_secrets` already keeps whole secret files (`.env*`, `*.pem`, ...) out; this masks the values in
every other file. Only high-precision shapes are masked, so documentation stays searchable:

- provider key formats (OpenAI/Anthropic `sk-…`, AWS `AKIA…`, GitHub `ghp_…`/`github_pat_…`, GitLab `glpat-…`,
  Slack `xox?-…`, Google `AIza…`, Stripe `sk_live_…`, Hugging Face `hf_…`), after the key-format lists of
  GitHub secret scanning and gitleaks;
- the value of an assignment to a name containing KEY/SECRET/TOKEN/PASSWORD (`DB_PASSWORD=…`, `api_key: "…"`)
  when it is at least 12 characters with a letter and a digit and is no placeholder (`<your-key>`, `${KEY}`,
  `xxxx`, `...`, `your_…`, `changeme`);
- the body of a `-----BEGIN … PRIVATE KEY-----` block.

Masking keeps every character count (each masked character becomes `*`, the first 4 of a provider key are kept
so the reader sees which kind it was), so line numbers and LSP ranges of the document are unchanged.
"""

from __future__ import annotations

import dataclasses
import re

from ragls.ir import Document

MASK = "*"
KEEP_PREFIX = 4

_PROVIDER_KEY = re.compile(
    r"(?<![A-Za-z0-9_-])(?:"
    r"sk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}"
    r"|glpat-[A-Za-z0-9_-]{20,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"
    r"|AIza[0-9A-Za-z_-]{35}"
    r"|[rs]k_live_[0-9A-Za-z]{20,}"
    r"|hf_[A-Za-z0-9]{30,}"
    r")(?![A-Za-z0-9_-])")
_ASSIGNMENT = re.compile(
    # Bounded name parts and a start only at a name's start keep it linear on one endless token (see bm25.py).
    r"(?i)(?<![A-Za-z0-9_])[A-Za-z0-9_]{0,40}?(?:api[_-]?key|secret|token(?!s)|passw(?:or)?d|access[_-]?key"
    r"|private[_-]?key)[A-Za-z0-9_]{0,40}[\"']?[ \t]*(?::|=|:=)[ \t]*[\"']?(?P<value>[^\s\"'`<>]{12,})")
_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?P<body>.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
                          re.DOTALL)
_PLACEHOLDER = re.compile(r"(?i)[${}<>]|\.\.\.|xxxx|\*\*\*|your|change_?me|example|placeholder|redacted|dummy")


def _masked(value: str, keep: int = 0) -> str:
    return value[:keep] + "".join(c if c in "\r\n" else MASK for c in value[keep:])


def mask_secrets(text: str) -> tuple[str, int]:
    """(`text` with secret values masked, how many were masked). Same length, same line breaks; never raises."""
    if not text:
        return text, 0
    chars = list(text)
    count = 0

    def put(start: int, end: int, keep: int) -> None:
        nonlocal count
        masked = _masked(text[start:end], keep)
        if masked != text[start:end]:
            chars[start:end] = masked
            count += 1

    for m in _PRIVATE_KEY.finditer(text):
        put(m.start("body"), m.end("body"), 0)
    for m in _ASSIGNMENT.finditer(text):
        value = m.group("value")
        if (_PLACEHOLDER.search(value) or not re.search(r"[A-Za-z]", value) or not re.search(r"[0-9]", value)
                or value.startswith(("http://", "https://"))):
            continue
        put(m.start("value"), m.end("value"), 0)
    for m in _PROVIDER_KEY.finditer(text):  # after the assignments: a provider key keeps its prefix visible
        chars[m.start():m.end()] = _masked(text[m.start():m.end()], KEEP_PREFIX)
        count += 1
    return ("".join(chars) if count else text), count


def mask_document(doc: Document) -> Document:
    """`doc` with its secret values masked (`mask_secrets`); the same object when it holds none. Its content hash
    (change detection) stays that of the file's bytes."""
    text, count = mask_secrets(doc.text)
    return dataclasses.replace(doc, text=text) if count else doc
