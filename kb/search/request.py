"""What a search asks, validated once for every caller (kb search, the API, the site's server)."""
from __future__ import annotations

import re

from kb.core.errors import KbError


def parse_law_range(text: str | None) -> tuple[int, int] | None:
    """'61-64' -> (61, 64); '45' -> (45, 45); None -> None. Bad input raises KbError."""
    if text is None:
        return None
    m = re.fullmatch(r"\s*(\d{1,2})\s*(?:[-–~至到]\s*(\d{1,2}))?\s*", text)
    if not m:
        raise KbError(f"--laws takes N or N-M (law numbers), not {text!r}")
    lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
    if lo > hi:
        raise KbError(f"--laws {text!r}: the first law is after the last")
    return lo, hi
