"""bench/fused_replay.anchor_texts: the sentences of other pages that link to a page (reST roles, Markdown links,
site-absolute links of a Hugo site), as bench/prior_ablation.py's anchor-text rows read them."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from fused_replay import _LinkTargets, anchor_texts


def test_rest_roles_give_the_linking_sentence(tmp_path):
    (tmp_path / "Emperor.rst").write_text("The Emperor\n===========\n\nIt spawns one instance per config file.\n")
    (tmp_path / "Tips.rst").write_text(
        "Things to know\n==============\n\nRead the logs first. If you plan to host multiple applications, check the\n"
        ":doc:`Emperor` docs. Another sentence.\n\n.. _alarms:\n\nAlarms\n------\n\nSee :ref:`alarms` here.\n")
    got = anchor_texts(tmp_path)
    assert got["Emperor.rst"] == ["If you plan to host multiple applications, check the :doc:`Emperor` docs."]
    assert "Tips.rst" not in got  # a page's link to its own label is no anchor for it


def test_markdown_links_relative_and_site_absolute(tmp_path):
    (tmp_path / "customization" / "package").mkdir(parents=True)
    (tmp_path / "customization" / "package" / "nfpm.md").write_text("# nFPM\n\nLinux packages.\n")
    (tmp_path / "customization" / "_index.md").write_text("# Customization\n")
    (tmp_path / "intro.md").write_text(
        "# Intro\n\nShip .deb and .rpm packages with [nFPM](/customization/package/nfpm/).\n\n"
        "Everything else is under [customization](customization/).\n")
    got = anchor_texts(tmp_path)
    assert got["customization/package/nfpm.md"] == ["Ship .deb and .rpm packages with [nFPM](/customization/package/nfpm/)."]
    assert got["customization/_index.md"] == ["Everything else is under [customization](customization/)."]
    # the per-chunk reading the recordings keep (`links`) resolves the same targets
    assert _LinkTargets(tmp_path)("intro.md", (tmp_path / "intro.md").read_text()) == [
        "customization/_index.md", "customization/package/nfpm.md"]
