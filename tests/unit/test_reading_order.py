"""answer/extractive.reading_order: the quoted passages of an extractive answer in the order a reader meets them."""

from __future__ import annotations

from ragls.answer.extractive import Unit, reading_order
from ragls.core.ir import Chunk, Hit, LineSpan

DEPLOY = ("# Deploying beacon firmware\n\nNew firmware goes out to the beacon cluster in stages.\n\n"
          "Run `beacon push --canary 5` first: it updates five beacons and waits an hour. If no beacon reports a fault,\n"
          "run `beacon push --all` to update the rest. To roll back, run `beacon push --previous`.\n")


def _hit(path: str, text: str, first_line: int) -> Hit:
    span = LineSpan(first_line, 0, first_line + text.count("\n"), 0)
    return Hit(Chunk(id=f"{path}#{first_line}", path=path, text=text, span=span, text_hash=path), score=1.0)


def test_one_page_reads_in_its_order_even_two_sentences_of_one_line():
    sources = [(1, _hit("deploy.md", DEPLOY, 0))]
    picked = [(1, Unit("To roll back, run `beacon push --previous`.", line=5)),
              (1, Unit("If no beacon reports a fault, run `beacon push --all` to update the rest.", line=4, end=5)),
              (1, Unit("Run `beacon push --canary 5` first: it updates five beacons and waits an hour.", line=4)),
              (1, Unit("New firmware goes out to the beacon cluster in stages.", line=2))]
    assert [u.sentence[:12] for _, u in reading_order(picked, sources)] == [
        "New firmware", "Run `beacon ", "If no beacon", "To roll back"]


def test_files_keep_the_order_of_their_best_passage_and_chunks_of_a_file_read_by_line():
    later = _hit("guide.md", "Step three.\nStep four.\n", 40)
    earlier = _hit("guide.md", "Step one.\nStep two.\n", 10)
    other = _hit("faq.md", "An aside.\n", 0)
    sources = [(1, later), (2, other), (3, earlier)]
    picked = [(1, Unit("Step four.", line=1)), (2, Unit("An aside.", line=0)), (3, Unit("Step one.", line=0)),
              (1, Unit("Step three.", line=0))]
    assert [u.sentence for _, u in reading_order(picked, sources)] == [
        "Step one.", "Step three.", "Step four.", "An aside."]
    # a pointer with no line ("See <source>") sorts at its chunk's first line; the picks themselves are kept
    pointer = [(2, Unit("See faq.md", line=-1)), (1, Unit("Step three.", line=0))]
    assert reading_order(pointer, sources) == pointer
