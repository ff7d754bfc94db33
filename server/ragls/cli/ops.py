"""`ragls status|prune|doctor|estimate|models|eval|graph|commit-msg`: the CLI commands beyond index/query/ask
(split from cli/app.py).

They share cli/app.py's helpers (`_workspace`, `_via_server`, `_print_json`); `status` must stay fast (issue 18:
≤ 0.8 s, no model or LanceDB import), so nothing heavy is imported at module level.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

from ragls.cli.common import (
    Progress,
    _indexed_workspace,
    _print_json,
    _via_server,
    _workspace,
    one_line,
    require_folder,
    terminal_text,
)
from ragls.core.errors import InvalidParams, RaglsError, RequestFailed
from ragls.core.uris import display_path, uri_to_path


def vectors_phrase(folder: dict) -> str:
    """The status line's vector count of a rag/status folder: "without vectors: N", or while the embedding model is
    still loading (every chunk then counts in pendingVectors) that it is loading, with the chunks really left to
    embed when the index recorded them. Only search uses keywords meanwhile: rag/ask waits for the model
    (`RagWorkspace.ask` opens the vector stores first), as the clients say ("search uses keywords meanwhile")."""
    if not folder.get("embeddingLoading"):
        return f"without vectors: {folder['pendingVectors']}"
    stored = folder.get("storedPendingVectors")
    left = "" if stored is None else "; every section is embedded" if stored == 0 else f"; {stored} not embedded yet"
    return f"embedding model still loading (search uses keywords until it is ready, answers wait for it{left})"


def cmd_status(args) -> int:
    missing = _unindexed_folder(args)
    if missing is not None:  # status never creates an index directory for a folder nobody indexed
        if args.json:
            _print_json({"folders": [], "notIndexed": [str(missing)]})
        else:
            from ragls.workspace.roots import is_too_broad

            hint = ("not indexed: the filesystem root or your home directory is indexed only with a ragls.toml there"
                    if is_too_broad(Path(missing)) else f"not indexed yet (run `ragls index {args.path}`)")
            print(f"{missing}: {hint}")
        return 0
    wire = _via_server(args, "rag/status", {})
    if wire is not None:  # the running server's status covers all its folders: keep this one
        folder = Path(args.path).expanduser().resolve()
        wire["folders"] = [f for f in wire["folders"] if Path(uri_to_path(f["uri"])) == folder]
    else:
        from ragls.lsp.wire import to_wire_status

        ws = _workspace(args, read_only=True, warn=False)  # status never writes (no repair, no rebuild)
        try:
            wire = to_wire_status(ws.status())
        finally:
            ws.close()
        for warning in ws.log_only_warnings:  # the others are rag/status errors, printed below: not twice
            print(f"ragls: warning: {warning}", file=sys.stderr)
    if args.all:  # rag/status lists the first SKIPPED_LISTED: every one, from each folder's manifest
        for f in wire["folders"]:
            f["skipped"] = all_skipped(Path(f["indexPath"]))
            f.pop("skippedMore", None)
    if args.json:
        _print_json(wire)
        return 0

    # the same lines in-process and through a server: everything printed comes from the rag/status result
    max_length = wire.get("embeddingMaxLength")
    for f in wire["folders"]:
        print(f"folder:      {uri_to_path(f['uri'])}")
        print(f"index:       {f['indexPath']}{'' if f['writer'] else '  (read-only: another process indexes it)'}")
        print(f"files:       {f['files']}   sections: {f['chunks']}   {vectors_phrase(f)}")
        if f.get("pendingWindows") is not None:
            print(f"windows:     {f['chunks'] - f['pendingWindows']}/{f['chunks']} sections fully embedded")
        print(f"last index:  {f['lastIndexedAt'] or 'never'}")
        if max_length is not None:
            from ragls.workspace.estimate import embedding_time_text

            # while the model loads every section counts in pendingVectors: the index's own record then
            vectors = (f.get("storedPendingVectors") or 0) if f.get("embeddingLoading") else f["pendingVectors"]
            pending = max(vectors, f.get("pendingWindows") or 0)  # the long sections' later windows: work left too
            print(f"embedding:   {embedding_time_text(f['chunks'], pending, max_length)}")
        for s in f["skipped"]:
            print(f"skipped:     {one_line(s['path'])}: {one_line(s['reason'])}")
        if f.get("skippedMore"):
            print(f"skipped:     ... and {f['skippedMore']} more files (`ragls status --all` lists them)")
    print(f"model:       {wire['embeddingModel']}   store: {wire['store']}   fingerprint: {wire['fingerprint']}")
    from ragls.answer.extractive_label import no_llm_reason

    gen = wire["generation"]
    # an untrusted ragls.toml's LLM settings: its warning line below says which and what to do; said once
    warned = any(e.get("severity") == "warning" for e in wire["errors"])
    why = "an untrusted ragls.toml's LLM settings are not used; see the warning below" \
        if gen.get("ignored") and warned else no_llm_reason(gen.get("ignored"))
    print(f"generation:  {gen['backend']}" + (f" {gen['model']}" if gen["model"] else
                                              f" (extractive answers: {why})" if gen["backend"] == "none" else ""))
    from ragls.cli.llm_lines import status_line

    if line := status_line(wire):
        print(line)
    for notice in wire.get("notices", []):
        print(f"note:        {notice}")
    for e in wire["errors"]:  # severity "warning": nothing failed, the user decides (an untrusted ragls.toml)
        label = "warning:" if e.get("severity") == "warning" else "error:"
        print(f"{label:<13}{e['message']}")
    return 0


def all_skipped(index_dir: Path) -> list[dict[str, str]]:
    """Every file the last scan of the index at `index_dir` left out, as rag/status's `skipped` entries
    ({path, reason}, by path), read from its manifest: `ragls status --all` (rag/status lists the first
    `status.SKIPPED_LISTED` and counts the rest). Writes nothing."""
    from ragls.stores.manifest import Manifest

    manifest = Manifest(index_dir / "manifest.sqlite")
    try:
        return [{"path": display_path(path), "reason": reason} for path, reason in manifest.skipped()]
    finally:
        manifest.close()


def _unindexed_folder(args) -> Path | None:
    """The folder of `args.path` when it has no index yet (nothing is created to find out), else None."""
    from ragls.index.paths import configured_index_dir

    folder = Path(args.path).expanduser().resolve()
    if not folder.is_dir():
        return None  # _workspace reports it
    index_dir = configured_index_dir(folder, getattr(args, "index_path", None))
    return None if (index_dir / "manifest.sqlite").exists() else folder


def cmd_prune(args) -> int:
    """List (default) or remove (--remove) the indexes in the cache dir whose folder no longer exists, and with
    --unknown those that record no folder (index/prune.py)."""
    from ragls.index.prune import UNKNOWN_MIN_AGE_S, prune, scan

    entries = scan()
    remove = args.remove and not args.dry_run
    found = prune(remove=remove, unknown=args.unknown)
    if args.json:
        _print_json({"indexes": [{"indexPath": str(e.index_dir), "folder": str(e.folder) if e.folder else None,
                                  "bytes": e.size_bytes, "state": e.state} for e in entries],
                     "removed": [str(e.index_dir) for e in found] if remove else []})
        return 0
    for e in entries:
        print(f"{e.state:8} {e.size_bytes / 1e6:8.1f} MB  {e.index_dir}  ({e.folder or 'folder not recorded'})")
    what = "orphaned or unknown" if args.unknown else "orphaned"
    verb = "removed" if remove else f"to remove (pass --remove{' --unknown' if args.unknown else ''} to delete them)"
    print(f"{len(found)} {what} index{'es' if len(found) != 1 else ''} {verb}: "
          f"{sum(e.size_bytes for e in found) / 1e6:.1f} MB")
    unknown = [e for e in entries if e.state == "unknown"]
    if unknown and not args.unknown:
        print(f"{len(unknown)} index{'es record' if len(unknown) != 1 else ' records'} no folder (made by an older ragls, or "
              "left by a crash before indexing began): `ragls prune --remove --unknown` deletes them too (those "
              f"changed in the last {UNKNOWN_MIN_AGE_S // 60} minutes excepted); a folder still in use is "
              "re-indexed when next opened")
    return 0


def cmd_doctor(args) -> int:
    """Checks: settings, model loadable, index path writable, stores readable, files matched by sources.include,
    generation backend. Human lines "[ok|warn|FAIL] ..." or, with --json, {"ok": bool, "checks": [{"name", "status"
    ("ok" | "warn" | "fail"), "message"}]}. Exit code 1 when a check failed."""
    checks: list[dict[str, str]] = []

    def report(status: str | bool, name: str, what: str) -> None:
        status = ("ok" if status else "fail") if isinstance(status, bool) else status
        checks.append({"name": name, "status": status, "message": what})
        if not args.json:
            print(f"[{'FAIL' if status == 'fail' else status}] {what}")

    def note(text: str) -> None:
        if not args.json:
            print(f"       {text}")
        else:
            checks.append({"name": "note", "status": "ok", "message": text})

    try:
        _doctor_checks(args, report, note)
    finally:
        ok = all(c["status"] != "fail" for c in checks)
        if args.json:
            _print_json({"ok": ok, "checks": checks})
    return 0 if ok else 1


def _doctor_checks(args, report, note) -> None:
    try:  # a mistyped path fails here, before any check could create an index directory for it
        folder = require_folder(args.path or ".").resolve()
    except InvalidParams as exc:
        report(False, "folder", str(exc))
        return
    from ragls.config.trust_filter import load_settings

    try:
        settings, warnings = load_settings(folder)
        report(True, "settings",
               f"settings ({folder / 'ragls.toml'} {'found' if (folder / 'ragls.toml').exists() else 'absent'})")
        from ragls.config.globs import glob_warnings

        for w in [*warnings, *glob_warnings(settings.sources.include, settings.sources.exclude, folder)]:
            note(f"warning: {w}")
    except RaglsError as exc:
        report(False, "settings", f"settings: {exc}")
        return
    from ragls.embedding.embed import Embedder, pinned_model_note

    emb = Embedder(settings.embedding, on_status=note)
    try:
        emb.ensure_loaded()
        report(True, "embedding_model", f"embedding model {emb.model_name} ({emb.source}, {emb.dim}-d)")
    except RaglsError as exc:
        report(False, "embedding_model", str(exc))
        return
    from ragls.index.indexer import FolderIndex, resolve_index_dir

    index_dir = resolve_index_dir(folder, settings)
    # A folder never indexed keeps no index after the checks: opening the stores would create an empty one, which
    # `ragls status` then showed as "0 files, last index never" and `ragls estimate` as "already indexed".
    fresh = not (index_dir / "manifest.sqlite").is_file()
    created = [d for d in (index_dir, *index_dir.parents) if not d.exists()]
    try:
        index_dir.mkdir(parents=True, exist_ok=True)
        probe = index_dir / ".write-probe"
        probe.write_text("ok")
        probe.unlink()
        report(True, "index_path", f"index path writable: {index_dir}")
    except OSError as exc:
        report(False, "index_path", f"index path {index_dir} not writable: {exc}")
    finally:
        for d in created:  # deepest first; only the empty directories this check made
            with contextlib.suppress(OSError):
                d.rmdir()
    try:
        files = 0
        if fresh:
            report(True, "stores", f"no index yet: `ragls index {folder}` builds it (editors and `ragls ask` do "
                                   "too)")
        else:
            idx = FolderIndex(folder, settings, emb, index_dir=index_dir, read_only=True)
            try:
                built_with = idx.manifest.get_meta("vectors_model")
                if built_with and built_with != settings.embedding.model and \
                        "model" not in settings.embedding.model_fields_set:
                    report("note", "embedding_model_pinned", pinned_model_note(built_with, settings.embedding.model))
                files, chunks = idx.manifest.file_count(), idx.manifest.chunk_count()
                report(True, "stores", f"stores readable: {files} files, {chunks} sections, {idx.bm25.count()} BM25 "
                                       f"docs, {idx.vectors.count()} vectors")
            finally:
                idx.close()
        from ragls.workspace.estimate import estimate_first_index

        est = estimate_first_index(folder)  # the figures `ragls estimate` prints: one estimate, not two
        if not est.files:
            held = f"; the index still holds {files} files" if files else ""
            report(False, "sources", f"0 files match sources.include {settings.sources.include} in {folder}{held} "
                                     f"— check the globs (and sources.exclude, .gitignore)")
        else:
            report("warn" if est.long else "ok", "sources",
                   f"{est.files} files to index, ~{est.chunks} sections, ~{est.seconds / 60:.1f} min to embed on a "
                   f"quiet 2-core machine, ~{est.wall_seconds / 60:.1f} min at the current load"
                   + (" — consider narrowing sources.include" if est.long else ""))
    except Exception as exc:  # noqa: BLE001 - doctor reports every failure
        report(False, "stores", f"stores: {exc}")
    report(True, "profile", f"profile: {settings.profile}" + (" (embedded store, no reranker, no graph, no answer cache, one "
                                                  "text per model call)" if settings.profile == "low-ram" else ""))
    backend = settings.generation.resolved_backend()
    report(True, "generation", f"generation backend: {backend}" + (
        " (extractive answers; set OPENAI_API_KEY or ANTHROPIC_API_KEY or [generation] in ragls.toml for an LLM)"
        if backend == "none" else ""))

    if backend == "external":
        from ragls.llm.local import check_ready

        try:
            check_ready(settings.generation.base_url or "")
            report(True, "external", f"external backend answers at {settings.generation.base_url}")
        except RaglsError as exc:
            report(False, "external", str(exc))
    from ragls.llm.local import describe_discovery, discover

    note("local LLM runtimes on this machine:")
    for line in describe_discovery(discover()).splitlines():
        note(line)


def cmd_estimate(args) -> int:
    """Estimate the first index of a folder (files, chunks, minutes) without indexing or loading a model."""
    from ragls.workspace.estimate import embed_rate_text, estimate_first_index, load_factor

    try:
        overrides = json.loads(args.settings) if args.settings else None
    except ValueError as exc:
        raise InvalidParams(f"--settings is not valid JSON: {exc}") from None
    if overrides is not None and not isinstance(overrides, dict):
        raise InvalidParams("--settings must be a JSON object")
    est = estimate_first_index(require_folder(args.path or "."), overrides)
    if args.json:
        print(json.dumps(est.to_json()))
        return 0
    state = "already indexed; only changes will be indexed" if est.indexed else "not indexed yet"
    print(f"{est.folder}: {est.files} files, ~{est.chunks} sections ({state})")
    print(f"  ~{est.seconds / 60:.1f} min to embed on a quiet 2-core machine ({embed_rate_text(est.max_length)})")
    print(f"  ~{est.wall_seconds / 60:.1f} min wall for a first index now, with start-up"
          + (f", at the current load (load average {est.load_average:.1f} on {est.cores} cores: "
             f"{load_factor(est.load_average, est.cores):.1f}x the quiet time; longer if the load rises)"
             if load_factor(est.load_average, est.cores) > 1 else " (the machine is quiet now)"))
    return 0


def cmd_models(args) -> int:
    """Probe the known local LLM runtimes on loopback; print which run, their models and ragls.toml settings."""
    from ragls.llm.local import KNOWN_RUNTIMES, describe_discovery, discover

    found = discover(timeout=args.timeout)
    if args.json:
        _print_json([{"runtime": f.runtime.key, "name": f.runtime.name, "baseUrl": f.base_url,
                      "backend": f.runtime.backend, "models": f.models} for f in found])
        return 0
    print(f"Local LLM runtimes ({len(found)} of {len(KNOWN_RUNTIMES)} running):")
    print(describe_discovery(found))
    return 0


def cmd_eval(args) -> int:
    """Retrieval metrics and abstention of a folder's index against a gold file (evaluation/evaluate.py)."""
    from ragls.evaluation import evaluate

    if not Path(args.gold).is_file():  # bad input (exit 2), as a missing folder is
        raise InvalidParams(f"no such gold file: {args.gold} (a JSON Lines file of questions: docs/evaluation.md)")
    questions = evaluate.load_questions(args.gold)
    if args.k < 1:
        raise InvalidParams("--k must be at least 1")
    sides = [evaluate.parse_setting_side(s) for s in args.compare] if args.compare else [("current settings", {})]
    summaries = []
    for label, layer in sides:
        args.overrides = layer
        # with the sentence pass (unless the layer turns it off): the figures are a server's once its index is
        # complete, whose focus reads the sentences' stored vectors (`Embedder.known_vectors`)
        with _indexed_workspace(args) as ws:
            _check_complete(ws)
            if len(sides) > 1:
                print(f"ragls: evaluating {label}", file=sys.stderr)
            results = evaluate.run(questions, lambda text, depth: ws.retrieve(text, depth), ws.abstains, args.k,
                                   answer=lambda text: ws.ask(text).text)
            summaries.append((label, evaluate.summarize(results, args.k), results))
    if args.json:
        if len(summaries) == 1:
            _print_json(evaluate.to_json(summaries[0][1], summaries[0][2]))
        else:
            _print_json({"compare": [{"label": label, **evaluate.to_json(s, r)} for label, s, r in summaries]})
        return 0
    print(f"{len(questions)} questions from {args.gold}, folder {Path(args.path).resolve()}, k={args.k}")
    if len(summaries) == 1:
        print(evaluate.format_report(summaries[0][1]))
    else:
        (la, a, _), (lb, b, _) = summaries
        print(evaluate.format_compare(la, a, lb, b))
    return 0


def _check_complete(ws) -> None:
    """Raise RequestFailed when another process writes one of `ws`'s indexes and it is not complete (no chunk yet,
    chunks without a first vector, or windows still to embed, as that process last recorded them in the manifest;
    no record: every chunk counts as pending): `ragls eval` only reads it (`FolderIndex.writer` False) and would
    report the figures of a half-built index as the product's (a second eval of the same folder, started while the
    first embedded, measured file Hit@1 24 where the whole index gives 26)."""
    for idx in ws.indexes:
        if idx.writer:
            continue
        chunks = idx.manifest.chunk_count()
        recorded = None if idx.vectors_loaded else idx.recorded_vector_progress()  # as the writer last recorded
        pending, windows = recorded or (idx.pending_count(), idx.pending_windows_count() or 0)
        if not chunks or pending or windows:
            state = ("has indexed nothing yet" if not chunks else
                     f"is still embedding it ({pending} of {chunks} sections without a vector" +
                     (f", {windows} with windows to embed)" if windows else ")"))
            raise RequestFailed(f"{idx.writer_holder()} writes the index of {display_path(str(idx.folder))} and "
                                f"{state}: the figures would be those of a partial index; run ragls eval again when "
                                "it has finished")


def cmd_graph(args) -> int:
    """Print an entity's neighbourhood in the folder's knowledge graph (graph RAG debugging aid)."""
    ws = _workspace(args, Progress())
    try:
        graphs = [g for g in ws.graphs if g is not None]
        if not graphs:
            raise InvalidParams("graph RAG is off: set retrieval.extractor_model (rag_extractor_model) first")
        ws.index()
        store = graphs[0].store
        hops = ws.settings.retrieval.graph_hops if args.hops is None else args.hops
        entity = store.entity(args.entity)
        if entity is None:
            import difflib

            names = [store.graph.nodes[k]["name"] for k in store.graph.nodes]
            close = difflib.get_close_matches(args.entity, names, n=5, cutoff=0.5)
            raise InvalidParams(f"no entity named {args.entity!r}" + (f"; similar: {', '.join(close)}" if close else "")
                                + f" ({len(names)} entities in the graph)")
        ring = store.neighbourhood(args.entity, hops)
        chunks = ws.indexes[0].manifest.get_chunks(list(entity["chunks"]))
        if args.json:
            _print_json({"entity": {"name": entity["name"], "type": entity["type"], "aliases": entity["aliases"]},
                         "chunks": sorted(_line_of(c) for c in chunks.values()),
                         "neighbours": [{"hops": d, "from": store.graph.nodes[u]["name"],
                                         "name": store.graph.nodes[v]["name"], "relationship": t, "weight": w}
                                        for d, u, v, t, w in ring]})
            return 0
        aliases = f"  (also: {', '.join(entity['aliases'])})" if entity["aliases"] else ""
        print(one_line(f"{entity['name']} [{entity['type']}]{aliases}"))
        for cid, desc in entity["chunks"].items():
            where = _line_of(chunks[cid]) if cid in chunks else "(chunk no longer indexed)"
            print("  " + one_line(f"mentioned in {where}" + (f": {desc}" if desc else "")))
        for d, u, v, t, w in ring:
            print(f"  {'  ' * (d - 1)}{d} hop{'s' if d > 1 else ''}: " + one_line(
                f"{store.graph.nodes[u]['name']} -[{t} {w:g}]- {store.graph.nodes[v]['name']} "
                f"[{store.graph.nodes[v]['type']}]"))
        if not ring:
            print(f"  no neighbours within {hops} hop{'s' if hops != 1 else ''}")
    finally:
        ws.close()
    return 0


def cmd_commit_msg(args) -> int:
    from ragls.commit.message import generate_commit_message
    from ragls.config.setting_names import name_setting_files
    from ragls.config.trust_filter import load_folder_settings
    from ragls.llm.chat import make_chat_model

    folder = Path(args.path or ".").resolve()
    settings, _, layer = load_folder_settings(folder)
    try:
        result = generate_commit_message(folder, settings=settings, staged=not args.all, style=args.style,
                                         chat=make_chat_model(settings.generation))
    except RequestFailed as exc:  # the server's wording names the protocol field; the CLI flag is --all
        message = str(exc).replace("pass staged:false", "use --all for the working-tree changes")
        raise RequestFailed(name_setting_files(message, layer.setting_files)) from None  # the file that set it
    if args.json:
        from ragls.lsp.wire import to_wire_commit

        _print_json(to_wire_commit(result))
    else:
        print(terminal_text(result.message))
    return 0


def _line_of(chunk) -> str:
    return f"{display_path(chunk.path)}:{chunk.span.start_line + 1}-{chunk.span.end_line + 1}"
