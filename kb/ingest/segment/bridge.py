"""Segment a bridge witness against its work's curated outline.

The witnesses lost different things: 000 most clause letters (headings run
into their text), 002 every digit and letter (bare ．/./（） markers remain),
003 some law headings, 004 little. One walk serves them all: the outline gives
the nodes in reading order with their headings, and each node is found in the
witness as its heading at a boundary (a paragraph start or just after a
marker) at or after the previous node. A marker that no node claims is an
error, so a witness can never lose a clause silently.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from kb.core.errors import KbError
from kb.ingest.adapters import Adapted
from kb.ingest.normalise import to_hans
from kb.ingest.segment import Segment
from kb.ingest.segment.outline import Node

CN_DIGITS = "一二三四五六七八九十"
HEADING = re.compile(rf"^第[{CN_DIGITS}]+(?:章|节|部分)")
HEADING_INLINE = re.compile(rf"第[{CN_DIGITS}]+(?:章|节|部分)\s*.*?(?=第[{CN_DIGITS}]*(?:章|节|部分|条：))")
MARKER = re.compile(r"(?:[A-H]\s*[．.、]|(?:\d{1,2}|l)\s*[．.、]|[（(]\s*[a-cA-C]?\s*[）)]|．|(?<![A-Za-z0-9])\.)\s*")
GLUED_NUMBER = re.compile(r"\d{1,2}(?=[\u4e00-\u9fff])")
STRUCTURAL = re.compile(r"^(?:[A-H]\s*[．.、]|\d{1,2}\s*[．.、]|[（(][a-cA-C][）)])")
LAW_NUMBER = {  # per format: a law heading with its number
    "json-envelope": re.compile(r"第\s*(\d+)\s*条"),
    "fullwidth-paged": re.compile(r"第\s*(\d+)\s*条"),
    "outline-table": re.compile(r"规则\s*(\d+)"),
    "pinyin-glued": re.compile(r"第条："),
}
BAD_LAW_NUMBER = re.compile(rf"第[{CN_DIGITS}]{{1,3}}条")


@dataclass
class Stream:
    """A witness's text blocks joined, in the witness script and in Simplified."""

    raw: str
    hans: str
    starts: list[int]
    lines: list[tuple[int, int]]

    def line_range(self, a: int, b: int) -> tuple[int, int]:
        i = max(0, bisect.bisect_right(self.starts, a) - 1)
        j = max(0, bisect.bisect_right(self.starts, max(a, b - 1)) - 1)
        return self.lines[i][0], self.lines[j][1]


def _stream(adapted: Adapted, bare_headings: set[str]) -> tuple[Stream, list[str]]:
    raw_parts, hans_parts, starts, lines, dropped = [], [], [], [], []
    pos = 0
    for block in adapted.blocks:
        if block.kind != "text":
            continue
        raw, hans = block.text, to_hans(block.text)
        if len(raw) != len(hans):
            raise KbError(f"{adapted.source.path}:{block.lines[0]}: script conversion changed the text length")
        if HEADING.match(hans) and "条" not in hans[:12] or hans in bare_headings:
            dropped.append(hans)
            continue
        for m in reversed(list(HEADING_INLINE.finditer(hans))):
            dropped.append(m.group(0))
            raw, hans = raw[: m.start()] + raw[m.end():], hans[: m.start()] + hans[m.end():]
        starts.append(pos)
        lines.append(block.lines)
        raw_parts.append(raw)
        hans_parts.append(hans)
        pos += len(raw) + 1
    return Stream("\n".join(raw_parts), "\n".join(hans_parts), starts, lines), dropped


def segment(adapted: Adapted, outline: list[Node], work: str) -> list[Segment]:
    """One Segment per outline node this witness holds, in reading order."""
    src = adapted.source
    stream, dropped = _stream(adapted, {t for n in outline for (_, _, t) in n.headings})
    for heading in dropped:
        adapted.log("chapter/part/section heading taken out of the text (kept in the outline)",
                    adapted.blocks[0].lines, heading)
    hans = stream.hans
    fmt = src.format
    marker_only = fmt != "json-envelope"
    markers = {m.end(): m.start() for m in MARKER.finditer(hans) if m.group(0).strip()}
    for start in stream.starts:     # a digit glued to its heading at a paragraph start (004 "２指定了…")
        glued = GLUED_NUMBER.match(hans, start)
        if glued:
            markers[glued.end()] = start
    boundaries = sorted(set(stream.starts) | set(markers))
    laws = [n for n in outline if n.level == "law"]
    law_pos = _find_laws(stream, laws, fmt, src)
    covered = sorted(law_pos)
    if not covered:
        raise KbError(f"{src.path}: no law heading found")
    lo, hi = covered[0], covered[-1]
    lo = _extend_down(hans, outline, lo, law_pos[lo][0], boundaries)
    notes: dict[str, list[dict]] = {}
    found: list[tuple[Node, int, int, int, str]] = []   # node, start, title_start, title_end, marker
    cursor = 0

    def next_law_start(law: int) -> int:
        later = [p[0] for other, p in law_pos.items() if other > law and p is not None]
        return min(later) if later else len(hans)

    for node in outline:
        if not lo <= node.law <= hi:
            continue
        limit = next_law_start(node.law)
        if node.level == "law":
            pos = law_pos.get(node.law)
            if pos is None:
                notes.setdefault(node.cite, []).append(
                    {"kind": "recovery", "what": f"抄本{src.sigil}缺第{node.law}条的条标题",
                     "from": "本库条款大纲的次序"})
                found.append((node, -1, -1, -1, ""))
                continue
            start, tstart, tend, note = pos
            if note:
                notes.setdefault(node.cite, []).append(note)
            found.append((node, start, tstart, tend, ""))
            cursor = tend
            continue
        hit = _find_title(hans, node, boundaries, markers, cursor, limit, marker_only)
        if hit is None:
            continue
        start, tstart, tend, marker = hit
        found.append((node, start, tstart, tend, marker))
        cursor = tend
    # Law nodes without a heading start where their first child starts.
    resolved = []
    for i, (node, start, tstart, tend, marker) in enumerate(found):
        if start < 0:
            nxt = next((f for f in found[i + 1:] if f[1] >= 0), None)
            start = tstart = tend = nxt[1] if nxt else len(hans)
        resolved.append((node, start, tstart, tend, marker))
    segments = []
    for i, (node, start, tstart, tend, marker) in enumerate(resolved):
        end = resolved[i + 1][1] if i + 1 < len(resolved) else len(hans)
        if i + 1 < len(resolved) and resolved[i + 1][0].law != node.law:
            end = min(end, next_law_start(node.law))
            gap = hans[end:resolved[i + 1][1]]
            if gap.strip():     # never lose text between two laws
                line = stream.line_range(end, end + 1)[0]
                raise KbError(f"{src.path}:{line}: text '{gap.strip()[:16]}' between law {node.law} and the next "
                              "node is claimed by no outline node; fix kb/data/outline")
        body_raw = stream.raw[tend:end]
        body_hans = hans[tend:end]
        _check_unclaimed(body_hans, tend, stream, src, node, marker_only)
        text = _clean(body_raw)
        title = _clean(stream.raw[tstart:tend]) if tend > tstart else ""
        seg_notes = list(notes.get(node.cite, []))
        # 000 sometimes gives a heading its own paragraph and then repeats it at the start of the
        # next one (52A); a heading run into its text that merely begins with the same words
        # (64A1 违规者赢得藏牌墩 / 违规者赢得藏牌墩时，…) is not a repetition.
        # A heading on its own line followed by text that begins with the same words may be a repeated
        # heading (000, 52A) or a text that merely begins with the heading's words (004, 44A 引牌者…):
        # only another witness can tell, so the segment keeps its words and collation decides.
        own_line = tend < len(hans) and hans[tend] == "\n"
        extra: dict = {"marker": marker.strip()}
        if own_line and title and node.level != "law" and to_hans(text).startswith(to_hans(title)):
            extra["title_repeat"] = len(title)
        if node.level == "law":
            title = re.sub(r"^(?:第\s*\S{0,3}\s*[條条]\s*[：:]?|规则\s*\d+)\s*", "", title)
        first, last = stream.line_range(start, max(start + 1, end))
        seg = Segment(work, node.cite, src.sigil, src.file, title, text, (first, last),
                      notes=seg_notes, extra=extra)
        segments.append(seg)
    if segments and fmt == "pinyin-glued" and not re.search(r"[。；）)]$", segments[-1].text):
        segments[-1].extra["truncated"] = True
        segments[-1].notes.append({"kind": "loss", "what": f"抄本{src.sigil}至此款中断", "from": src.file})
    _attach_footnotes(adapted, segments)
    _markers_from_repeated_copy(adapted, segments, outline)
    if fmt == "pinyin-glued" and law_pos and min(law_pos.values())[0] > 0:
        head = _clean(stream.raw[: min(v[0] for v in law_pos.values())])
        if head:
            segments.insert(0, Segment(work, str(lo - 1), src.sigil, src.file, "", head, stream.line_range(0, 1),
                                       notes=[{"kind": "fragment",
                                               "what": f"抄本{src.sigil}从句中开始：仅存第{lo - 1}条的结尾，款号不明",
                                               "from": "第一个条标题之前的位置"}],
                                       extra={"marker": "", "fragment": True}))
    return segments


def _extend_down(hans: str, outline: list[Node], lo: int, first: int, boundaries: list[int]) -> int:
    """Laws before the first law heading found, recognised by their clause headings (003 has no 规则41)."""
    law = lo
    while True:
        earlier = [n for n in outline if n.law == law - 1 and n.level != "law" and n.titles]
        hits = [b for n in earlier for b in boundaries if b < first
                for t in n.titles if hans.startswith(t.lstrip("~"), b)]
        if not earlier or not hits:
            return law
        law -= 1
        first = min(hits)


def _find_laws(stream: Stream, laws: list[Node], fmt: str, src) -> dict[int, tuple]:
    """Law number -> (start, title_start, title_end, recovery note or None)."""
    hans = stream.hans
    by_number = {n.law: n for n in laws}
    out: dict[int, tuple] = {}
    pattern = LAW_NUMBER[fmt]
    if fmt == "pinyin-glued":
        hits = list(pattern.finditer(hans))
        first_law = 27
        for k, m in enumerate(hits):
            law = first_law + k
            node = by_number.get(law)
            if node is None:
                raise KbError(f"{src.path}:1: law heading #{k + 1} (law {law} by order) is not in the outline")
            tend = _title_after(hans, m.end(), node)
            if tend is None:
                raise KbError(f"{src.path}:1: law heading #{k + 1} 第條 is not followed by the title of law {law} "
                              f"('{hans[m.end():m.end() + 12]}')")
            out[law] = (m.start(), m.start(), tend,
                        {"kind": "recovery", "what": f"抄本{src.sigil}的条号数字已佚（作“第條”）；按次序定为第{law}条"
                                                     f"（该抄本各条自第{first_law}条起依次排列）",
                         "from": "条标题的次序，并与大纲标题逐一核对"})
        return out
    previous = 0
    for start in stream.starts:
        line_end = hans.find("\n", start)
        head = pattern.match(hans, start, line_end if line_end >= 0 else len(hans))
        if head:
            law = int(head.group(1))
            node = by_number.get(law)
            line = stream.line_range(start, start + 1)[0]
            if node is None:
                raise KbError(f"{src.path}:{line}: law {law} is not in the outline")
            if law <= previous:     # a damaged heading digit: never glue a law into its neighbour
                raise KbError(f"{src.path}:{line}: law heading {head.group(0)} breaks the law sequence "
                              f"(it follows law {previous})")
            previous = law
            tend = _title_after(hans, head.end(), node) or head.end()
            out[law] = (start, start, tend, None)
    # Headings with a wrong number (第一條) or none at all (a bare title), by title.
    expected = sorted(by_number)
    for law in expected:
        if law in out or not out or not min(out) < law < max(out):
            continue
        node = by_number[law]
        for start in stream.starts:
            bad = BAD_LAW_NUMBER.match(hans, start)
            at = bad.end() if bad else start
            tend = _title_after(hans, at, node)
            if tend is None or not _between(out, law, start):
                continue
            if bad:
                note = {"kind": "recovery", "what": f"抄本{src.sigil}此条标题作“{bad.group(0)}”；据标题与位置定为第{law}条",
                        "from": "本库的条款大纲与其他抄本"}
            else:
                note = {"kind": "recovery", "what": f"抄本{src.sigil}此条无条号，仅有标题；定为第{law}条",
                        "from": "大纲标题及其在前后两条之间的位置"}
            out[law] = (start, start, tend, note)
            break
    return out


def _between(found: dict[int, tuple], law: int, pos: int) -> bool:
    before = [v[0] for k, v in found.items() if k < law]
    after = [v[0] for k, v in found.items() if k > law]
    return (not before or pos > max(before)) and (not after or pos < min(after))


def _title_after(hans: str, at: int, node: Node) -> int | None:
    while at < len(hans) and hans[at] in " \u3000：:":
        at += 1
    for title in (t.lstrip("~") for t in node.titles):
        if hans.startswith(title, at):
            return at + len(title)
    return None if node.titles else at


def _find_title(hans: str, node: Node, boundaries: list[int], markers: dict[int, int],
                cursor: int, limit: int, marker_only: bool) -> tuple[int, int, int, str] | None:
    """(start, title start, title end, marker) of a node's heading at a boundary in [cursor, limit)."""
    i = bisect.bisect_left(boundaries, cursor)
    if not node.titles:
        for b in boundaries[i:]:
            if b >= limit:
                return None
            if b <= cursor:
                continue
            if b in markers or not marker_only:
                start = markers.get(b, b)
                return start, b, b, hans[start:b]
        return None
    inline = [t[1:] for t in node.titles if t.startswith("~")]
    for title in inline:            # a heading the outline marks as standing mid-paragraph
        at = hans.find(title, cursor, limit)
        if at >= 0:
            return at, at, at + len(title), ""
    for b in boundaries[i:]:
        if b >= limit:
            return None
        for title in node.titles:
            if hans.startswith(title, b):
                start = markers.get(b, b)
                return start, b, b + len(title), hans[start:b] if b in markers else ""
    return None


def _check_unclaimed(body: str, offset: int, stream: Stream, src, node: Node, marker_only: bool) -> None:
    """A structural marker at a paragraph start inside a node's text means a node was missed."""
    for start in stream.starts:
        if offset <= start < offset + len(body):
            piece = body[start - offset:]
            m = STRUCTURAL.match(piece)
            if m and (marker_only or src.format == "json-envelope"):
                line = stream.line_range(start, start + 1)[0]
                raise KbError(f"{src.path}:{line}: marker '{m.group(0)}' ('{piece[:14]}') is claimed by no "
                              f"outline node (inside {node.cite}); fix kb/data/outline")


def _clean(text: str) -> str:
    text = re.sub(r"\s*\n\s*", "", text).strip().lstrip("，。、")
    text = re.sub(r"^(?:[A-H]\s*[．.、]|(?:\d{1,2}|l)\s*[．.、]|[（(]\s*[a-cA-C]?\s*[）)]|．|\.)\s*", "", text)
    return re.sub(r"\s*(?:[A-H]|\d{1,2}|l)?\s*[．.、]?\s*$", "", text) if re.search(r"(?:[A-H]|\d)\s*[．.、]\s*$", text) else text


def _attach_footnotes(adapted: Adapted, segments: list[Segment]) -> None:
    """Each footnote goes to the last (most specific) segment whose lines hold its mark."""
    for b in adapted.blocks:
        if b.kind != "footnote":
            continue
        # The anchor block index counts blocks before the footnote was appended.
        anchor_line = adapted.blocks[b.anchor].lines[0] if 0 <= b.anchor < len(adapted.blocks) else b.lines[0]
        target = None
        for seg in segments:
            if seg.lines[0] <= anchor_line <= seg.lines[1]:
                target = seg
        if target is None:
            raise KbError(f"{adapted.source.path}:{b.lines[0]}: footnote [{b.label}] has no clause to attach to")
        target.footnotes.append({"n": b.label, "text": b.text, "source": adapted.source.file,
                                 "lines": list(b.lines)})


def _markers_from_repeated_copy(adapted: Adapted, segments: list[Segment], outline: list[Node]) -> None:
    """A clause whose letter or number the kept text lost may keep it in the repeated copy the adapter
    removed (000 repeats Laws 58-60: 「3.已被看到的牌張收回後」): take the marker from there, with a note."""
    if not adapted.dropped:
        return
    nodes = {n.cite: n for n in outline}
    copy = [to_hans(p) for p in adapted.dropped]
    for seg in segments:
        node = nodes.get(seg.cite)
        if node is None or node.level == "law" or re.search(r"[A-Za-z0-9]", seg.extra.get("marker", "")):
            continue
        label = node.path[-1]
        marker = rf"[（(]\s*{label}\s*[）)]" if node.level == "subitem" else rf"{label}\s*[．.、]"
        for title in [t.lstrip("~") for t in node.titles]:
            hit = next((m for p in copy
                        if title in p and (m := re.match(rf"\s*({marker})\s*{re.escape(title)}", p))), None)
            if hit:
                seg.extra["marker"] = hit.group(1)
                seg.notes.append({"kind": "recovery",
                                  "what": f"抄本{seg.sigil}此处失去款号“{hit.group(1)}”；其重复的一段（已删去的副本）"
                                          f"作“{hit.group(0).strip()}”",
                                  "from": f"{seg.source}（重复的一段）"})
                break
