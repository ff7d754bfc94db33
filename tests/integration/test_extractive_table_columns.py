"""Reference tables in extractive answers: a row shows each value under its column's name ("Default: `8192`"), also
when the row's chunk opens inside a long table whose header is in an earlier chunk (read from the file), and a GFM
delimiter row of fewer than three hyphens ("|--|--|", Sanic's guide) is a delimiter, not a row. Real workspace:
tantivy, LanceDB, the offline all-MiniLM-L6-v2."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.answer.passages import units

SETTINGS = ["| **Variable** | **Default** | **Description** |", "|--|--|--|"] + [
    f"| SETTING_{i:02} | {i * 10} | What the server does with the {i}th option when it starts up and serves |"
    for i in range(40)] + ["| REQUEST_MAX_SIZE | 100000000 | How big a request may be (bytes), default is 100 megabytes |",
                           "| REQUEST_TIMEOUT | 60 | How long a request may take to arrive (sec) |"]
CONFIGURATION = "# Configuration\n\n## Builtin values\n\n" + "\n".join(SETTINGS) + "\n"


def test_a_row_shows_its_values_under_their_column_names():
    found = [u.shown or u.sentence for u in units("| Flag | Description | Default |\n| --- | --- | --- |\n"
                                       "| `--config.file` | Prometheus configuration file path. | `prometheus.yml` |\n"
                                       "| `--web.page-title` | Document title of the Prometheus instance. | |\n")]
    assert found == ["`--config.file` | Prometheus configuration file path. | Default: `prometheus.yml`",
                     "`--web.page-title` | Document title of the Prometheus instance."], found
    short = [u.shown for u in units("\n".join(SETTINGS[:4]))]  # "|--|--|--|": the header is no row
    assert short == ["SETTING_00 | Default: 0 | What the server does with the 0th option when it starts up and serves",
                     "SETTING_01 | Default: 10 | What the server does with the 1th option when it starts up and serves"]


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("tables"), {"running/configuration.md": CONFIGURATION},
                              toml="[chunking]\nchunk_size = 800\n") as w:
        yield w


def test_a_row_in_a_chunk_that_opens_inside_the_table_shows_the_header_above_it(ws):
    answer = ws.ask("How big may a request be? What is the default of REQUEST_MAX_SIZE?")
    [source] = [h for _, h in answer.sources if "REQUEST_MAX_SIZE" in h.chunk.text]
    assert "**Variable**" not in source.chunk.text  # the cited chunk opens inside the table, under its header
    assert "REQUEST_MAX_SIZE | Default: 100000000 | How big a request may be (bytes)" in answer.text, answer.text


def test_the_header_is_never_read_through_a_name_relinked_outside_the_folder(ws, tmp_path):
    """The header above a chunk is read back from the indexed file through `sources.passage.read_back`: a name
    relinked since indexing to a file outside the folder (a folder is untrusted input) gives no header, not a line
    of that file."""
    from pathlib import Path

    from ragls.answer.table_columns import header_above

    answer = ws.ask("How big may a request be? What is the default of REQUEST_MAX_SIZE?")
    [source] = [h for _, h in answer.sources if "REQUEST_MAX_SIZE" in h.chunk.text]
    chunk = source.chunk
    assert header_above(chunk) == SETTINGS[0]
    target = Path(chunk.folder) / chunk.path
    outside = tmp_path / "outside.md"
    outside.write_text(CONFIGURATION.replace("**Default**", "**Outside**"))
    saved = target.read_text()
    target.unlink()
    target.symlink_to(outside)
    try:
        assert header_above(chunk) == ""
    finally:
        target.unlink()
        target.write_text(saved)
