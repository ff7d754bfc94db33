"""`ragls serve` over stdio (a real LSP client) under a user's inotify limit that leaves some of the folder's
directories unwatched: the limit is set in a user namespace of the server's own (`unshare -Ur`, Linux; the machine's
`fs.inotify.max_user_watches` untouched), at 20 watches for a folder of 44 walked directories. The watch used to fail
as a whole (30 restarts within a minute, then "file watcher stopped"): no edit was seen. Now the shallowest
directories are watched, an edit there is indexed, and rag/status says how many are not watched; the others are
polled, so an edit made in one outside the editor is indexed too (it waited for the next `ragls index`), and so is
a directory made in one."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from livekit import eventually, paths_for, running_server
from lspkit import SERVER_COMMAND, request, wait_indexed

pytestmark = pytest.mark.asyncio(loop_scope="function")

LIMIT = 20  # inotify watches the server's user may hold: fewer than the 44 directories to watch


def _limit_settable() -> bool:
    """Whether a user namespace of our own can be made here and its inotify limit set (`unshare -Ur`)."""
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-Ur", "sh", "-c", "echo 20 > /proc/sys/user/max_inotify_watches"],
                           check=False, capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not _limit_settable(), reason="needs Linux user namespaces (unshare -Ur)")
async def test_a_watch_past_the_inotify_limit_watches_the_shallowest_directories_and_says_so(tmp_path):
    folder = tmp_path / "ws"
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "guide.md").write_text("# Guide\n\nThe ferry timetable lists the puffin crossing.\n")
    for i in range(41):  # area/ and 41 directories below it: 44 with the folder and docs/
        (folder / "area" / f"part{i:02}").mkdir(parents=True)
        (folder / "area" / f"part{i:02}" / "notes.md").write_text(f"# Part {i}\n\nA note on section {i}.\n")
    command = ["unshare", "-Ur", "sh", "-c", f'echo {LIMIT} > /proc/sys/user/max_inotify_watches && exec "$@"',
               "sh", *SERVER_COMMAND]
    async with running_server(folder, tmp_path / "cache", command=command) as client:
        await wait_indexed(client, files=42)

        async def limit_warning():
            errors = (await request(client, "rag/status", {}))["errors"]
            return [e for e in errors if "inotify" in e["message"]]

        found = await eventually(limit_warning, "the inotify limit said in rag/status")
        message = found[0]["message"]
        assert found[0].get("severity") == "warning"
        watched, wanted = (int(n) for n in message.split("is reached: ")[1].split(" folders")[0].split(" of "))
        assert wanted == 44 and 0 < watched <= LIMIT, message
        errors = (await request(client, "rag/status", {}))["errors"]
        assert not any("file watcher stopped" in e["message"] for e in errors), errors

        (folder / "docs" / "guide.md").write_text("# Guide\n\nThe harbour master keeps the tide tables.\n")
        await eventually(lambda: _first(client, "harbour master tide tables"), "the edit in docs/ indexed")

        assert "looked at every 10 s" in message
        (folder / "area" / "part40" / "notes.md").write_text("# Part 40\n\nThe lighthouse keeper logs the gannets.\n")
        await eventually(lambda: _first(client, "lighthouse keeper gannets", "area/part40/notes.md"),
                         "the edit in an unwatched directory indexed")

        # a directory made in an unwatched one: its first file is found by the scan its appearance starts, and it
        # is looked at from then on (it was in no poll: a later edit waited for the next `ragls index`)
        (folder / "area" / "part40" / "log").mkdir()
        (folder / "area" / "part40" / "log" / "day.md").write_text("# Day\n\nThe cormorants dried their wings.\n")
        await eventually(lambda: _first(client, "cormorants dried their wings", "area/part40/log/day.md"),
                         "a file in a new directory in an unwatched one indexed")
        (folder / "area" / "part40" / "log" / "day.md").write_text("# Day\n\nThe kittiwakes nested on the cliff.\n")
        await eventually(lambda: _first(client, "kittiwakes nested on the cliff", "area/part40/log/day.md"),
                         "the edit in the new directory indexed")


async def _first(client, query: str, path: str = "docs/guide.md") -> bool:
    found = await paths_for(client, query, top_k=1)
    return bool(found) and found[0].endswith(path)
