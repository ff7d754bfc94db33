"""What a pasted secret looks like, for telling it from a name: the shapes of providers' API keys and tokens
(`PROVIDER_KEY`, which the masker of indexed text uses too: sources/redact.py) and `looks_like_key`, which the
settings naming an environment variable (`generation.api_key_env`, ...: config/settings.py `env_var_name`) use to
refuse a key pasted in place of its variable's name."""

from __future__ import annotations

import re

#: A provider's API key or token by its documented shape (gitleaks' rules, detect-secrets' models): OpenAI and
#: Anthropic `sk-…`, AWS `AKIA…`, GitHub `ghp_…`, GitLab, Slack, Google, Stripe, SendGrid, Twilio, Hugging Face
#: `hf_…`, Groq `gsk_…`, npm, PyPI, JWTs and more. A match is a secret wherever it stands.
PROVIDER_KEY = re.compile(
    r"(?<![A-Za-z0-9_-])(?:"
    r"sk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}"
    r"|gl(?:pat|dt|rt|ptt|cbt|imt|oas|soat|ffct|agent)-[A-Za-z0-9_-]{20,}"
    r"|xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{20,}"
    r"|AIza[0-9A-Za-z_-]{35}|GOCSPX-[A-Za-z0-9_-]{24,}"
    r"|[rs]k_(?:live|test|prod)_[0-9A-Za-z]{16,}|whsec_[A-Za-z0-9+/=]{24,}"
    r"|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{30,}|SK[0-9a-f]{32}"
    r"|do[opr]_v1_[a-f0-9]{64}|dapi[a-f0-9]{32}(?:-[0-9])?|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"
    r"|dckr_pat_[A-Za-z0-9_-]{27,}|lin_api_[A-Za-z0-9]{32,}|ATATT3[A-Za-z0-9_=-]{40,}|HRKU-[A-Za-z0-9_-]{30,}"
    r"|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|hv[sb]\.[A-Za-z0-9_-]{24,}"
    r"|dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}|sntry[su]_[A-Za-z0-9+/=_]{40,}"
    r"|r8_[A-Za-z0-9]{32,}|pplx-[A-Za-z0-9]{48}|xai-[A-Za-z0-9]{60,}"
    r"|AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}|[0-9]{8,10}:AA[A-Za-z0-9_-]{33}"
    r"|hf_[A-Za-z0-9]{30,}"
    r"|gsk_[A-Za-z0-9]{40,}"
    r"|npm_[A-Za-z0-9]{36,}"
    r"|pypi-[A-Za-z0-9_-]{50,}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"  # a JWT: header.payload.signature
    r")(?![A-Za-z0-9_-])")
_HEX = re.compile(r"(?=[^0-9]*[0-9])(?=[0-9]*[A-Fa-f])(?:[0-9a-f]+|[0-9A-F]+)")
# The words of a name: an acronym (AI, AWS; up to 5 capitals inside a mixed-case part), a word with an optional
# capital (Key, azure), a number with an optional unit letter (2024, 4o, 70b) or one letter before a number (V2, v3).
_WORD = re.compile(r"[A-Z]{2,5}(?![a-z])|[A-Z]?[a-z]{2,}|[A-Z][a-z]|[0-9]+[a-z]?|[A-Za-z][0-9]+")
_VOWEL = re.compile(r"[aeiouy]")
_CONSONANTS = re.compile(r"[b-df-hj-np-tv-xz]{5}")


def _reads_as_words(value: str) -> bool:
    """Whether `value` splits into words as a variable's name does: on `_` and case changes into `_WORD`s (a part
    all capitals is one acronym), on average 3+ characters each, at most 3 holding digits, no two acronyms in a
    row, each word with lower-case letters pronounceable: a vowel (y counts: My, Key, Azure; a capitalised word of 3
    letters may lack one: Gcp, Gpt, Sql), never 5 consonants in a row. A random string of mixed case breaks these at
    once: a lone letter between capitals (`kQ9`), `Xq`, `wghbwbl`, a fourth number. Of uniformly random base62
    strings that mix cases, about 0.25 % of those of 20-24 characters read as words, 0.03 % of 32, 0.01 % of 40
    (200,000 drawn, session 61): what `config.settings.env_var_name` accepts beyond a variable that is set."""
    words: list[str] = []
    for part in filter(None, value.split("_")):
        found = [part] if part.isupper() and part.isalpha() else _WORD.findall(part)
        if "".join(found) != part:
            return False
        words += found
    for before, word in zip(["_", *words], words):
        low = word.lower()
        if word.isalpha() and word.isupper() and len(word) > 1:
            if before.isalpha() and before.isupper() and len(before) > 1:
                return False  # two acronyms in a row: one run of 6+ capitals
        elif word.isalpha() and (not _VOWEL.search(low) and not (len(word) == 3 and word.istitle())
                                 or _CONSONANTS.search(low)):
            return False
    numbers = sum(not word.isalpha() for word in words)
    return numbers <= 3 and sum(map(len, words)) >= 3 * len(words)


def looks_like_key(value: str) -> bool:
    """Whether `value`, written where an environment variable's name belongs, is rather a pasted key: a provider's
    shape (`PROVIDER_KEY`: `ghp_…`, `AKIA…`, `hf_…`), 16+ hexadecimal digits (Azure OpenAI's and Together's keys,
    a UUID without dashes), 16+ capitals and digits without a `_` (a base32 secret), or 20+ characters mixing cases
    that do not read as words (`_reads_as_words`: `a8F3kQ9zLm2Xw7RtYp4N` does not, `AzureOpenAIKey2024Prod` and
    `My_Company_OpenAI_Key_V2` do). Variables' names (`OPENAI_API_KEY_2`, `azure_openai_key_eastus2`) are not.
    A provider's own key formats that hold a `-` (`sk-…`, `glpat-…`) can name no variable anyway."""
    if PROVIDER_KEY.search(value):
        return True
    if len(value) >= 16 and "_" not in value and (_HEX.fullmatch(value) or (
            not re.search(r"[a-z]", value) and re.search(r"[0-9]", value))):
        return True
    mixed = re.search(r"[a-z]", value) and re.search(r"[A-Z]", value)
    return bool(mixed and len(value) >= 20 and not _reads_as_words(value))
