"""kb/rules: no import cycles among its modules, and no import of the site, the server or the CLI."""
from __future__ import annotations

import ast
from pathlib import Path

RULES = Path(__file__).resolve().parent.parent / "kb" / "rules"


def _imports() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in RULES.rglob("*.py"):
        name = ".".join(path.relative_to(RULES.parent.parent).with_suffix("").parts).removesuffix(".__init__")
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                deps.add(node.module)
                deps.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
        graph[name] = {d for d in deps if d.startswith("kb.")}
    return graph


def test_no_cycles_and_no_upward_imports():
    graph = _imports()
    modules = set(graph)
    edges = {m: {d for d in deps if d in modules and d != m} for m, deps in graph.items()}
    for m, deps in graph.items():
        assert not any(d.startswith(("kb.site", "kb.app.serve", "kb.app.cli", "kb.app.build")) for d in deps), m
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for d in edges[m]:
            assert state.get(d) != 1, " → ".join(path + [m, d])
            if d not in state:
                visit(d, path + [m])
        state[m] = 2

    for m in sorted(modules):
        if m not in state:
            visit(m, [])
    assert len(modules) >= 20
