"""`kb check`: the build's checksums, references by status, and the built site's links and search index.

Exits non-zero on a damaged build (a file whose size or sha256 differs from what the build
recorded, see kb/integrity.py), any unresolved reference, any broken internal link or
anchor in either edition, or a built search index that is not segmented.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from kb import build as b
from kb.normalise import to_hant
from kb.records import read_jsonl

SEGMENTED_TERMS = ("明手", "藏牌", "罚张", "定约人")


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
        problems += _search_index_problems(site)
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


def _search_index_problems(site: Path) -> list[str]:
    problems = []
    for edition in ("hans", "hant"):
        path = site / edition / "search" / "search_index.json"
        try:
            docs = json.loads(path.read_text(encoding="utf-8"))["docs"]
        except (OSError, ValueError, KeyError):
            problems.append(f"{path}: missing or unreadable")
            continue
        text = "".join(d.get("text", "") + d.get("title", "") for d in docs)
        for term in SEGMENTED_TERMS:
            if edition == "hant":
                term = to_hant(term)
            if f"\u200b{term}\u200b" not in text:
                problems.append(f"{path}: built search index not segmented for '{term}'")
    return problems
