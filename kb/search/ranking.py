"""The ranking's weights: one data file (kb/data/search/ranking.toml) that both engines read.

``load_weights`` reads and checks it (every weight named, a number within its range, nothing
unknown; a bad file is one KbError naming the file and the weight). ``Weights.replace`` makes
the variants bench/learn_ranking.py tries; ``Weights.meta`` is what the site's browser engine is
given (static_search.py writes it into its index).
"""
from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from kb.core.errors import KbError

WEIGHTS_PATH = Path(__file__).resolve().parents[1] / "data" / "search" / "ranking.toml"
# the word fields, in the order a posting lists their counts (the static index relies on it)
WORD_FIELD_NAMES = ("title", "text", "context", "subjects", "questions", "english")


@dataclass(frozen=True)
class Weights:
    """The ranking's weights (ranking.toml's ``value`` of each; rank.py says what each does)."""

    k1: float
    b: float
    title: float
    text: float
    context: float
    subjects: float
    questions: float
    english: float
    gram_weight: float
    query_gram_weight: float
    coverage_power: float
    context_cover: float
    title_bonus: float
    domain_share: float
    domain_penalty: float
    named_penalty: float

    @property
    def word_fields(self) -> dict[str, float]:
        """Each word field's boost, in posting order."""
        return {f: getattr(self, f) for f in WORD_FIELD_NAMES}

    def replace(self, **changes: float) -> Weights:
        return replace(self, **changes)

    def items(self) -> list[tuple[str, float]]:
        return [(f.name, getattr(self, f.name)) for f in fields(self)]

    def meta(self) -> dict[str, Any]:
        """The weights as the browser engine reads them (kb-engine.js: ``this.R``)."""
        return {"k1": self.k1, "b": self.b, "wordFields": self.word_fields, "gramWeight": self.gram_weight,
                "queryGramWeight": self.query_gram_weight, "coveragePower": self.coverage_power,
                "contextCover": self.context_cover, "titleBonus": self.title_bonus,
                "domainShare": self.domain_share, "domainPenalty": self.domain_penalty,
                "namedPenalty": self.named_penalty}


@dataclass(frozen=True)
class Spec:
    """One weight's line in ranking.toml: its value, the hand-set value, its range, what it weighs."""

    name: str
    value: float
    hand: float
    low: float
    high: float
    doc: str


NAMES = tuple(f.name for f in fields(Weights))


def read_specs(path: Path = WEIGHTS_PATH) -> list[Spec]:
    """Every weight's spec, in the file's order; KbError naming the file and the weight if bad."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise KbError(f"{path}: the ranking's weights are missing") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise KbError(f"{path}: not valid TOML: {e}") from None
    unknown = [k for k in data if k not in NAMES]
    if unknown:
        raise KbError(f"{path}: unknown weight [{unknown[0]}] (known: {', '.join(NAMES)})")
    specs = []
    for name in NAMES:
        entry = data.get(name)
        if not isinstance(entry, dict):
            raise KbError(f"{path}: weight [{name}] is missing")
        got = {}
        for key in ("value", "hand", "min", "max"):
            v = entry.get(key)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise KbError(f"{path}: [{name}] {key} must be a number, not {v!r}")
            got[key] = float(v)
        extra = set(entry) - {"value", "hand", "min", "max", "doc"}
        if extra:
            raise KbError(f"{path}: [{name}] has an unknown key {sorted(extra)[0]!r}")
        if not got["min"] <= got["max"]:
            raise KbError(f"{path}: [{name}] min {got['min']} is above max {got['max']}")
        for key in ("value", "hand"):
            if not got["min"] <= got[key] <= got["max"]:
                raise KbError(f"{path}: [{name}] {key} {got[key]} is outside {got['min']}–{got['max']}")
        doc = entry.get("doc")
        if not isinstance(doc, str) or not doc.strip():
            raise KbError(f"{path}: [{name}] needs a doc saying what it weighs")
        specs.append(Spec(name, got["value"], got["hand"], got["min"], got["max"], doc))
    return specs


def load_weights(path: Path = WEIGHTS_PATH) -> Weights:
    """The weights in use (``value`` of each)."""
    return Weights(**{s.name: s.value for s in read_specs(path)})


@lru_cache(maxsize=1)
def default_weights() -> Weights:
    """ranking.toml's weights, read once per process."""
    return load_weights()


def write_values(values: dict[str, float], path: Path = WEIGHTS_PATH) -> None:
    """Set the ``value`` of each weight named in ``values`` in place, keeping the file's comments."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    section = None
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith("[") and s.endswith("]"):
            section = s[1:-1]
        elif section in values and s.startswith("value ="):
            lines[i] = f"value = {_number(values[section])}\n"
    path.write_text("".join(lines), encoding="utf-8")
    read_specs(path)   # what was written reads back


def _number(x: float) -> str:
    return repr(float(f"{x:.4g}"))
