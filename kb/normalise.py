"""Stage 3: normalisation with OpenCC.

Every record carries a Simplified form (OpenCC t2s; used for search and
comparison) and a Traditional form (OpenCC s2tw, not s2twp: legal wording stays
as written). Fullwidth letters and digits are folded to ASCII first. The
Traditional form is made from the Simplified one, which also repairs witness
000's machine-conversion errors (麵 for 面, 隻, 彆, 纔, 髮 …); 冇, which OpenCC
leaves alone, is fixed here.
"""
from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache

import opencc

# Characters OpenCC t2s leaves alone that a wrong conversion produced.
CONVERSION_FIXES = {"冇": "没"}

_WIDE = {c: c - 0xFEE0 for c in [*range(0xFF10, 0xFF1A), *range(0xFF21, 0xFF3B), *range(0xFF41, 0xFF5B)]}


@cache
def _converter(config: str) -> opencc.OpenCC:
    return opencc.OpenCC(config)


def fold_width(text: str) -> str:
    """Fold fullwidth digits and Latin letters to ASCII; keep Chinese punctuation."""
    return text.translate(_WIDE)


def to_hans(text: str) -> str:
    """Simplified form: fullwidth folded, OpenCC t2s, known conversion errors fixed."""
    out = _converter("t2s").convert(fold_width(text))
    for wrong, right in CONVERSION_FIXES.items():
        out = out.replace(wrong, right)
    return out


def to_hant(text_hans: str) -> str:
    """Traditional (Taiwan) form of a Simplified text: OpenCC s2tw, then Taiwanese usage
    from kb/data/hant-usage.tsv (台 rather than s2tw's 臺)."""
    out = _converter("s2tw").convert(text_hans)
    for standard, usual in _hant_usage():
        out = out.replace(standard, usual)
    return out


@lru_cache(maxsize=1)
def _hant_usage() -> tuple[tuple[str, str], ...]:
    from kb.curated import Table, read_table
    table = Table("hant-usage.tsv", ("s2tw_form", "usual_form", "why"), unique=("s2tw_form",))
    return tuple((row["s2tw_form"], row["usual_form"]) for row in read_table(table))


_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


def comparison_form(text: str) -> str:
    """Simplified text with punctuation and spacing removed, for collation."""
    return _NON_WORD.sub("", unicodedata.normalize("NFKC", to_hans(text)))
