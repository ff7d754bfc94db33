"""A memory-lean copy of an ONNX embedding model: look up rows of weight-only-quantised tables before dequantising.

Weight-only int8 exports (such as the offline all-MiniLM-L6-v2) store each embedding table as int8 plus one
scale per row and dequantise the whole table, `Gather(Mul(Cast(q), scale), ids)`. ONNX Runtime's constant
folding (`ORT_ENABLE_ALL`, the level fastembed uses) turns that into a float32 table: 47 MB for the 30522 x 384
word embeddings, plus transient copies while the session is created. The equivalent graph
`Mul(Cast(Gather(q, ids)), Gather(scale, ids))` computes the very same float32 products (each output element is
still `float(q[id, j]) * scale[id]`, one IEEE multiplication), so the vectors are bit-identical, while the table
stays int8 in memory. Measured on the offline model: session peak -90 MB, resident -34 MB (bench/history/early-speed-and-operations.md, "Memory levers").

The rewritten model is written once into the cache dir, named by the SHA-256 of the source file and
`REWRITE_VERSION`. Models without the pattern, or with external data, are used as they are. Needs the `onnx`
package; without it, or on any error, the source model is used (the rewrite only saves memory).
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from ragls.core.atomic import atomic_target

log = logging.getLogger(__name__)

REWRITE_VERSION = 1


_SHA256_SEEN: dict[tuple[str, int, int], str] = {}  # (path, size, mtime_ns) -> digest, for this process


def _file_sha256(path: Path) -> str:
    """Hex SHA-256 of the file, computed once per process for its path, size and mtime (a 22 MB model read and
    hashed is ~30 ms, on every embedder's load)."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _SHA256_SEEN:
        _SHA256_SEEN[key] = _file_sha256_read(path)
    return _SHA256_SEEN[key]


def _file_sha256_read(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def gather_before_dequantise(model) -> int:
    """Rewrite, in place, every `Gather(axis 0)` of `Mul(Cast(Q), S)` where Q is an initializer (any integer
    type) and S an initializer of shape (rows, 1, ...) into `Mul(Cast(Gather(Q, ids)), Gather(S, ids))`.
    `model` is an `onnx.ModelProto`. Only rewrites when the Cast and the Mul feed nothing else. Returns the number
    of rewritten lookups."""
    from onnx import helper

    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    producer = {out: node for node in graph.node for out in node.output}
    consumers: dict[str, int] = {}
    for node in graph.node:
        for name in node.input:
            consumers[name] = consumers.get(name, 0) + 1
    for out in graph.output:
        consumers[out.name] = consumers.get(out.name, 0) + 1
    replaced: dict[int, list] = {}
    dropped: set[int] = set()
    for gather in graph.node:
        if gather.op_type != "Gather" or any(a.name == "axis" and a.i != 0 for a in gather.attribute):
            continue
        mul = producer.get(gather.input[0])
        if mul is None or mul.op_type != "Mul" or consumers.get(mul.output[0]) != 1:
            continue
        cast = producer.get(mul.input[0])
        scale = inits.get(mul.input[1])
        if cast is None or cast.op_type != "Cast" or scale is None or consumers.get(cast.output[0]) != 1:
            continue
        table = inits.get(cast.input[0])
        if table is None or len(scale.dims) != len(table.dims) or scale.dims[0] != table.dims[0] \
                or any(d != 1 for d in scale.dims[1:]):
            continue
        to = next(a.i for a in cast.attribute if a.name == "to")
        ids, out = gather.input[1], gather.output[0]
        replaced[id(gather)] = [
            helper.make_node("Gather", [table.name, ids], [out + "__ragls_q"], axis=0),
            helper.make_node("Cast", [out + "__ragls_q"], [out + "__ragls_f"], to=to),
            helper.make_node("Gather", [scale.name, ids], [out + "__ragls_s"], axis=0),
            helper.make_node("Mul", [out + "__ragls_f", out + "__ragls_s"], [out]),
        ]
        dropped |= {id(cast), id(mul)}
    if not replaced:
        return 0
    nodes = []
    for node in graph.node:
        if id(node) in replaced:
            nodes.extend(replaced[id(node)])
        elif id(node) not in dropped:
            nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    return len(replaced)


def lean_model(model_file: Path, cache_dir: Path) -> Path:
    """Path of the memory-lean copy of `model_file` (created on first use in `cache_dir`), or `model_file`
    itself when nothing can be rewritten or anything fails. Never raises."""
    try:
        key = f"{_file_sha256(model_file)[:32]}-v{REWRITE_VERSION}"
        target = cache_dir / f"{key}.onnx"
        unchanged = cache_dir / f"{key}.unchanged"
        if target.is_file():
            return target
        if unchanged.is_file():
            return model_file
        import onnx

        model = onnx.load(str(model_file), load_external_data=False)
        external = any(t.data_location == onnx.TensorProto.EXTERNAL for t in model.graph.initializer)
        count = 0 if external else gather_before_dequantise(model)
        cache_dir.mkdir(parents=True, exist_ok=True)
        if count == 0:
            unchanged.touch()
            return model_file

        with atomic_target(target) as tmp:  # a concurrent process never loads a half-written file; ENOSPC keeps none
            onnx.save(model, str(tmp))
        del model
        log.debug("embedding model: %d table lookups moved before dequantisation (%s)", count, target)
        return target
    except Exception as exc:  # noqa: BLE001 - an optimisation only: fall back to the source model
        log.warning("cannot prepare a memory-lean copy of %s: %s", model_file, exc)
        return model_file
