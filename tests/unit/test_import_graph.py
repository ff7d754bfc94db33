"""The import graph of server/ragls has no circles, counting function-local and TYPE_CHECKING imports (issue 26):
import-linter's layers allow two modules of one layer to import each other, this test does not. Static (ast), well
under a second."""

from __future__ import annotations

import ast
from pathlib import Path

import ragls

ROOT = Path(ragls.__file__).parent


def module_graph() -> dict[str, set[str]]:
    """{module: the ragls modules it imports anywhere in its body}; `from pkg import name` counts as an import of
    `pkg.name` when that is a module, else of `pkg`."""
    mods = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            for name in names:
                target = resolve(name) if name.split(".")[0] == "ragls" else None
                if target and target != mod:
                    graph[mod].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_circles():
    graph = module_graph()
    assert graph.get("ragls.workspace.rag_workspace")  # the graph is real
    assert circles(graph) == []


def test_circle_finder_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_few_top_level_entries():
    """Packages by concern: the top of server/ragls holds packages, at most 3 plain modules besides __init__ and
    __main__ (issue 26 item 5)."""
    modules = [p.name for p in ROOT.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
    packages = [p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()]
    assert len(modules) <= 3, modules
    assert len(modules) + len(packages) <= 17, sorted(modules + packages)
