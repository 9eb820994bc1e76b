"""`kb check`: the build's checksums, references by status, and the built site's links and search index.

Exits non-zero on a damaged build (a file whose size or sha256 differs from what the build
recorded, see kb/core/integrity.py), any unresolved reference, any broken internal link or
anchor in either edition, or a static search index that is incomplete or unsegmented
(kb/site/static_search.py).
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from kb.app import build as b
from kb.core.records import read_jsonl


def run_check(build_dir: Path | None, *, as_json: bool = False) -> int:
    out = b.ensure_built(build_dir)
    records = list(read_jsonl(out / "records.jsonl"))
    counts: Counter = Counter()
    problems: list[str] = []
    for rec in records:
        for ref in rec.refs:
            counts[(rec.work, ref["status"])] += 1
            if ref["status"] == "unresolved":
                problems.append(f"unresolved reference '{ref['text']}' in {rec.id} "
                                f"(at {ref['span'][0]}–{ref['span'][1]} of its text)")
    if not problems:
        out = b.ensure_built(build_dir, need_site=True)
        from kb.site.linkcheck import check_site
        site = b.site_dir(out).resolve()
        problems += [f"broken link in the site: {line}" for line in check_site(site)]
        from kb.site.static_search import index_problems
        problems += index_problems(site)
    report = {f"{work}:{status}": n for (work, status), n in sorted(counts.items())}
    if as_json:
        print(json.dumps({"references": report, "problems": problems}, ensure_ascii=False, indent=1))
    else:
        works = sorted({w for w, _ in counts})
        for work in works:
            row = ", ".join(f"{s} {counts[(work, s)]}" for s in ("resolved", "external", "lost", "unresolved"))
            print(f"{work}: {row}")
        print(f"site: {'ok' if not problems else 'not checked' if counts.get('unresolved') else 'see below'}")
        print(f"build: {len(b.meta(out).get('files') or {})} files match their recorded sha256")
    for line in problems:
        print(f"kb check: {line}", file=sys.stderr)
    return 1 if problems else 0


def run_lint_check(build_dir: Path | None) -> int:
    """`kb check --lint`: every unexplained finding of the corpus lint, one per line."""
    from kb.ingest.lint import run_lint
    out = b.ensure_built(build_dir)
    found = run_lint(read_jsonl(out / "records.jsonl"))
    for finding in found:
        print(finding.line())
    print(f"lint: {len(found)} unexplained finding{'' if len(found) == 1 else 's'}", file=sys.stderr)
    return 1 if found else 0
