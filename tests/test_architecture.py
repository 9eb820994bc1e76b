"""The stages' import graph: no cycles, and data flows one way (a stage never imports a later one).

Imports inside functions count: a lazy import is still a dependency.
"""
from __future__ import annotations

import ast
from pathlib import Path

KB = Path(__file__).resolve().parent.parent / "kb"

# Layers, earliest first. A module may import modules of its own layer or an earlier one.
LAYERS: list[tuple[str, ...]] = [
    ("kb.errors", "kb.curated", "kb.works", "kb.records"),
    ("kb.sources", "kb.normalise", "kb.inputs"),
    ("kb.adapters",),
    ("kb.segment",),
    ("kb.collate",),
    ("kb.xref", "kb.xref_mahjong", "kb.link", "kb.lint", "kb.subjects", "kb.twins"),
    ("kb.pipeline", "kb.stats", "kb.present"),
    ("kb.search", "kb.rules"),
    ("kb.site",),
    ("kb.integrity", "kb.invariants", "kb.build"),
    ("kb.check", "kb.serve", "kb.cli"),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(KB.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every kb module a file imports, at any depth (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("kb")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            if not base.startswith("kb"):
                continue
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if _is_module(candidate) else base)
    return {m for m in found if m != me}


def _is_module(name: str) -> bool:
    rel = Path(*name.split("."))
    return (KB.parent / rel).with_suffix(".py").is_file() or (KB.parent / rel / "__init__.py").is_file()


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) for p in sorted(KB.rglob("*.py")) if "sources" not in p.parts}


def layer_of(module: str) -> int:
    best = -1, -1
    for i, layer in enumerate(LAYERS):
        for prefix in layer:
            if module == prefix or module.startswith(prefix + "."):
                best = max(best, (len(prefix), i))
    assert best[1] >= 0, f"{module} belongs to no layer: add it to LAYERS in tests/test_architecture.py"
    return best[1]


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in g:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in g:
        if v not in index:
            visit(v)
    return out


def test_the_graph_is_read():
    g = graph()
    assert "kb.pipeline" in g and "kb.works" in g["kb.pipeline"]
    assert "kb.records" in g["kb.link"]


def test_no_import_cycles():
    assert cycles(graph()) == []


def test_no_stage_imports_a_later_stage():
    wrong = []
    g = graph()
    for module, deps in g.items():
        for dep in deps:
            if dep in g and layer_of(dep) > layer_of(module):
                wrong.append(f"{module} -> {dep}")
    assert wrong == []


def test_the_checker_finds_a_planted_cycle():
    g = {"kb.a": {"kb.b"}, "kb.b": {"kb.c"}, "kb.c": {"kb.a"}, "kb.d": {"kb.a"}}
    assert cycles(g) == [["kb.a", "kb.b", "kb.c"]]


def test_no_test_turns_a_broken_install_into_a_skip():
    """A missing package or browser must fail the run, not skip the tests that need it."""
    here = Path(__file__).resolve()
    offenders = []
    for path in sorted(here.parent.rglob("test_*.py")):
        if path == here:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if any(word in line for word in ("importorskip", "pytest.skip", "mark.skipif", "mark.skip(")):
                offenders.append(f"{path.name}:{n}")
    assert offenders == []
