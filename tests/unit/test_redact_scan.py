"""The masker's keyword-driven scan (`redact._scan`) finds exactly the matches a plain `finditer` finds, on generated
text built from the rules' own keywords, separators and values (mixed case, `re`'s Unicode case folds, long names,
one line or many), so making it fast masked nothing less. Its speed is measured in bench/redact.py."""

from __future__ import annotations

import random
import re
import sys

import pytest
from ragls.sources import redact
from ragls.sources.redact import _KEYWORDS, _fold, _scan, mask_secrets

FRAGMENTS = [
    "api_key", "API-KEY", "apikey", "secret", "SECRET", "token", "tokens", "Token", "password", "PASSWORD", "passwd",
    "pwd", "PWD", "passphrase", "access_key", "private-key", "account_key", "signing_key", "master-key",
    "encryption_key", "pass", "PASS", "Pass", "smtpPass", "mail.smtp.pass", "db_pass", "fastPassParams", "bypass",
    "pa\u017fsword", "\u017fecret", "api_\u212aey", "pr\u0131vate_key", "PR\u0130VATE_KEY", "auth", "_auth", "AUTH",
    "Authorization", "authorization", "Bearer", "bearer", "basic", "machine", "default", "login", "account", "port",
    "curl", "-u", "--user", "--user=", "\\\n", "x" * 45, "abc", "DB", "my", "A1", "_", "-", ".", " ", "  ", "\t",
    "\n", "\n", "\r\n", '"', "'", "`", ">", "#", "]", "[", ":", "=", ":=", ";", ",", "(", "://", "@", "is", "the",
    "Zr8wq3Lp9xA1b2c3", "hunter2", "s3cr3t!", "dXNlcjpwYXNzd29yZA==", "${KEY}", "<your-key>", "1234567890",
    "example.com", "CoffeeShop2024", "to", "set", "machine h.example login bob password ", "default login bob password ",
    "machine h.example\n  account x\tpassword ", "curl -u bob:", "curl --user bob:", "curl https://h \\\n  -u bob:",
    "Authorization: Bearer ", "authorization=token ", '"auth": "', "password is ", "password for the admin is ",
    "key", "KEY", "appKey", "monkey", "mysql", "mysqldump", "mariadb-dump", "sshpass", "docker", "podman", "login",
    "helm registry", "redis-cli", "mongosh", "ldapsearch", "openssl", "zip", "unzip", "7z", "-p", "-pS3cret", "-p=",
    "-a", "-w", "-P", "-v", "-passin pass:", "--password", "--pass", "|", "&&", "q8Zr3vLp0XmT7bN2kW9s",
]


def _texts(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        yield "".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(5, 120)))


def _rule_name(pattern):
    commands = [p for p, _words, _back in redact._COMMAND_PASSWORDS]
    return next((k for k, v in vars(redact).items() if v is pattern), None) or f"command{commands.index(pattern)}"


@pytest.mark.parametrize("pattern", list(_KEYWORDS), ids=_rule_name)
def test_the_keyword_scan_finds_what_finditer_finds(pattern):
    for text in _texts(hash(pattern.pattern) % 1000, 1500):
        expected = [m.span() for m in pattern.finditer(text)]
        assert [m.span() for m in _scan(pattern, text, _fold(text))] == expected, text


def test_fold_keeps_length_and_folds_every_character_re_folds_to_an_ascii_letter():
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    folded = _fold(every)
    assert len(folded) == len(every)
    to_ascii = [m.group() for m in re.finditer(r"(?i)[a-z]", every)]
    assert len(to_ascii) == 52 + 4  # A-Z, a-z, and ſ, Kelvin's K, İ, ı
    for ch in to_ascii:
        f = _fold(ch)
        assert f in "abcdefghijklmnopqrstuvwxyz" and re.fullmatch(f"(?i){f}", ch), ch


def test_secrets_spelled_with_unicode_case_folds_are_masked():
    """`re` matches `paſsword` to PASSWORD; the old gate (`"pass" in text.lower()`) skipped such a text."""
    text, count = mask_secrets("PAſSWORD=Zr8wq3Lp9x and api_Key: Zr8wq3Lp9xA1b2c3")
    assert count == 2 and "Zr8wq3Lp9x" not in text and text.count("*") == 10 + 16
