"""Settings merge order, aliases, camelCase, validation messages (config/settings.py)."""

from __future__ import annotations

import pytest
from ragls.config.settings import build_settings
from ragls.config.trust_filter import load_settings
from ragls.core.errors import ConfigError


def test_defaults():
    s, warnings = build_settings()
    assert (s.chunking.chunk_size, s.chunking.overlap, s.retrieval.top_k, s.retrieval.graph_hops) == (2000, 100, 5, 1)
    assert (s.retrieval.vector_weight, s.retrieval.bm25_weight, s.retrieval.graph_weight) == (1.125, 1.0, 0.9)
    assert warnings == []


def test_later_layers_win_and_aliases_and_camel_case(tmp_path):
    (tmp_path / "ragls.toml").write_text("rag_top_k = 7\n[chunking]\nchunk_size = 1000\n")
    s, _ = load_settings(tmp_path, {"retrieval": {"topK": 3}}, {"ragls": {"chunkSize": 800}})
    assert s.retrieval.top_k == 3
    assert s.chunking.chunk_size == 800 and s.chunking.overlap == 40  # 5 % of the size
    s, _ = load_settings(tmp_path)
    assert s.retrieval.top_k == 7 and s.chunking.chunk_size == 1000


def test_unknown_keys_warn():
    _, warnings = build_settings({"retrieval": {"nope": 1}, "bogus": 2})
    assert warnings == ["unknown setting retrieval.nope", "unknown setting bogus"]


@pytest.mark.parametrize("layer, message", [
    ({"rag_template": "only __INPUT__"}, "generation.template: template must contain the placeholder __CONTEXT__"),
    ({"rag_template": "only __CONTEXT__"}, "placeholder __INPUT__"),
    ({"rag_extractor_prompt": "no chunk"}, "__CHUNK__"),
    ({"rag_top_k": 0}, "retrieval.top_k"),
    ({"generation": {"backend": "gpt"}}, "generation.backend"),
    ({"chunking": {"chunk_size": 200, "chunk_overlap": 300}}, "chunk_overlap"),
])
def test_invalid_values_name_the_field(layer, message):
    with pytest.raises(ConfigError) as info:
        build_settings(layer)
    assert message in str(info.value)


def test_template_without_sources_is_fine():
    s, _ = build_settings({"rag_template": "Q: __INPUT__\nC: __CONTEXT__"})
    assert "__SOURCES__" not in s.generation.template


def test_toml_syntax_error_names_file(tmp_path):
    (tmp_path / "ragls.toml").write_text("[retrieval\n")
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    assert "ragls.toml" in str(info.value)


def test_an_invalid_value_names_the_file_that_holds_it(tmp_path):
    """Like a syntax error, an invalid value in the folder's ragls.toml (trusted or not) names that file; one the
    editor sent does not name the file."""
    (tmp_path / "ragls.toml").write_text('[retrieval]\ntop_k = "lots"\n')
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    assert str(info.value).startswith(f"invalid settings in {tmp_path / 'ragls.toml'}: retrieval.top_k: ")
    (tmp_path / "ragls.toml").write_text("[retrieval]\ntop_k = 4\n")
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path, {"retrieval": {"top_k": "lots"}})
    assert str(info.value).startswith("invalid settings: retrieval.top_k: ")


def test_unknown_keys_suggest_the_closest_setting():
    _, warnings = build_settings({"retreival": {"top_k": 3}, "sources": {"exlude": ["a.md"]},
                                  "retrieval": {"topk": 2}, "rag_top_kk": 1})
    assert warnings == ["unknown setting retreival (did you mean retrieval?)",
                        "unknown setting sources.exlude (did you mean sources.exclude?)",
                        "unknown setting retrieval.topk (did you mean retrieval.top_k?)",
                        "unknown setting rag_top_kk (did you mean rag_top_k?)"]


def test_a_section_written_as_a_value_is_named_as_a_section():
    """`retrieval = 5` or `[[sources]]` (TOML's array of tables) said "unknown setting retrieval (did you mean
    retrieval?)": nothing the user could act on."""
    _, warnings = build_settings({"retrieval": 5, "sources": [{"include": ["*.md"]}], "generation": "ollama"})
    tail = ", one name = value a line (docs/configuration.md); ignored"
    assert warnings == [
        "setting retrieval is a section, not a number: write its settings under [retrieval]" + tail,
        "setting sources is a section, not an array of tables ([[...]]): write its settings under [sources]" + tail,
        "setting generation is a section, not a string: write its settings under [generation]" + tail]


def test_a_folder_cannot_let_itself_follow_links_out_of_it(tmp_path):
    (tmp_path / "ragls.toml").write_text("[sources]\nfollow_outside_links = true\nexclude = [\"drafts/\"]\n")
    s, warnings = load_settings(tmp_path)
    assert s.sources.follow_outside_links is False and s.sources.exclude == ["drafts/"]
    assert any("follow_outside_links" in w and "editor" in w for w in warnings)
    s, _ = load_settings(tmp_path, {"sources": {"followOutsideLinks": True}})  # the user's editor settings
    assert s.sources.follow_outside_links is True


def test_old_names_of_the_abstention_floor_keep_working(tmp_path):
    """`sufficiency_floor` / `rag_sufficiency_floor` are old names of `retrieval.min_similarity` (config.RENAMED):
    flat, in their section, camelCase, from an untrusted folder's file; the old name wins over the new one in the
    same layer (as when it was a setting of its own), a later layer wins as always; a notice names the setting."""
    for layer in ({"retrieval": {"sufficiency_floor": 0.3}}, {"rag_sufficiency_floor": 0.3},
                  {"ragls": {"sufficiencyFloor": 0.3}}, {"retrieval": {"min_similarity": 0.1, "sufficiencyFloor": 0.3}},
                  {"retrieval": {"sufficiency_floor": 0.3, "min_similarity": 0.1}}):
        s, notices = build_settings(layer)
        assert s.retrieval.min_similarity == 0.3 and s.retrieval.abstention_floor == 0.3, layer
        assert len(notices) == 1 and "use retrieval.min_similarity" in notices[0], layer
    s, _ = build_settings({"rag_sufficiency_floor": 0.3}, {"retrieval": {"min_similarity": 0.25}})
    assert s.retrieval.min_similarity == 0.25
    (tmp_path / "ragls.toml").write_text("[retrieval]\nsufficiency_floor = 0.35\n")  # not trusted: still a safe one
    s, warnings = load_settings(tmp_path)
    assert s.retrieval.min_similarity == 0.35
    assert warnings == [("setting retrieval.sufficiency_floor is an old name of retrieval.min_similarity; it still "
                        "works, but use retrieval.min_similarity")]


def test_rag_status_names_the_setting_an_old_name_stands_for(tmp_path, monkeypatch):
    from ragls.workspace.rag_workspace import RagWorkspace

    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nSome text.\n")
    ws = RagWorkspace([folder], [{"rag_sufficiency_floor": 0.3}], pin_model=False)
    try:
        assert ws.settings.retrieval.min_similarity == 0.3
        assert [n for n in ws.status().notices if "old name" in n] == [
            ("setting rag_sufficiency_floor is an old name of retrieval.min_similarity; it still works, but use "
            "retrieval.min_similarity")]
        assert not [w for w in ws.warnings if "old name" in w]
    finally:
        ws.close()


KEY = "sk-proj-Q7vK2mN9xR4tL8wE1aZ5cB3dF6gH0jYp"


@pytest.mark.parametrize("layer", [
    {"generation": {"api_key_env": KEY}},
    {"generation": {"api_key_env": "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY"}},  # a name's shape, a key's content
    {"index": {"qdrant_api_key_env": KEY}},
])
def test_a_key_pasted_where_its_variable_is_named_is_refused_and_never_quoted(layer):
    """`api_key_env = "sk-proj-…"` (the key instead of the variable's name) was read as a name: "no API key; set
    sk-proj-…" put the key in the logs, rag/status and the answer's error. Now the setting is refused, the value
    unquoted; a real variable name stays valid. The same rule for rag/models' apiKeyEnv and an attached collection's
    qdrant.api_key_env."""
    from ragls.kb.qdrant_attach import QdrantAttach
    from ragls.lsp.wire import ModelsParams, parse

    with pytest.raises(ConfigError) as err:
        build_settings(layer)
    assert "must name an environment variable" in str(err.value) and KEY not in str(err.value)
    assert "ghp_R4nd0m" not in str(err.value)
    assert build_settings({"generation": {"api_key_env": "OPENAI_API_KEY_2"}})[0].generation.api_key_env == \
        "OPENAI_API_KEY_2"
    with pytest.raises(Exception) as bad:
        parse(ModelsParams, {"baseUrl": "http://127.0.0.1:1/v1", "apiKeyEnv": KEY})
    assert "must name an environment variable" in str(bad.value) and KEY not in str(bad.value)
    with pytest.raises(ConfigError) as attach:
        QdrantAttach.from_dict({"url": "http://127.0.0.1:6333", "api_key_env": KEY})
    assert "qdrant.api_key_env must name" in str(attach.value) and KEY not in str(attach.value)


@pytest.mark.parametrize("name", ["AzureOpenAIKey2024Prod", "My_Company_OpenAI_Key_V2", "MY_COMPANY_OPENAI_KEY_V2",
                                  "GitHubToken2024Personal", "Gpt4oMiniApiKeyProd", "GcpVertexAiKeyUsCentral1",
                                  "LLM_Gateway_Key_2025_Q3", "azure_openai_key_eastus2"])
def test_a_long_variable_name_mixing_cases_and_digits_is_a_name(name, monkeypatch):
    """Any 20+ characters of mixed case with a digit were refused as a pasted key: `AzureOpenAIKey2024Prod` could
    not be named. A name reads as words (`core.key_shapes`), set in the environment or not."""
    monkeypatch.delenv(name, raising=False)
    assert build_settings({"generation": {"api_key_env": name}})[0].generation.api_key_env == name


@pytest.mark.parametrize("key", ["a8F3kQ9zLm2Xw7RtYp4NcV6b", "f86d081884c7d659a2feaa0c55ad0159",  # random, Azure's hex
                                 "AKIAIOSFODNN7EXAMPLE", "JBSWY3DPEHPK3PXPJBSWY3DP",  # AWS key id, base32
                                 "hf_" + "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY", "Q7vK2mN9xR4tL8wE1aZ5cB3dF6gH0jYpA2"])
def test_a_pasted_key_shaped_like_a_name_is_refused_unless_such_a_variable_is_set(key, monkeypatch):
    """Keys by their formats (a provider's prefix, hex, base32, random mixed case) are refused and never quoted; a
    variable of that very name, when set, is one."""
    monkeypatch.delenv(key, raising=False)
    with pytest.raises(ConfigError) as err:
        build_settings({"generation": {"api_key_env": key}})
    assert "must name an environment variable" in str(err.value) and key not in str(err.value)
    monkeypatch.setenv(key, "x")
    assert build_settings({"generation": {"api_key_env": key}})[0].generation.api_key_env == key


def test_random_strings_mixing_cases_read_as_words_rarely():
    """The residual: of random base62 strings mixing cases, few read as words (`_reads_as_words` states the
    rates); hexadecimal ones never pass as names."""
    import random
    import string

    from ragls.core.key_shapes import looks_like_key

    rng = random.Random(61)
    for length, at_most in ((20, 40), (32, 6)):
        keys = ["".join(rng.choice(string.ascii_letters + string.digits) for _ in range(length))
                for _ in range(10_000)]
        keys = [k for k in keys if not k[0].isdigit() and not k.isupper() and not k.islower()]
        assert len(keys) > 8_000 and sum(not looks_like_key(k) for k in keys) <= at_most
    assert all(looks_like_key("f9" + "".join(rng.choice("0123456789abcdef") for _ in range(30))) for _ in range(1_000))


@pytest.mark.parametrize(("url", "message"), [
    ("http://deploy:Zr8wq3Lp@[::1", "'http://[::1' is not a URL (Invalid IPv6 URL)"),
    ("http://deploy:Zr@8wq3Lp@gw.example:99999/v1?k=1", "'http://gw.example:99999/v1' is not a URL (Port out of range"),
    ("ftp://deploy:Zr8wq3Lp@gw.example/v1", "'ftp://gw.example/v1' is not an http(s) URL with a host"),
    ("localhost:8080", "'localhost:8080' is not an http(s) URL with a host"),
])
def test_a_base_url_that_is_no_http_url_is_refused_naming_it_without_its_credential(url, message):
    """generation.base_url "http://[::1" was accepted, then every rag/ask answered -32603 "ValueError: Invalid IPv6
    URL" with a traceback (urllib, when the chat client built /models). Now the setting is refused as the file is
    read, the URL shown without its user info (`uris.display_url`), as rag/models' `baseUrl` is (-32602)."""
    with pytest.raises(ConfigError) as info:
        build_settings({"generation": {"base_url": url}}, origin="ragls.toml")
    assert f"invalid settings in ragls.toml: generation.base_url: {message}" in str(info.value)
    assert "Zr8wq3Lp" not in str(info.value) and "8wq3Lp" not in str(info.value)
    assert build_settings({"generation": {"base_url": "https://gw.example/v1?api-version=2"}})[0].generation.base_url
