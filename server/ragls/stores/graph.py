"""Entity graph of one folder index (graph RAG): networkx, persisted as JSON beside the other stores.

Nodes are entities keyed by their normalised name (`entity_key`: case-folded words joined by one space); node data:
`name` (first spelling seen), `type`, `aliases` (other spellings), `chunks` ({chunk id: description}: the chunks
mentioning it). Edges are undirected relationships; edge data `by_chunk` ({chunk id: weight}) and `types`
({chunk id: relationship type}); an edge's weight is the sum over the chunks stating it (`edge_weight`).

Besides the graph the file keeps:
- `mentions`: chunk id -> {"path", "key"}: every live chunk registered for extraction, `key` = extraction key;
- `extractions`: extraction key -> parsed result, or {"invalid": reason} when the model's reply was not valid
  JSON. Keys hash (extractor model, prompt, chunk text), so unchanged text is never sent twice, even after a
  rebuild or a rename.
A chunk whose key has no entry in `extractions` is pending (new, or its extraction failed and will be retried).

The file is `graph.json` in the index dir: {"version", "graph": node-link data, "mentions", "extractions"},
written atomically (temp file + os.replace). All methods are thread-safe.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)

FILE = "graph.json"
VERSION = 1
_WORD = re.compile(r"\w+")


def entity_key(name: str) -> str:
    """Normalised entity name: case-folded words (\\w+) joined by single spaces; "" when it has no word."""
    return " ".join(_WORD.findall(name.casefold()))


class GraphStore:
    """The entity graph at `directory / graph.json` (loaded if present; a corrupt file is logged and ignored)."""

    def __init__(self, directory: Path):
        import networkx as nx  # imported here: ~11 MB the server does not need while graph RAG is off

        self.path = Path(directory) / FILE
        self.graph = nx.Graph()
        self.mentions: dict[str, dict[str, str]] = {}
        self.extractions: dict[str, dict] = {}
        self.lock = threading.RLock()
        self._mtime_ns = 0
        self.version = 0  # bumped on every change (query-time caches key on it)
        self.load()

    # -- persistence ---------------------------------------------------------------------------------------
    def load(self) -> None:
        """(Re)read the file; an absent file means an empty graph."""
        import networkx as nx

        with self.lock:
            try:
                st = self.path.stat()
                data = json.loads(self.path.read_text(encoding="utf-8"))
                graph = nx.node_link_graph(data["graph"], edges="links")
                mentions, extractions = dict(data["mentions"]), dict(data["extractions"])
            except FileNotFoundError:
                return
            except (OSError, ValueError, KeyError, TypeError) as exc:
                log.warning("ignoring unreadable graph file %s: %s", self.path, exc)
                return
            self.graph, self.mentions, self.extractions = graph, mentions, extractions
            self._mtime_ns = st.st_mtime_ns
            self.version += 1

    def reload_if_changed(self) -> None:
        """Readers: pick up the file another process (the writer) saved since the last load."""
        try:
            mtime = self.path.stat().st_mtime_ns
        except OSError:
            return
        if mtime != self._mtime_ns:
            self.load()

    def save(self) -> None:
        """Write the file atomically."""
        import networkx as nx

        with self.lock:
            data = {"version": VERSION, "graph": nx.node_link_data(self.graph, edges="links"),
                    "mentions": self.mentions, "extractions": self.extractions}
            tmp = self.path.with_name(f"{FILE}.{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
            os.replace(tmp, self.path)
            self._mtime_ns = self.path.stat().st_mtime_ns

    # -- chunk registration --------------------------------------------------------------------------------
    def register(self, chunk_id: str, path: str, key: str) -> None:
        """Record that live chunk `chunk_id` (of `path`) has extraction key `key`; applies a cached result."""
        with self.lock:
            old = self.mentions.get(chunk_id)
            if old is not None and old["key"] == key:
                return
            if old is not None:
                self._unapply(chunk_id, old["key"])
            self.mentions[chunk_id] = {"path": path, "key": key}
            if key in self.extractions:
                self._apply(chunk_id, self.extractions[key])
            self.version += 1

    def set_result(self, key: str, result: dict) -> int:
        """Store an extraction result (or {"invalid": reason}) and apply it to every live chunk with that key.
        Returns how many chunks it was applied to."""
        with self.lock:
            self.extractions[key] = result
            applied = 0
            for cid, m in self.mentions.items():
                if m["key"] == key:
                    self._apply(cid, result)
                    applied += 1
            self.version += 1
            return applied

    def forget_paths(self, paths: Iterable[str]) -> int:
        """Remove every mention by chunks of `paths` (deleted or changed files). Returns how many chunks."""
        paths = set(paths)
        with self.lock:
            gone = [cid for cid, m in self.mentions.items() if m["path"] in paths]
            self._forget(gone)
            return len(gone)

    def forget_chunks(self, chunk_ids: Iterable[str]) -> int:
        """Remove the mentions of these chunks (e.g. ids no longer in the manifest). Returns how many."""
        with self.lock:
            gone = [cid for cid in chunk_ids if cid in self.mentions]
            self._forget(gone)
            return len(gone)

    def _forget(self, chunk_ids: list[str]) -> None:
        for cid in chunk_ids:
            self._unapply(cid, self.mentions.pop(cid)["key"])
        if chunk_ids:
            self.version += 1

    def pending(self) -> dict[str, str]:
        """Live chunks without an extraction result: {chunk id: key}."""
        with self.lock:
            return {cid: m["key"] for cid, m in self.mentions.items() if m["key"] not in self.extractions}

    def invalid_count(self) -> int:
        """Live chunks whose extraction reply was not valid JSON."""
        with self.lock:
            return sum(1 for m in self.mentions.values() if "invalid" in self.extractions.get(m["key"], {}))

    def prune_extractions(self) -> int:
        """Drop cached results no live chunk uses (e.g. after the extractor model changed). Returns how many."""
        with self.lock:
            live = {m["key"] for m in self.mentions.values()}
            dead = [k for k in self.extractions if k not in live]
            for k in dead:
                del self.extractions[k]
            return len(dead)

    # -- graph mutation ------------------------------------------------------------------------------------
    def _apply(self, cid: str, result: dict) -> None:
        g = self.graph
        for ent in result.get("entities", []):
            k = entity_key(ent["name"])
            if not k:
                continue
            if k not in g:
                g.add_node(k, name=ent["name"], type=ent.get("type") or "OTHER", aliases=[], chunks={})
            data = g.nodes[k]
            if ent["name"] != data["name"] and ent["name"] not in data["aliases"]:
                data["aliases"].append(ent["name"])
            data["chunks"][cid] = ent.get("description") or data["chunks"].get(cid, "")
        for rel in result.get("relationships", []):
            a, b = entity_key(rel["from"]), entity_key(rel["to"])
            if not a or not b or a == b or a not in g or b not in g:
                continue
            if not g.has_edge(a, b):
                g.add_edge(a, b, by_chunk={}, types={})
            edge = g.edges[a, b]
            edge["by_chunk"][cid] = float(rel.get("weight", 1.0))
            edge["types"][cid] = rel.get("type") or "RELATED_TO"

    def _unapply(self, cid: str, key: str) -> None:
        result = self.extractions.get(key)
        if not result or "invalid" in result:
            return
        g = self.graph
        for rel in result.get("relationships", []):
            a, b = entity_key(rel["from"]), entity_key(rel["to"])
            if g.has_edge(a, b):
                edge = g.edges[a, b]
                edge["by_chunk"].pop(cid, None)
                edge["types"].pop(cid, None)
                if not edge["by_chunk"]:
                    g.remove_edge(a, b)
        for ent in result.get("entities", []):
            k = entity_key(ent["name"])
            if k in g:
                g.nodes[k]["chunks"].pop(cid, None)
                if not g.nodes[k]["chunks"]:
                    g.remove_node(k)  # its edges went with the chunks stating them

    # -- reading -------------------------------------------------------------------------------------------
    def entity(self, name: str) -> dict | None:
        """Node data of the entity named `name` (any spelling/case), with its key, or None."""
        k = entity_key(name)
        with self.lock:
            if k not in self.graph:
                return None
            return {"key": k, **self.graph.nodes[k]}

    def neighbourhood(self, name: str, hops: int = 1) -> list[tuple[int, str, str, str, float]]:
        """Entities within `hops` of `name`: (distance, from key, key, relationship types, edge weight), nearest
        first, each reached by its heaviest edge from the previous ring. [] when the entity is unknown."""
        k = entity_key(name)
        with self.lock:
            if k not in self.graph:
                return []
            out, seen, ring = [], {k}, [k]
            for dist in range(1, hops + 1):
                nxt: dict[str, tuple[str, float]] = {}
                for u in ring:
                    for v, data in self.graph[u].items():
                        w = edge_weight(data)
                        if v not in seen and (v not in nxt or w > nxt[v][1]):
                            nxt[v] = (u, w)
                for v, (u, w) in sorted(nxt.items(), key=lambda kv: -kv[1][1]):
                    types = ", ".join(sorted(set(self.graph.edges[u, v]["types"].values())))
                    out.append((dist, u, v, types, w))
                seen |= set(nxt)
                ring = list(nxt)
            return out


def edge_weight(data: dict) -> float:
    """Weight of an edge: the sum of the weights the chunks stating it gave."""
    return float(sum(data["by_chunk"].values()))
