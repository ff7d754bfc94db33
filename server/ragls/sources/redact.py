"""Secret values inside indexed documents, masked before chunking: API keys, tokens, passwords and private keys
pasted into a README or a notes file never reach the index (manifest, BM25, vectors), `rag/query` results, an
LLM's prompt or an agent; read-back (`read_passage`, `rag/readPassage`, `resources/read`) masks the file's text the
same way (`sources.passage.read_indexed_text`).

`sources.exclude_secrets` already keeps whole secret files (`.env*`, `*.pem`, ...) out; this masks the values in
every other file. Only high-precision shapes are masked, so documentation stays searchable:

- provider key formats (OpenAI/Anthropic `sk-…`, AWS `AKIA…`, GitHub `ghp_…`/`github_pat_…`, GitLab `glpat-…`
  and its other tokens (`glrt-…`, `gldt-…`, …), Slack `xox?-…`/`xapp-…`, Google `AIza…` and OAuth client secrets
  `GOCSPX-…`, Stripe secret and restricted keys `sk_live_…`/`sk_test_…`/`rk_live_…` and webhook secrets `whsec_…`,
  Hugging Face `hf_…`, Groq `gsk_…`, npm `npm_…`, PyPI `pypi-…`, SendGrid `SG.….…`, Twilio `SK…`, DigitalOcean
  `dop_v1_…`, Databricks `dapi…`, Shopify `shpat_…`, Docker Hub `dckr_pat_…`, Linear `lin_api_…`, Atlassian
  `ATATT3…`, Heroku `HRKU-…`, Postman `PMAK-…`, Grafana `glsa_…`, Vault `hvs.…`, Doppler `dp.pt.…`, Sentry
  `sntrys_…`, Replicate `r8_…`, Perplexity `pplx-…`, xAI `xai-…`, age `AGE-SECRET-KEY-1…`, Telegram bot tokens),
  after the key-format lists of GitHub secret scanning, gitleaks and detect-secrets (Stripe's test keys as
  gitleaks' `stripe-access-token`: they read test-mode data);
- an Azure shared access signature (`…?sv=…&sig=…` in a storage URL, `;sig=` in a connection string);
- JSON Web Tokens (`eyJ….eyJ….…`) and the credential of an `Authorization: Bearer|Basic|Token …` header or a
  bare `Bearer …` (12+ characters with a digit);
- the password of a URL (`postgres://app:Zr8wq3Lp@host/db`, any scheme; also without a user name,
  `redis://:Zr8wq3Lp@host/0`) unless it is a template (`${DB_PASS}`) or
  a placeholder word (`https://user:password@host`, `[user:passwd@]proxy.server:port`: documented syntax);
- the value of an assignment to a name containing KEY/SECRET/TOKEN/PASSWORD (`DB_PASSWORD=…`, `api_key: "…"`)
  when it is at least 12 characters with a letter and a digit (the name may be a subscript's key:
  `os.environ["OPENAI_API_KEY"] = "…"`, `config['db_password'] = '…'`); for PASSWORD/PASSWD/PWD/PASSPHRASE names and names
  with a PASS word after a prefix (`DB_PASS`, `SMTP_PASS`, `smtp-pass`, `mail.smtp.pass`, `smtpPass`; a bare
  `PASS:` is a test log's, `pass=1` code; there with a letter and a digit, a symbol or mixed case, so
  `FIRST_PASS: enabled` and `n_pass=1000` stay) any value of 4 or more characters (`password: hunter2`,
  `POSTGRES_PASSWORD: …`; a quoted one whole, spaces and all: `BORG_PASSPHRASE='complicated & long'`); never the
  command line of a `*_PASSWORD_COMMAND` / `*_cmd` name (a program that prints it), a placeholder (`<your-key>`, `${KEY}`, `xxxx`, `...`, `your_…`, `changeme`), a
  type or keyword (`password: string`, `required`, `true`), an environment variable's name (`PASSWORD=DB_PASSWORD`)
  or a list of them (tox's `testenv.pass_env=FOO,BAR`) or a code expression (`password = os.environ[...]`,
  `get_password()`);
- a password stated in prose, the value that ends a clause after "password is", "password for the admin account
  is", "password: ", "set the password to" or "the password" and a quoted value (`the password is hunter2.`,
  `**Password:** s3cr3t!`, `log in with the password 'Tr0ub4dor&3'`) when it looks like one — letters and digits, a
  symbol, mixed case inside, or six digits or more — so docs about password settings stay ("the password is
  required", "is hashed with bcrypt", "The default password is admin.", "is `None` by default"); over the 4,146
  pages of the dev corpora it masks 3 lines, FastAPI's example credentials ("Password: secret2");
- the password of a `.netrc` entry (`machine host login user password secret`, one line or several; also
  `default login … password …`; one inside a sentence only with a non-letter in it, so "the default login and
  password fields" stays) and of `curl -u user:password` / `curl --user user:password` (also on a
  backslash-continued line of the command), as gitleaks' `curl-auth-user` rule, unless it is a template (`$PASS`);
- a password on the command line of a command whose option takes one (`_COMMAND_OPTIONS`): `mysql -pPW` (mariadb,
  mysqldump, ...; attached only: `mysql -p mydb` prompts), `sshpass -p PW` (before its command: `ssh -p 2222` is a
  port), `docker login -p PW` / `--password PW` (podman, nerdctl, helm registry, ...), `redis-cli -a`, `mongosh -p`,
  `ldapsearch -w`, `openssl -passin pass:PW`, `zip -P`, `7z -pPW`; never a placeholder (`-p PASSWORD`, `-p<password>`,
  `--password $PW`): `-p` is a port for many other commands;
- a high-entropy value (`_random_key`: mixed case and digits, 3.5+ bits a character) of any name ending in KEY
  (`key = "q8Zr3vLp0XmT7bN2kW9s"`, `clientKey: …`), as a bare `key` names the docs' own values too (`sort_key`);
- the body of a `-----BEGIN … PRIVATE KEY-----` block (also PGP's `PRIVATE KEY BLOCK`), and such a block in base64
  (`LS0tLS1CRUdJTi…` decoding to a PRIVATE KEY line: a kubeconfig's `client-key-data`, a Kubernetes secret's
  `tls.key`; a certificate's `client-certificate-data` is public and kept);
- a registry login: the value of an `auth` / `_auth` setting (a Docker `config.json`, an `.npmrc`) that is base64
  of `user:password`;
- the secret path of a Slack webhook URL (`https://hooks.slack.com/services/T…/B…/…`).

Why our own regular expressions rather than detect-secrets (PyPI, 1.5.0), evaluated for issue 25: its plugins miss
a bare `npm_…` token (its NpmDetector wants an `.npmrc` `_authToken=` line), an unquoted `password: hunter2` and
a non-JWT bearer token, and it scans the 1.2 MB rust-book in 7.6 s (its plugins minus the entropy ones, line by
line) against 0.31 s for this module on the same machine: the text phase of indexing would be several times
slower. Nor has it a `.netrc` or `curl -u` plugin, and its Stripe pattern is live keys only (re-checked for
1.5.0). Its JWT, basic-auth and PyPI patterns are the models of the ones here.

Masking keeps every character count (each masked character becomes `*`, the first 4 of a provider key or JWT are
kept so the reader sees which kind it was), so line numbers and LSP ranges of the document are unchanged.
Raising `REDACT_VERSION` re-chunks indexes built with an older masker (it is part of the index fingerprint).
"""

from __future__ import annotations

import base64
import dataclasses
import itertools
import math
import re
from collections.abc import Iterator

from ragls.core.errors import Skipped
from ragls.core.ir import Document
from ragls.core.key_shapes import PROVIDER_KEY as _PROVIDER_KEY
from ragls.core.uris import split_authority

MASK = "*"
KEEP_PREFIX = 4
REDACT_VERSION = 13  # 2: JWTs, Authorization headers, URL passwords, npm/PyPI tokens, short passwords; 3: PGP
# private key blocks, Azure AccountKey and signing/master/encryption keys, Slack webhook paths; 4: .netrc and
# `curl -u` passwords, Stripe test keys, `*_PASS` and passphrase names; 5: `smtp-pass`, `mail.pass`, `smtpPass` names;
# 6: a URL password that is a placeholder word (`user:passwd@`) is kept (old indexes showed the docs' syntax masked);
# 7: a list of names after a PASS name is kept (tox's `testenv.pass_env=FOO,BAR` was masked); 8: a subscript's key
# as the name (`os.environ["OPENAI_API_KEY"] = "…"`), a URL password without a user name, Groq's `gsk_…`;
# 9: a Docker/npm `auth` login (base64 `user:password`), a base64 PEM private key (kubeconfig `client-key-data`);
# 10: gitleaks' provider shapes for Slack app/refresh, Stripe webhook, SendGrid, Twilio, DigitalOcean, Databricks,
# Shopify, Docker Hub, Linear, Atlassian, Heroku, Postman, Grafana, Vault, Doppler, Sentry, Replicate, Perplexity,
# xAI, age, Telegram, GitLab's other tokens, Google OAuth client secrets, and an Azure SAS `sig=`; 11: a password
# stated in prose ("the password is hunter2"); 12: a quoted password with spaces masked whole (`'complicated & long'`
# showed "& long"), a *_PASSWORD_COMMAND's value (a program) kept; 13: a password on a command line (`mysql -pPW`,
# `sshpass -p PW`, `docker login -p PW`, ...) and a high-entropy value of any `*key` name (`key = "q8Zr3vLp…"`)

# The credential of an HTTP Authorization header (or a bare "Bearer <token>"), e.g. in a curl example.
_AUTH_HEADER = re.compile(
    r"(?i)(?:authorization[\"']?[ \t]*[:=][ \t]*[\"']?(?:bearer|basic|token)|(?<![A-Za-z0-9_-])bearer)[ \t]+"
    r"(?P<value>[A-Za-z0-9._~+/-]{12,}=*)")
# The password of a URL with credentials: scheme://user:password@host
_URL_PASSWORD = re.compile(r"(?<=://)[^\s/:@\"'<>\[\]]{0,100}:(?P<value>[^\s/@\"'<>]{1,200})@")
# Any value of 4+ characters assigned to a password name (the general rule above wants 12+).
_PASSWORD = re.compile(
    r"(?i)(?<![A-Za-z0-9_])(?:[A-Za-z0-9_]{0,40}?(?:passw(?:or)?d|pwd|passphrase)[A-Za-z0-9_]{0,40}"
    # DB_PASS, smtp-pass, mail.smtp.pass, smtpPass (a PASS word after a prefix); not PASS, pass, bypass, compass
    r"|(?P<segment>(?:[A-Za-z0-9]{1,40}[_.-]){1,4}pass(?:[_.-][A-Za-z0-9]{1,40}){0,3})"
    r"|(?P<camel>(?-i:[a-z][a-z0-9]{0,39}(?:[A-Z][a-z0-9]{0,39}){0,3}Pass(?:[A-Z][a-z0-9]{0,39}){0,2})))"
    r"[\"']?\]?[ \t]*(?::|=|:=)[ \t]*[\"']?(?P<value>[^\s\"'`<>]{4,})")
# A password stated in prose: "the password is hunter2", "the admin password for the demo server is `s3cr3t!`", "set
# the password to CoffeeShop2024", "**Password:** Tr0ub4dor&3", "log in with the password 'Tr0ub4dor&3'". The value
# (quoted or not) must end its clause and look like a password (`_prose_password`), so docs about password settings
# stay ("the password is required", "is hashed with bcrypt", "The default password is admin.").
_PROSE_PASSWORD = re.compile(
    r"(?i)(?<![A-Za-z0-9_-])(?:password|passwd|passphrase|passcode)(?![A-Za-z0-9_-])"
    r"(?:[ \t]+(?:for|of)[ \t]+(?:the[ \t]+|your[ \t]+|an?[ \t]+)?[A-Za-z0-9_.@-]{1,40}(?:[ \t]+[A-Za-z0-9_.@-]{1,40})?"
    r"(?:[ \t]+(?:user|account|server|database|login))?)?"
    r"(?:[*_]{0,2}(?:[ \t]+(?:is|was|remains|becomes|(?:is[ \t]+)?set[ \t]+to|to)(?::)?|[ \t]*:)[*_]{0,2}[ \t]+"
    r"|[ \t]+(?=[\"'`]))"
    r"(?P<quote>[\"'`]?)(?P<value>[^\s\"'`<>]{4,200})(?P=quote)"
    # the value ends its clause: the line's end, a sentence's, a comma, or a word that starts another clause
    r"(?=[.,;:!?)]*(?:[ \t]*$|,|[ \t]+(?:and|or|but|for|on|in|at|to|with|when|if|before|after|until|then|so|\()"
    r"(?![A-Za-z])"
    r"|(?<=[.;!?)])[ \t]+[A-Z*_`\"']))",
    re.MULTILINE)
_PROSE_SYMBOL = re.compile(r"[!@#$%^&*+=?~|\\/]")
# A password name whose value is a program that prints the password (restic's RESTIC_PASSWORD_COMMAND, a
# `password_cmd`): searched between the name's start and the value.
_COMMAND_NAME = re.compile(r"(?i)(?:command|cmd)[\"']?\]?[ \t]*(?::|=|:=)")
_MAX_QUOTED = 200  # the longest quoted passphrase masked whole (`_quoted_end`)


def _prose_password(value: str) -> bool:
    """Whether `value`, stated as a password in prose (`_PROSE_PASSWORD`), looks like one rather than a word of the
    docs: letters and digits ("hunter2"), a symbol ("s3cr3t!"), mixed case inside ("CoffeeShop"), or six or more
    digits; never a placeholder, a keyword (`_NOT_A_PASSWORD`), a variable or option name (`PGPASSWORD`,
    `--password`, `$PASS`) or a path or URL. A quoted value (`'Tr0ub4dor&3'`) needs the same: "`None`" stays."""
    if (value.lower() in _NOT_A_PASSWORD or value[0] in "-$%{(<[" or "://" in value or _PLACEHOLDER.search(value)
            or _CODE_OR_NAME.fullmatch(value) or re.search(r"-[a-z]{2,}ed$", value)):  # "PBKDF2-encoded"
        return False
    letters, digits = re.search(r"[A-Za-z]", value), re.search(r"[0-9]", value)
    return bool(letters and digits or _PROSE_SYMBOL.search(value) or re.search(r"[a-z][A-Z]", value)
                or value.isdigit() and len(value) >= 6)


# A .netrc entry's password: `machine host login user password secret` (newlines between tokens allowed).
# (One `[ \t]*` where no quote or `>` stands: two in a row split a line of spaces every way, quadratic in its length.)
_NETRC = re.compile(  # `start`: the entry begins a line or a quoted string (not "the default login and ...")
    r"(?m)(?P<start>^[ \t]*(?:[\"'`>#][ \t]*)?|[\"'`])?(?<![A-Za-z0-9_.-])(?:machine[ \t\r\n]+[^\s]{1,253}|default)"
    r"(?:[ \t\r\n]+(?:login|account|port)[ \t\r\n]+[^\s]{1,200}){1,3}[ \t\r\n]+password[ \t\r\n]+"
    r"[\"']?(?P<value>[^\s\"']{1,200})")
# curl's `-u user:password` / `--user user:password`, on the curl line or a backslash-continued one after it.
_CURL_USER = re.compile(
    r"(?<![A-Za-z0-9_.-])curl(?=[ \t])(?:[^\n]{0,400}?\\\r?\n){0,10}?[^\n]{0,400}?[ \t](?:-u[ \t]*|--user(?:=|[ \t]+))"
    r"[\"']?[^\s:\"']{1,200}:(?P<value>[^\s\"']{1,200})")
# A password given on a command line, tied to the commands whose option takes one (`-p` is a port for ssh, docker
# run, many servers): (words, reach, command names, what stands between a name and the option, the option). Between: any text of
# the command (also on backslash-continued lines), never a shell separator `|;&`; sshpass's options only before its
# command (`sshpass -p PW ssh -p 2222 host`); a registry login's after its `login` word. mysql's `-p`/`--password`
# take the value attached only (`mysql -p mydb` prompts and names the database); `--password=…` is `_PASSWORD`'s.
# Each rule: the words one of which its match holds (searched with `in`, then as `_scan`'s keyword) and how far
# after the match's start at most (`login` after the command and its options: the first, matched atomically as a
# lookahead's group, else `docker login login …` is quadratic).
_ARGS = r"(?:[^\n|;&]{0,400}?\\\r?\n){0,10}?[^\n|;&]{0,400}?[ \t]"
_COMMAND_OPTIONS = (
    (("mysql", "mariadb"), 0, r"(?:mysql|mariadb)(?:-?(?:dump|admin|import|show|check|binlog|slap))?|mysqlpump",
     _ARGS, r"-p(?=[^\s])"),
    (("sshpass",), 0, r"sshpass", r"(?:[ \t]+-(?:[vVhe]|P[ \t]*[^\s]+))*[ \t]+", r"-p[ \t]*"),
    (("login",), 208, r"docker|podman|nerdctl|buildah|skopeo|finch|oras|helm|crane|regctl",
     r"(?=(?P<login>[^\n|;&]{0,200}?[ \t]login(?=[ \t])))(?P=login)" + _ARGS, r"(?:-p(?:=|[ \t]*)|--password(?:=|[ \t]+))"),
    (("redis-cli",), 0, r"redis-cli", _ARGS, r"(?:-a[ \t]*|--pass[ \t]+)"),
    (("mongo",), 0, r"mongo(?:sh|dump|restore|export|import|stat|top|files)?", _ARGS,
     r"(?:-p[ \t]*|--password[ \t]+)"),
    (("ldap",), 0, r"ldap(?:search|add|modify|delete|whoami|passwd|compare|modrdn|exop)", _ARGS, r"-w[ \t]*"),
    (("openssl",), 0, r"openssl", _ARGS, r"-pass(?:in|out)?[ \t]+pass:"),
    (("zip",), 2, r"zip|unzip", _ARGS, r"-P[ \t]*"),
    (("7z",), 0, r"7za?|7zz", _ARGS, r"-p(?=[^\s])"),
)
_COMMAND_PASSWORDS = tuple(  # (pattern, the words it needs, how far after its start one stands)
    (re.compile(rf"(?<![A-Za-z0-9_.-])(?:{names})(?=[ \t]){between}{option}[\"']?(?P<value>[^\s\"'`]{{1,200}})"),
     words, back) for words, back, names, between, option in _COMMAND_OPTIONS)
# A bare `key` name (`key = "…"`, `client_key: …`, `appKey=…`; any name ending in KEY): only a high-entropy value
# (`_random_key`), as names like `key: user_id` and `sort_key = "created_at"` are the docs' own.
_KEY_VALUE = re.compile(
    r"(?i)(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]{0,40}?key[\"']?\]?[ \t]*(?::|=|:=)[ \t]*[\"']?"
    # (a lookahead is atomic: no backtracking into the value, linear on `key=key=…`; Python 3.10 has no `{16,200}+`)
    r"(?=(?P<value>[A-Za-z0-9+/=_.~-]{16,200}))(?P=value)(?![A-Za-z0-9+/=_.~-])")


def _random_key(value: str) -> bool:
    """Whether `value` looks generated rather than written: 16+ characters with upper and lower case letters and
    digits, the kind of character (lower, upper, digit, symbol) changing at a third of its characters or more (a
    random string's change at 6 in 10; `ObjectId12345678` at 2 of 15), at least 3.5 bits of Shannon entropy per
    character (`q8Zr3vLp0XmT7bN2kW9s` has 4.3; `MyApp_Key_2024` 3.3), no placeholder and no path or dotted name
    (`com.example.App2Key`); hex (a hash, a key's fingerprint) and one-case values stay."""
    if (not (re.search(r"[a-z]", value) and re.search(r"[A-Z]", value) and re.search(r"[0-9]", value))
            or _PLACEHOLDER.search(value) or value.count("/") > 1 or value.count(".") > 1):
        return False
    classes = ["a" if c.islower() else "A" if c.isupper() else "0" if c.isdigit() else c for c in value]
    if sum(a != b for a, b in itertools.pairwise(classes)) < len(value) / 3:
        return False  # runs of one kind (`ObjectId12345678`): a written name and a number
    counts = [value.count(c) for c in set(value)]
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts) >= 3.5


def _command_password(value: str) -> bool:
    """Whether `value`, given to a command's password option (`_COMMAND_PASSWORDS`), is one rather than the docs'
    placeholder (`-p PASSWORD`, `-p<password>`, `--password $PW`, `-p"$(cat pw)"`), another option or a URL."""
    return not (value[0] in "-$%!`{(<[" or value.lower() in _NOT_A_PASSWORD or _PLACEHOLDER.search(value)
                or _CODE_OR_NAME.fullmatch(value) or "://" in value)


_NOT_A_PASSWORD = frozenset({
    "true", "false", "yes", "no", "on", "off", "null", "none", "nil", "required", "optional", "string", "str",
    "bytes", "int", "bool", "boolean", "text", "secret", "secrets", "password", "passwords", "passwd", "hidden",
    "masked", "redacted", "empty", "unset", "undefined", "prompt", "stdin", "env", "value", "default", "auto",
    "file", "plain", "plaintext", "hash", "type", "field", "fields", "your", "enabled", "disabled"})
# `os.environ[…`, `get_password(`, `self.password`; `DB_PASSWORD`, `PASSWORD`
_CODE_OR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*[.(\[].*|[A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z]+")
_KEY_NAME = (r"api[_-]?key|secret|token(?!s)|passw(?:or)?d|access[_-]?key|private[_-]?key|account[_-]?key"
             r"|(?:signing|master|encryption)[_-]?key")
_ASSIGNMENT = re.compile(
    # Bounded name parts and a start only at a name's start keep it linear on one endless token (see bm25.py).
    rf"(?i)(?<![A-Za-z0-9_])[A-Za-z0-9_]{{0,40}}?(?:{_KEY_NAME})[A-Za-z0-9_]{{0,40}}[\"']?\]?[ \t]*"
    r"(?::|=|:=)[ \t]*[\"']?(?P<value>[^\s\"'`<>;]{12,})")
_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?P<body>.*?)"
                          r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)", re.DOTALL)
# The secret path of a Slack incoming webhook (https://hooks.slack.com/services/T…/B…/…): whoever has it can post.
_WEBHOOK = re.compile(r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<value>[A-Za-z0-9_/-]{20,})")
# A PEM block in base64 ("-----BEGIN " is "LS0tLS1CRUdJTi"): masked when it decodes to a PRIVATE KEY line.
_PEM_BASE64 = re.compile(r"(?<![A-Za-z0-9+/])LS0tLS1CRUdJTi[A-Za-z0-9+/]{40,}={0,2}")
# A registry login (Docker config.json `"auth": "…"`, .npmrc `_auth=…`): base64 of `user:password`.
_REGISTRY_AUTH = re.compile(r"(?i)(?<![A-Za-z0-9_-])_?auth[\"']?[ \t]*[:=][ \t]*[\"']?(?P<value>[A-Za-z0-9+/]{8,}={0,2})"
                            r"(?![A-Za-z0-9+/=])")
# An Azure shared access signature's `sig=` (a storage or Service Bus SAS URL or connection string): it signs access.
_SAS_SIGNATURE = re.compile(r"(?i)(?<=[?&;])sig=(?P<value>[A-Za-z0-9%+/=]{20,200})")
_PLACEHOLDER = re.compile(r"(?i)[${}<>]|\.\.\.|xxxx|\*\*\*|your|change_?me|example|placeholder|redacted|dummy")


def _quoted_end(text: str, start: int, length: int) -> int:
    """Where a password value starting at `text[start]` ends: after `length` characters, or, when it opened with a
    quote and stops at a space before the closing quote on its line (`BORG_PASSPHRASE='complicated & long'`,
    `password = "correct horse battery staple"`), at that quote (at most `_MAX_QUOTED` characters): the rest of a
    passphrase is the secret too (only its first word was masked before)."""
    end = start + length
    quote = text[start - 1] if start else ""
    if quote not in ("'", '"') or end >= len(text) or text[end] not in " \t":
        return end
    close = text.find(quote, end, min(start + _MAX_QUOTED, len(text)))
    return close if close > 0 and "\n" not in text[end:close] else end


def _base64_text(value: str, limit: int = 400) -> str:
    """The first bytes of base64 `value` decoded as Latin-1 text ("" when it is not base64)."""
    head = value[:limit - limit % 4]
    try:
        return base64.b64decode(head + "=" * (-len(head) % 4), validate=True).decode("latin-1")
    except ValueError:
        return ""


def _netrc_start(text: str, k: int) -> int:
    """Where a `_NETRC` match whose `machine`/`default` is at `k` may start: the line's start when only
    `[ \t]*`, one of `"'`>#` and `[ \t]*` stand before it there, else one character before (a quote)."""
    i = k
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    if i > 0 and text[i - 1] in "\"'`>#":
        i -= 1
        while i > 0 and text[i - 1] in " \t":
            i -= 1
    return i if i == 0 or text[i - 1] == "\n" else max(k - 1, 0)


def _fold(text: str) -> str:
    """`text` in lower case, of the same length, every character a `(?i)` pattern matches to an ASCII letter being
    that letter (`re` also folds `ſ` to s, Kelvin's `K` to k, `İ` and `ı` to i; `str.lower` alone turns `İ` into two
    characters): the keyword searches of `_KEYWORDS` run on it, case-sensitive, so `re` skips to a keyword's first
    letters instead of trying every branch at every position (10x faster)."""
    return text.replace("\u0130", "i").lower().replace("\u017f", "s").replace("\u0131", "i")


# The rules scanned from a keyword, not at every position (`_scan`): pattern -> (its keyword, searched in the text
# folded to lower case (`_fold`) or as it is, where a match may start for a keyword at k). Every match of the
# pattern holds an occurrence of the keyword at most that far from its start. The keywords of `(?i)` patterns are
# lower case, flat lists of literals (no `(?!s)` after `token`: a superset is safe).
_KEYWORDS = {
    _ASSIGNMENT: (re.compile(_KEY_NAME.replace("(?!s)", "").replace(
        "(?:signing|master|encryption)[_-]?key", "signing[_-]?key|master[_-]?key|encryption[_-]?key")),
                  True, lambda text, k: k - 40),  # the name's prefix: {0,40}
    # `(?:[A-Za-z0-9]{1,40}[_.-]){1,4}pass`: 4 x 41 before PASS; the camelCase name 160, the plain one 40
    _PASSWORD: (re.compile(r"pass|pwd"), True, lambda text, k: k - 164),
    _PROSE_PASSWORD: (re.compile(r"pass"), True, lambda text, k: k),
    _NETRC: (re.compile(r"machine|default"), False, _netrc_start),
    _CURL_USER: (re.compile(r"curl"), False, lambda text, k: k),
    _REGISTRY_AUTH: (re.compile(r"auth"), True, lambda text, k: k - 1),  # `_auth`
    _AUTH_HEADER: (re.compile(r"authorization|bearer"), True, lambda text, k: k),
    _KEY_VALUE: (re.compile(r"key"), True, lambda text, k: k - 40),  # the name's prefix: {0,40}
    **{pattern: (re.compile("|".join(words)), False, lambda text, k, back=back: k - back)
       for pattern, words, back in _COMMAND_PASSWORDS},
}


def _scan(pattern: re.Pattern[str], text: str, folded: str) -> Iterator[re.Match[str]]:
    """The matches of `pattern` (a rule of `_KEYWORDS`) in `text` (`folded`: `_fold(text)`): the very ones
    `pattern.finditer(text)` yields, in order, found by trying `pattern` only where a match may start before each
    occurrence of its keyword (each position once). `finditer` tries every position, several alternatives and a
    bounded name prefix each: 3-4 s on a 1.6 MB minified bundle or one-line JSON at load (session 61; bench/redact.py);
    this is proportional to the keywords found (tests/unit/test_redact_scan.py checks both agree on generated
    text)."""
    hint, on_folded, first = _KEYWORDS[pattern]
    pos = 0  # no match starts before it
    for h in hint.finditer(folded if on_folded else text):
        k = h.start()
        s = max(pos, first(text, k), 0)
        while s <= k:
            m = pattern.match(text, s)
            if m is None:
                s += 1
                continue
            yield m
            pos = s = max(m.end(), s + 1)
        pos = max(pos, k + 1)


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
        if masked != "".join(chars[start:end]):  # not masked by an earlier rule already
            chars[start:end] = masked
            count += 1

    for m in _PRIVATE_KEY.finditer(text):
        put(m.start("body"), m.end("body"), 0)
    for m in _PEM_BASE64.finditer(text) if "LS0tLS1CRUdJTi" in text else ():
        if "PRIVATE KEY" in _base64_text(m.group()).split("\n", 1)[0]:
            put(m.start(), m.end(), 0)
    low = _fold(text)  # keywords are searched in it; most rules below run only on text holding theirs
    for m in _scan(_ASSIGNMENT, text, low):
        value = m.group("value")
        if (_PLACEHOLDER.search(value) or not re.search(r"[A-Za-z]", value) or not re.search(r"[0-9]", value)
                or value.startswith(("http://", "https://"))):
            continue
        put(m.start("value"), m.end("value"), 0)
    for m in _scan(_PASSWORD, text, low) if "pass" in low or "pwd" in low else ():
        value = m.group("value").rstrip(",;.)]}")
        if (len(value) < 4 or value.lower() in _NOT_A_PASSWORD or "://" in value or value[0] in "!&*%$("
                or _PLACEHOLDER.search(value) or all(_CODE_OR_NAME.fullmatch(part) for part in value.split(","))
                or (m.group("segment") and (value.isdigit()
                                            or value.isalpha() and (value.islower() or value.istitle())))
                or (m.group("camel") and (value.isdigit() or value.isalpha()))):
            continue  # a `*_PASS` name (FIRST_PASS: enabled, n_pass=1000) wants a letter and a digit, a symbol or
            # mixed case; a camelCase one, code's (`fastPassParams: ChallengeParams`, 'allPass': 'overEvery'), a
            # letter and a digit or a symbol
        if _COMMAND_NAME.search(text, m.start(), m.start("value")):
            continue  # RESTIC_PASSWORD_COMMAND='security find-generic-password …': a program, not the password
        put(m.start("value"), _quoted_end(text, m.start("value"), len(value)), 0)
    for m in _scan(_PROSE_PASSWORD, text, low) if "pass" in low else ():
        value = m.group("value") if m.group("quote") else m.group("value").rstrip(",;.:!?)")  # "is hunter2."
        if len(value) >= 4 and _prose_password(value):
            put(m.start("value"), m.start("value") + len(value), 0)
    netrc = _scan(_NETRC, text, low) if "password" in low and ("machine" in low or "default" in low) else ()
    for m in (*netrc, *(_scan(_CURL_USER, text, low) if "curl" in low else ())):
        value = m.group("value")
        if "start" in m.re.groupindex and m.group("start") is None:  # a netrc entry inside a sentence ("the
            value = value.rstrip(",;.:)]}")  # default login and password fields.") wants a non-letter in it
            if value.isalpha():
                continue
        if value.lower() not in _NOT_A_PASSWORD and value[0] not in "$%!`" and not _PLACEHOLDER.search(value):
            put(m.start("value"), m.start("value") + len(value), 0)
    for pattern, words, _back in _COMMAND_PASSWORDS:
        for m in _scan(pattern, text, low) if any(word in text for word in words) else ():
            value = m.group("value")
            if text[m.start("value") - 1] not in "'\"":  # unquoted, a shell's `;`, `|` or `&` ends it
                value = re.split(r"[;|&]", value, maxsplit=1)[0]
            if value and _command_password(value):
                put(m.start("value"), _quoted_end(text, m.start("value"), len(value)), 0)
    for m in _scan(_KEY_VALUE, text, low) if "key" in low else ():
        if _random_key(m.group("value")):
            put(m.start("value"), m.end("value"), 0)
    for m in _URL_PASSWORD.finditer(text):
        value = m.group("value")
        # a template (${DB_PASS}, %s) or the documentation's own placeholder (`scheme://[user:passwd@]proxy:port`,
        # `https://user:password@host`, `user:<your-password>@`) is syntax, not a secret: masking it alters the docs
        if not (re.search(r"[${}<>%]|^\*+$", value) or value.lower() in _NOT_A_PASSWORD
                or _PLACEHOLDER.search(value)):
            put(m.start("value"), m.end("value"), 0)
    for m in _scan(_REGISTRY_AUTH, text, low) if "auth" in low else ():
        login = _base64_text(m.group("value"))
        if re.fullmatch(r"[\x20-\x39\x3b-\x7e]{1,200}:[\x20-\x7e]{1,200}", login):
            put(m.start("value"), m.end("value"), 0)
    for m in _SAS_SIGNATURE.finditer(text) if "sig=" in low else ():
        put(m.start("value"), m.end("value"), 0)
    for m in _WEBHOOK.finditer(text) if "hooks.slack.com" in low else ():
        put(m.start("value"), m.end("value"), 0)
    for m in _scan(_AUTH_HEADER, text, low) if "bearer" in low or "authorization" in low else ():
        value = m.group("value")
        if re.search(r"[0-9]", value) and not _PLACEHOLDER.search(value):
            put(m.start("value"), m.end("value"), 0)
    for m in _PROVIDER_KEY.finditer(text):  # after the assignments: a provider key keeps its prefix visible
        chars[m.start():m.end()] = _masked(text[m.start():m.end()], KEEP_PREFIX)
        count += 1
    return ("".join(chars) if count else text), count


def mask_diff_hunk(hunk: str) -> str:
    """`hunk` (a unified diff's hunk: each line a `+`, `-`, space, `@@` or `\\` prefix and a file's line) with the
    secret values of its lines masked (`mask_secrets` on the lines without their first character, masked as one
    text so a private key block over several lines is found) and every line's first character kept: masking the
    hunk as it is took the `+` of each line in a key's body and of its END line, breaking the diff's structure."""
    lines = hunk.split("\n")
    masked, count = mask_secrets("\n".join(line[1:] for line in lines))
    if not count:
        return hunk
    return "\n".join(line[:1] + body for line, body in zip(lines, masked.split("\n"), strict=True))


#: Why a URL holding a credential (`url_credential`) is not fetched, a named RAG's source or a link a crawl meets: a
#: page's URL is its key, stored in the index and shown in rag/status, hits and prompts.
URL_CREDENTIAL = ("a URL holding a credential is not fetched: every page's URL would carry it into the index, "
                  "rag/status and prompts; fetch it with a [document_loaders] command that adds the credential")


def url_credential(url: str) -> str | None:
    """`url` with its credentials masked (same length) when it holds one, else None: any user info
    (`https://user:token@host/`, `https://TOKEN@host/`: a client sends it as Basic auth, so even a placeholder
    `user:password@` is one) or a secret value `mask_secrets` finds (`?token=…`, `?api_key=…`, a SAS `sig=`,
    a provider key). A user name is kept when a password follows it, else masked (it may be the token). User info
    is the authority's text up to its last "@" (`core.uris.split_authority`)."""
    masked, found = mask_secrets(url)
    split = split_authority(masked)
    if split is not None and split[1] is not None:
        scheme, userinfo, host, rest = split
        user, colon, password = userinfo.partition(":")
        userinfo = f"{user}:{MASK * len(password)}" if colon else MASK * len(user)
        masked, found = f"{scheme}://{userinfo}@{host}{rest}", found + 1
    return masked if found else None


@dataclasses.dataclass(frozen=True)
class CredentialRefusal:
    """A URL not requested because it holds a credential (`credential_refusal`); `masked` is the URL with the
    credential masked (`url_credential`), the only form any output carries. `skipped`: Skipped(masked,
    URL_CREDENTIAL), where a named RAG's source or a crawl's link is left out; str(): "<masked>: <URL_CREDENTIAL>",
    where a fetch fails on it ("redirected to " before it for a redirect's target)."""

    masked: str

    @property
    def skipped(self) -> Skipped:
        return Skipped(self.masked, URL_CREDENTIAL)

    def __str__(self) -> str:
        return f"{self.masked}: {URL_CREDENTIAL}"


def credential_refusal(url: str) -> CredentialRefusal | None:
    """The one check of a URL before anything requests it: a named RAG's URL source (`resolve.py`), a link a crawl
    meets, a redirect's target and every fetch (`web.fetch_page`: a `rag/ask` document URL, a page of a source).
    None when `url` holds no credential (`url_credential`), else the CredentialRefusal each of them lists or raises:
    a page's URL is its key, stored in the index and shown in rag/status, hits and prompts."""
    masked = url_credential(url)
    return None if masked is None else CredentialRefusal(masked)


def mask_document(doc: Document) -> Document:
    """`doc` with its secret values masked (`mask_secrets`); the same object when it holds none. Its content hash
    (change detection) stays that of the file's bytes."""
    text, count = mask_secrets(doc.text)
    return dataclasses.replace(doc, text=text) if count else doc
