"""Learn the ranking's weights (kb/data/search/ranking.toml) on the tuning sets.

    .venv/bin/python bench/learn_ranking.py [--records build/records.jsonl] [--rounds 3]
        [--lam 0.002] [--from hand|value] [--write]

Coordinate ascent, as RankLib's for a linear model: one weight at a time, each tried at a few
multiples of its current value (and at its range's ends) while the others stay, the best kept
when it raises the objective by more than ``--min-gain``; rounds until none moves. The objective
is the MRR@10 of every tuning question (bench/queries.tsv and bench/tuning*.tsv, pooled; a clause
and its twin one unit, as search_bench.py counts them) minus a regulariser, ``lam`` times the sum
over the weights of (log(1 + value) - log(1 + hand))²: a weight leaves its hand-set value only for
a gain the tuning sets show. The held-out sets (bench/heldout*.tsv) are never looked at while
learning; at the end they are scored with the starting and the learned weights, and both tables
are printed. ``--write`` puts the learned weights into ranking.toml (commit it only if the
held-out sets gain: CONTRIBUTING.md, "The benchmarks"). The run is deterministic: the same
records and sets give the same weights.
"""
from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import search_bench as sb  # noqa: E402

from kb.core import works  # noqa: E402
from kb.search.engine import SearchEngine  # noqa: E402
from kb.search.index import build_index, open_index, read_records  # noqa: E402
from kb.search.rank import Ranker  # noqa: E402
from kb.search.ranking import Spec, Weights, read_specs, write_values  # noqa: E402

STEPS = (0.5, 0.75, 0.9, 1.1, 1.33, 2.0)


def objective_of(engine: SearchEngine, sets: list[list[sb.Judged]], ids: set[str]) -> Callable[[Weights], float]:
    """MRR@10 over every tuning question with ``weights`` (the engine's parser and its caches of
    parsed questions are kept: they do not depend on the weights; the ranker is made anew)."""
    questions = [j for judged in sets for j in judged]
    family = [works.family(d["work"]) for d in engine.docs]

    def run(weights: Weights) -> float:
        engine.ranker = Ranker(engine.docs, engine.ranker.lex, engine.postings, family=family, twin=engine.twin, weights=weights)

        def ours(q: str) -> list[str]:
            out = []
            for r in engine.search(q, limit=10):
                out += [r["id"]] + [t["id"] for t in r.get("twins", [])]
            return out
        per_kind, _ = sb.evaluate(ours, questions, ids)
        mrr = [m[0] for kind in per_kind.values() for m in kind]
        return sum(mrr) / len(mrr)
    return run


def penalty(weights: Weights, specs: list[Spec], lam: float) -> float:
    hand = {s.name: s.hand for s in specs}
    return lam * sum((math.log1p(v) - math.log1p(hand[n])) ** 2 for n, v in weights.items())


def candidates(spec: Spec, value: float) -> list[float]:
    out = {min(spec.high, max(spec.low, value * k)) for k in STEPS}
    if value == 0.0:
        out |= {spec.low + (spec.high - spec.low) * k for k in (0.05, 0.1, 0.25)}
    out |= {spec.low, spec.high}
    out.discard(value)
    return sorted(out)


def ascend(start: Weights, specs: list[Spec], score: Callable[[Weights], float], lam: float,
           rounds: int, min_gain: float, log: Callable[[str], None]) -> tuple[Weights, float]:
    """Coordinate ascent from ``start``; the best weights and their objective."""
    best = start
    best_obj = score(best) - penalty(best, specs, lam)
    log(f"start: objective {best_obj:.4f}")
    for r in range(1, rounds + 1):
        moved = False
        for spec in specs:
            current = getattr(best, spec.name)
            for v in candidates(spec, current):
                trial = best.replace(**{spec.name: v})
                obj = score(trial) - penalty(trial, specs, lam)
                if obj > best_obj + min_gain:
                    best, best_obj, moved = trial, obj, True
            if getattr(best, spec.name) != current:
                log(f"round {r}: {spec.name} {current:g} -> {getattr(best, spec.name):g} (objective {best_obj:.4f})")
        if not moved:
            break
    return best, best_obj


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--records", type=Path, default=ROOT / "build" / "records.jsonl")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--lam", type=float, default=0.002, help="regulariser's weight")
    ap.add_argument("--min-gain", type=float, default=0.0005, help="least gain of the objective that moves a weight")
    ap.add_argument("--from", dest="start", choices=("hand", "value"), default="hand",
                    help="start from the hand-set weights (default) or from those in use")
    ap.add_argument("--write", action="store_true", help="write the learned weights into ranking.toml")
    args = ap.parse_args(argv)
    if not args.records.is_file():
        print(f"learn_ranking: no records at {args.records} (run `kb build`)", file=sys.stderr)
        return 2
    records = list(read_records(args.records))
    sb.set_units(records)
    ids = {r["id"] for r in records}
    tuning = [sb.load_judgements(p) for p in sb.tuning_files()]
    heldout = [(p.name, sb.load_judgements(p)) for p in sb.question_files("heldout")]
    specs = read_specs()
    start = Weights(**{s.name: (s.hand if args.start == "hand" else s.value) for s in specs})
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        build_index(args.records, Path(tmp) / "index")
        engine = SearchEngine(open_index(args.records, Path(tmp) / "index"))
        score = objective_of(engine, tuning, ids)
        learned, obj = ascend(start, specs, score, args.lam, args.rounds, args.min_gain,
                              lambda s: print(s, flush=True))
        print(f"\nlearned in {time.perf_counter() - t0:.0f} s; tuning MRR {score(start):.4f} -> {score(learned):.4f}")
        print(f"\n{'weight':<18} {'start':>8} {'learned':>8}")
        for (name, a), (_, b) in zip(start.items(), learned.items()):
            print(f"{name:<18} {a:>8.4g} {b:>8.4g}{'  *' if a != b else ''}")
        print(f"\n{'held-out set':<16} {'n':>4} {'start':>7} {'learned':>7}")
        gains = []
        for name, judged in heldout:
            kept = [j for j in judged if sb.unit_grades(j, ids)]
            a = objective_of(engine, [kept], ids)(start)
            b = objective_of(engine, [kept], ids)(learned)
            gains.append(b - a)
            print(f"{name:<16} {len(kept):>4} {a:>7.3f} {b:>7.3f}")
        if gains:
            print(f"{'mean gain':<21} {sum(gains) / len(gains):>+15.4f}")
    if args.write:
        write_values(dict(learned.items()))
        print(f"written: {Path('kb/data/search/ranking.toml')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
