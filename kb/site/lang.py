"""Which edition a browser asks for: its Accept-Language header -> "hans" or "hant"."""
from __future__ import annotations

TRADITIONAL = ("zh-hant", "zh-tw", "zh-hk", "zh-mo")


def edition_for(accept_language: str) -> str:
    """The edition for an Accept-Language header: "hant" when the most preferred Chinese entry
    is Traditional (zh-Hant, zh-TW, zh-HK, zh-MO, and their subtags), else "hans".

    Entries are taken by quality (q=0 means "not this"), in header order among equals; only
    Chinese entries decide, so "en-US, zh-TW;q=0.8" gives the Traditional edition."""
    ranked = []
    for i, part in enumerate(accept_language.split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        tag = tag.strip().lower().replace("_", "-")
        if q > 0 and (tag == "zh" or tag.startswith("zh-")):
            ranked.append((-q, i, tag))
    if not ranked:
        return "hans"
    tag = min(ranked)[2]
    return "hant" if any(tag == t or tag.startswith(t + "-") for t in TRADITIONAL) else "hans"
