"""What the browser's mahjong scorer (docs/assets/mahjong.js) reads from the Python one: the rules'
data (patterns' names and 台, the exclusions, the forms' and sets' names, what the text leaves open)
and, for the Traditional edition, every wording it writes, converted by OpenCC.

The port holds algorithms only; the facts come from here, so the two cannot disagree on them, and
tests/test_rules_browser_engine.py holds the two to the same answers.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from kb.ingest.normalise import to_hant
from kb.rules.mahjong.hand import CHOICES
from kb.rules.mahjong.notation import FLAGS, SITUATIONS
from kb.rules.mahjong.patterns import PATTERNS, tai
from kb.rules.mahjong.scoring import ADJUST_ZI, EXCLUSIONS, FORM_NAMES, KIND_NAMES, LAST_DISCARD_WHY, PAIR_NAMES
from kb.rules.mahjong.settlement import SEATS, SILENT
from kb.rules.mahjong.tiles import FLOWERS, TILES, tile_name

SCRIPT = Path(__file__).resolve().parents[3] / "docs" / "assets" / "mahjong.js"
_WORDING = re.compile(r'\bT\("((?:[^"\\]|\\.)*)"\)')


def engine_data(script: str = "hans") -> dict[str, Any]:
    """The rules' data the browser's scorer reads, its texts in ``script``."""
    t = to_hant if script == "hant" else str
    return {
        # a pattern's 台 as scored (None where the text gives a formula, 2N: its predicate counts it)
        "patterns": {p.number: [t(p.name), tai(p.number) if not p.tai or p.tai.isdigit() else None]
                     for p in PATTERNS},
        "order": [[p.number, p.hand_needed] for p in PATTERNS],
        "exclusions": [[e.by, e.drops, t(e.why), e.clause] for e in EXCLUSIONS],
        "adjust": t(ADJUST_ZI),
        "last_discard": t(LAST_DISCARD_WHY),
        "forms": {k: t(v) for k, v in FORM_NAMES.items()},
        "kinds": {k: t(v) for k, v in KIND_NAMES.items()},
        "pair": [t(p) for p in PAIR_NAMES],
        "silent": [t(s) for s in SILENT],
        # the line's words for the situations (杠上, 天胡 ...): field and value, in both scripts
        "flags": {word: list(v) for word, v in FLAGS.items()},
        "situations": [[w, t(w)] for w in SITUATIONS],
    }


def wordings(script: str) -> dict[str, str]:
    """Each wording the browser's scorer writes (its T("…") literals, the seats, the tiles' names)
    with its form in ``script``; empty for Simplified, in which they are written."""
    if script != "hant":
        return {}
    words = {json.loads(f'"{m}"') for m in _WORDING.findall(SCRIPT.read_text(encoding="utf-8"))}
    words |= set(SEATS) | {tile_name(c) for c in (*TILES, *FLOWERS)}
    words |= {v for values in CHOICES.values() for v in values if isinstance(v, str)}   # T(h.declared)
    return {w: to_hant(w) for w in sorted(words) if to_hant(w) != w}
