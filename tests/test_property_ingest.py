"""Randomly damaged real sources: the adapters and segmenters succeed or raise KbError, never crash."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.core.errors import KbError
from kb.ingest.adapters import adapt
from kb.ingest.segment import bridge, mahjong
from kb.ingest.segment.outline import load_outline
from kb.ingest.sources import load_manifest

SOURCES = {s.sigil: s for s in load_manifest()}
TEXTS = {sigil: s.read() for sigil, s in SOURCES.items()}
OUTLINES = {w: load_outline(w) for w in ("cbr1999", "laws1997")}


@st.composite
def mutated(draw):
    sigil = draw(st.sampled_from(sorted(TEXTS)))
    text = TEXTS[sigil]
    for _ in range(draw(st.integers(1, 4))):
        n = len(text)
        a = draw(st.integers(0, n))
        b = draw(st.integers(a, min(n, a + 400)))
        op = draw(st.sampled_from(["delete", "duplicate", "insert", "swap-case"]))
        if op == "delete":
            text = text[:a] + text[b:]
        elif op == "duplicate":
            text = text[:b] + text[a:b] + text[b:]
        elif op == "insert":
            junk = draw(st.text(alphabet=st.sampled_from(list("第条款ＡＢ１２（ａ）.．、:：l \n\\\"{}|downtown[１４]条规则")), max_size=20))
            text = text[:a] + junk + text[a:]
        else:
            text = text[:a] + text[a:b].swapcase() + text[b:]
    return sigil, text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_damaged_sources_fail_cleanly(case):
    sigil, text = case
    source = SOURCES[sigil]
    try:
        adapted = adapt(source, text)
        if source.work == "twmj16":
            mahjong.segment(adapted, source.work)
        else:
            bridge.segment(adapted, OUTLINES[source.work], source.work)
    except KbError as exc:
        assert "\n" not in str(exc)
