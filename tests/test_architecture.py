"""The stages' import graph: no cycles, and data flows one way (a stage never imports a later one).

Imports inside functions count: a lazy import is still a dependency.
"""
from __future__ import annotations

import ast
from pathlib import Path

KB = Path(__file__).resolve().parent.parent / "kb"

# The floors, lowest first: a module may import modules of its own floor or a lower one.
# kb/'s top level is exactly these packages (test_the_top_level_is_the_floors).
FLOORS: list[tuple[str, ...]] = [
    ("kb.core",),                 # records, errors, works, curated data, integrity, inputs, present, stats
    ("kb.ingest",),               # sources -> adapters -> normalise -> segment -> collate -> settle -> link -> twins -> subjects
    ("kb.search", "kb.rules"),    # the outputs that read the records file
    ("kb.site",),                 # the site, built from the records file, the index and the rules
    ("kb.app",),                  # build, check, serve, the kb command
]
LAYERS = FLOORS

# Within a floor, the order the ingest stages run in (kb.ingest.pipeline.STAGES names it; the
# graph must agree): a stage imports only those before it.
INGEST_ORDER = ("kb.ingest.sources", "kb.ingest.normalise", "kb.ingest.adapters", "kb.ingest.segment",
                "kb.ingest.collate", "kb.ingest.settle", "kb.ingest.invariants",
                "kb.ingest.fingerprints", "kb.ingest.xref", "kb.ingest.link",
                "kb.ingest.twins", "kb.ingest.subjects", "kb.ingest.concordance", "kb.ingest.lint",
                "kb.ingest.pipeline")

# The CLI modules: entry points that nothing but the kb command (kb.app.cli) imports.
CLI_MODULES = ("kb.search.cli", "kb.rules.cli", "kb.rules.bridge.cli", "kb.rules.mahjong.cli")


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
    assert best[1] >= 0, f"{module} belongs to no floor: add it to FLOORS in tests/test_architecture.py"
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
    assert "kb.ingest.pipeline" in g and "kb.core.works" in g["kb.ingest.pipeline"]
    assert "kb.core.records" in g["kb.ingest.link"]


def test_no_import_cycles():
    assert cycles(graph()) == []


def test_no_floor_imports_a_higher_floor():
    assert floor_violations(graph()) == []


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


def floor_violations(g: dict[str, set[str]]) -> list[str]:
    return sorted(f"{m} -> {d}" for m, deps in g.items() for d in deps if d in g and layer_of(d) > layer_of(m))


def ingest_violations(g: dict[str, set[str]]) -> list[str]:
    def stage(m: str) -> int:
        for i, s in enumerate(INGEST_ORDER):
            if m == s or m.startswith(s + "."):
                return i
        raise AssertionError(f"{m}: not an ingest stage of INGEST_ORDER")
    return sorted(f"{m} -> {d}" for m, deps in g.items() if m.startswith("kb.ingest.")
                  for d in deps if d.startswith("kb.ingest.") and stage(d) > stage(m))


def cli_violations(g: dict[str, set[str]]) -> list[str]:
    return sorted(f"{m} -> {d}" for m, deps in g.items() for d in deps
                  if any(d == c for c in CLI_MODULES) and not (m == "kb.app.cli" or m.startswith(d.rpartition(".")[0] + ".cli")))


def test_the_top_level_is_the_floors():
    """kb/ holds the floor packages, the sources and the curated data; no loose module."""
    names = {p.name for p in KB.iterdir() if not p.name.startswith((".", "__"))}
    assert names == {"core", "ingest", "search", "rules", "site", "app", "sources", "data"}


def test_every_module_named_here_exists():
    g = graph()
    named = [m for floor in FLOORS for m in floor] + list(INGEST_ORDER) + list(CLI_MODULES)
    assert [m for m in named if not any(x == m or x.startswith(m + ".") for x in g)] == []


def test_ingest_stages_import_only_earlier_stages():
    assert ingest_violations(graph()) == []


def test_no_module_imports_a_cli_module():
    """A CLI module is an entry point: the server and the engine take nothing from it."""
    assert cli_violations(graph()) == []


def test_the_checks_catch_planted_violations():
    """Each rule above fails on a graph that breaks it (so none of them passes vacuously)."""
    planted = {"kb.ingest.invariants": {"kb.rules.mahjong.hand"}, "kb.rules.mahjong.hand": set(),
               "kb.app.serve": {"kb.search.cli"}, "kb.search.cli": set(),
               "kb.ingest.collate": {"kb.ingest.subjects"}, "kb.ingest.subjects": set()}
    assert floor_violations(planted) == ["kb.ingest.invariants -> kb.rules.mahjong.hand"]
    assert cli_violations(planted) == ["kb.app.serve -> kb.search.cli"]
    assert ingest_violations(planted) == ["kb.ingest.collate -> kb.ingest.subjects"]
