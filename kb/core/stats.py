"""Counts per work and per witness, and every repair, recovery and variant."""
from __future__ import annotations

from collections import Counter
from typing import Any


def corpus_stats(corpus) -> dict[str, Any]:
    records = corpus.records
    per_work: dict[str, Counter] = {}
    per_witness: Counter = Counter()
    for rec in records:
        per_work.setdefault(rec.work, Counter())[rec.level] += 1
        for w in rec.witnesses:
            per_witness[w.sigil] += 1
    return {
        "records": len(records),
        "per_work": {w: dict(c) for w, c in per_work.items()},
        "per_witness": dict(sorted(per_witness.items())),
        "repairs": [r for a in corpus.adapted for r in a.repairs],
        "recoveries": [{"id": r.id, **n} for r in records for n in r.notes],
        "variants": [{"id": r.id, **v} for r in records for v in r.variants],
        "footnotes": [{"id": r.id, "n": f["n"]} for r in records for f in r.footnotes],
        "concordance": _concordance(records),
    }


def _concordance(records) -> dict[str, dict[str, int]]:
    """Per work with a concordance: how many of its records each change class holds."""
    out: dict[str, Counter] = {}
    for rec in records:
        if rec.concordance:
            out.setdefault(rec.work, Counter())[rec.concordance[0]["change"]] += 1
    return {w: dict(sorted(c.items())) for w, c in out.items()}


def format_stats(stats: dict[str, Any]) -> str:
    out = [f"records: {stats['records']}"]
    for work, levels in stats["per_work"].items():
        out.append(f"  {work}: {sum(levels.values())} ({', '.join(f'{k} {v}' for k, v in levels.items())})")
    out.append("records per witness: " + ", ".join(f"{k} {v}" for k, v in stats["per_witness"].items()))
    for work, changes in stats.get("concordance", {}).items():
        mapped = sum(n for k, n in changes.items() if k != "unmapped")
        out.append(f"  {work} against the 2017 Laws: {mapped} of {sum(changes.values())} mapped ("
                   + ", ".join(f"{k} {v}" for k, v in changes.items()) + ")")
    out.append(f"repairs ({len(stats['repairs'])}):")
    out += [f"  {r['source']}:{r['lines'][0]}-{r['lines'][1]} {r['what']}: {r['detail']}" for r in stats["repairs"]]
    out.append(f"recoveries and notes ({len(stats['recoveries'])}):")
    out += [f"  {r['id']}: [{r['kind']}] {r['what']} (from {r['from']})" for r in stats["recoveries"]]
    out.append(f"variants ({len(stats['variants'])}):")
    out += [f"  {v['id']}: " + " | ".join(f"{k}: {t or '∅'}" for k, t in v["readings"].items())
            + f"   ({v['context']})" for v in stats["variants"]]
    out.append(f"footnotes ({len(stats['footnotes'])}): " + ", ".join(f"{f['id']} [{f['n']}]" for f in stats["footnotes"]))
    return "\n".join(out)
