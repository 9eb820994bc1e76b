"""Stage 3: normalisation with OpenCC.

Every record carries a Simplified form (OpenCC t2s; used for search and
comparison) and a Traditional form (OpenCC s2tw, not s2twp: legal wording stays
as written). Fullwidth letters and digits are folded to ASCII first. The
Traditional form is made from the Simplified one, which also repairs witness
000's machine-conversion errors (麵 for 面, 隻, 彆, 纔, 髮 …). Curated usage rules follow
each conversion: kb/data/hans-usage.tsv (what t2s cannot undo: 冇, 接著, 资讯, 程式) and
kb/data/hant-usage.tsv (Taiwanese usage after s2tw: 台, 「」, 捨牌, 係, 資訊); the site's own
wording adds kb/data/hant-ui-usage.tsv (裝置, 檔案: to_hant_ui).
"""
from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache

import opencc

from kb.core.curated import Table, read_table
from kb.core.errors import KbError

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
    for residue, usual in _usage("hans-usage.tsv", "t2s_form"):
        out = out.replace(residue, usual)
    return out


def to_hant(text_hans: str) -> str:
    """Traditional (Taiwan) form of a Simplified text: OpenCC s2tw, then Taiwanese usage
    from kb/data/hant-usage.tsv (台 rather than s2tw's 臺)."""
    out = _converter("s2tw").convert(text_hans)
    for standard, usual in _usage("hant-usage.tsv", "s2tw_form"):
        out = out.replace(standard, usual)
    return out


@lru_cache(maxsize=4096)
def to_hant_ui(text_hans: str) -> str:
    """Traditional form of the site's own wording (menus, messages, notices, the labels of the
    editors' notes): ``to_hant``, then the interface usage of kb/data/hant-ui-usage.tsv (裝置,
    not 設備). Never for the rules' text, whose wording stays as the conversion gives it. A few
    hundred strings, each converted once."""
    out = to_hant(text_hans)
    for standard, usual in _ui_usage():
        out = out.replace(standard, usual)
    return out


def ui_text(text_hans: str, script: str) -> str:
    """The site's own wording, written in Simplified, in an edition's script (hans | hant)."""
    return text_hans if script == "hans" else to_hant_ui(text_hans)


UI_USAGE = Table("hant-ui-usage.tsv", ("s2tw_form", "usual_form", "why"), unique=("s2tw_form",))


@cache
def _ui_usage() -> tuple[tuple[str, str], ...]:
    return tuple((row["s2tw_form"], row["usual_form"]) for row in read_table(UI_USAGE))


def usage_table(edition: str) -> Table:
    """The curated usage rules of one edition (hans: after t2s; hant: after s2tw)."""
    key = "t2s_form" if edition == "hans" else "s2tw_form"
    return Table(f"{edition}-usage.tsv", (key, "usual_form", "why"), unique=(key,))


@lru_cache(maxsize=2)
def _usage(path: str, key: str) -> tuple[tuple[str, str], ...]:
    rows = read_table(usage_table(path.split("-")[0]))
    for row in rows:
        if path.startswith("hans") and len(row[key]) != len(row["usual_form"]):
            raise KbError(f"{row.where}: a Simplified usage rule must keep the length "
                          "(the segmenter maps offsets between the scripts)")
    return tuple((row[key], row["usual_form"]) for row in rows)


_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


def comparison_form(text: str) -> str:
    """Simplified text with punctuation and spacing removed, for collation."""
    return _NON_WORD.sub("", unicodedata.normalize("NFKC", to_hans(text)))
