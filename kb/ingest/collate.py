"""Stage 5: collation. The witnesses of one work become one record per clause.

Each record takes its reading from the witness that is right there (a fixed
preference per work, corrected by curated emendations), keeps every witness's
reading with its provenance, and lists the variants: where two witnesses differ
after normalisation, ignoring punctuation, spacing and what a witness is known
to have lost (002 lost every digit and clause letter).
"""
from __future__ import annotations

import difflib
import re
from collections import defaultdict

from kb.core import works
from kb.core.curated import Row, Table, read_table
from kb.core.errors import KbError
from kb.core.records import LOST_MARK, Record, Witness
from kb.ingest.normalise import comparison_form, to_hans, to_hant
from kb.ingest.segment import Segment
from kb.ingest.segment.outline import Node, citation_label, split_cite

LOST_DIGITS = {"002"}               # witnesses that lost every Arabic digit and clause letter
EMENDATIONS = Table("emendations.tsv", ("work", "citation", "wrong", "right", "support", "why"),
                    unique=("work", "citation", "wrong"))
RESTORATIONS = Table("restorations.tsv",
                     ("work", "citation", "where", "lost", "occurrence", "restored", "confidence", "authority"),
                     unique=("work", "citation", "where", "lost", "occurrence"),
                     enums={"where": ("text", "title"), "confidence": ("sure", "likely")})
# A lost reference (or lost number) as the ingest stage marks it, longest form first.
_LOST_READING = re.compile(rf"第{LOST_MARK}条{LOST_MARK}款|第{LOST_MARK}条|{LOST_MARK}条{LOST_MARK}款|{LOST_MARK}条"
                           rf"|本条{LOST_MARK}款|以下（{LOST_MARK}）项|本条（{LOST_MARK}）|超过{LOST_MARK}线")


def collate_bridge(work: str, outline: list[Node], segments: list[Segment]) -> list[Record]:
    by_cite: dict[str, list[Segment]] = defaultdict(list)
    for seg in segments:
        by_cite[seg.cite].append(seg)
    emend = _emendations(work)
    restore = _restorations(work)
    order = [n.cite for n in outline]
    nodes = {n.cite: n for n in outline}
    extra = sorted((c for c in by_cite if c not in nodes), key=lambda c: int(split_cite(c)[0]))
    held_laws = {nodes[c].law for c in by_cite if c in nodes}
    missing = [c for c in order if c not in by_cite and nodes[c].law in held_laws]
    if missing:     # a heading no witness matched: its text would silently join the clause before
        raise KbError(f"kb/data/outline/{work}.tsv:{nodes[missing[0]].line}: no witness holds "
                      f"{', '.join(missing[:5])} although it holds the law; fix the outline title")
    records: list[Record] = []
    for cite in extra + order:
        segs = by_cite.get(cite)
        if not segs:
            continue
        node = nodes.get(cite)
        path = node.path if node else split_cite(cite)
        segs = sorted(segs, key=lambda s: _trust(work, s.sigil))
        _drop_confirmed_title_repeats(segs)
        base = segs[0]
        text = tidy(to_hans(base.text))
        if base.sigil in LOST_DIGITS:
            text = mark_lost(text)
        notes = [n for s in segs for n in s.notes]
        title = next((to_hans(s.title) for s in segs if s.title), "")
        text, title = emend_reading(work, cite, text, title, segs, emend.pop(cite, []), notes)
        broken = _breaks_off(text, base.sigil, len(segs))
        if broken:
            notes.append(broken)
        if not title and node and node.titles:
            title = node.titles[0]
            notes.append({"kind": "recovery", "what": f"抄本{base.sigil}缺此款标题",
                          "from": "本库据1997年规则整理的条款大纲"})
        if node and node.level != "law" and not any(re.search(r"[A-Za-z0-9]", s.extra.get("marker", ""))
                                                    for s in segs):
            lost = ", ".join(s.sigil for s in segs)
            notes.append({"kind": "recovery",
                          "what": f"款号 {citation_label(path)} 系推定：抄本{lost}已失去款字母或项数字",
                          "from": "1997年规则结构中的位置（本库的条款大纲）"})
        if base.sigil in LOST_DIGITS:
            title = mark_lost(title)
        rows = restore.pop(cite, [])
        title, title_notes = restore_lost(title, [r for r in rows if r["where"] == "title"], "title")
        text, text_notes = restore_lost(text, [r for r in rows if r["where"] == "text"], "text")
        notes += title_notes + text_notes
        if base.sigil in LOST_DIGITS and LOST_MARK in text + title:
            notes.append({"kind": "loss", "what": f"{LOST_MARK} 表示抄本{base.sigil}已佚的数字或款字母；"
                                                  "没有其他抄本载有此款，无从补出",
                          "from": base.source})
        records.append(Record(
            id=f"{work}:{cite}", work=work, citation=citation_label(path),
            level=node.level if node else "law",
            parent=f"{work}:{''.join(path[:-1])}" if len(path) > 1 else None,
            order=len(records), law=int(path[0]), path=path,
            title_hans=title, title_hant=to_hant(title), text_hans=text, text_hant=to_hant(text),
            witnesses=[Witness(s.source, s.sigil, list(s.lines), s.text, s.title) for s in segs],
            variants=variants(segs), notes=notes,
            footnotes=[{**f, "text_hans": to_hans(f["text"]), "text_hant": to_hant(to_hans(f["text"]))}
                       for s in segs for f in s.footnotes],
            heading=[f"{label} {tidy(t)}" for _, label, t in (node.headings if node else [])],
        ))
    if emend:
        raise KbError(f"kb/data/emendations.tsv: no such clause in {work}: {', '.join(emend)}")
    if restore:
        raise KbError(f"kb/data/restorations.tsv: no such clause in {work}: {', '.join(restore)}")
    return records


def restore_lost(text: str, rows: list[Row], where: str) -> tuple[str, list[dict]]:
    """Apply an editor's restorations to the lost readings of one text: 第□条 -> 第〔23〕条 (sure)
    or 第〔23？〕条 (likely). Each row names the nth lost reading with exactly its text; a row
    that matches nothing, or fills the wrong number of marks, is an error naming its line."""
    if not rows:
        return text, []
    found = [m for m in _LOST_READING.finditer(text)]
    chosen: dict[int, tuple[re.Match[str], Row]] = {}
    for row in rows:
        same = [m for m in found if m.group(0) == row["lost"]]
        n = int(row["occurrence"]) if row["occurrence"].isdigit() else 0
        if not 1 <= n <= len(same):
            raise KbError(f"{row.where}: '{row['lost']}' #{row['occurrence']} is not a lost reading of "
                          f"{row['citation']} ({where}: {len(same)} such)")
        chosen[same[n - 1].start()] = (same[n - 1], row)
    out, notes, pos = [], [], 0
    for start in sorted(chosen):
        m, row = chosen[start]
        reading = _fill(row)
        out.append(text[pos:m.start()])
        at = sum(len(p) for p in out)
        out.append(reading)
        pos = m.end()
        notes.append({"kind": "restoration",
                      "what": f"{row['lost']} → {reading}：编者据1997年规则补出"
                              f"（{'确定' if row['confidence'] == 'sure' else '推测，未链接'}）",
                      "from": row["authority"], "citation": row["restored"], "confidence": row["confidence"],
                      "where": where, "span": [at, at + len(reading)], "lost": row["lost"]})
    out.append(text[pos:])
    return "".join(out), notes


def _fill(row: Row) -> str:
    """第□条□款 + 35B -> 第〔35〕条〔B〕款; parts beyond the marks follow the last one (款〔2〕)."""
    restored = row["restored"]
    try:
        parts = split_cite(restored)
    except ValueError:
        parts = [restored]             # a lost word, not a citation: 超过□线 -> 超过〔七〕线
    marks = row["lost"].count(LOST_MARK)
    if len(parts) > marks and not row["lost"].startswith(("第", LOST_MARK)):
        parts = parts[-marks:]         # a relative reference names only the last parts: 以下（〔b〕）项
    if len(parts) < marks:
        raise KbError(f"{row.where}: '{restored}' fills {len(parts)} of the {marks} lost marks in '{row['lost']}'")
    q = "？" if row["confidence"] == "likely" else ""
    pieces = row["lost"].split(LOST_MARK)
    reading = pieces[0] + "".join(f"〔{p}{q}〕{rest}" for p, rest in zip(parts, pieces[1:]))
    return reading + "".join(f"〔{p}{q}〕" for p in parts[marks:])


def _restorations(work: str) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = defaultdict(list)
    for row in read_table(RESTORATIONS):
        if row["work"] == work:
            out[row["citation"]].append(row)
    return out


def _drop_confirmed_title_repeats(segs: list[Segment]) -> None:
    """A witness whose text begins with its own-line heading repeats it only when another witness's
    text does not begin with those words (000 52A); otherwise the words are the text's (004 44A)."""
    for seg in segs:
        n = seg.extra.pop("title_repeat", 0)
        if not n:
            continue
        head = comparison_form(seg.title)
        rest = comparison_form(seg.text[n:])
        others = [comparison_form(o.text) for o in segs if o is not seg]
        if head and any(not o.startswith(head) and o[:4] == rest[:4] for o in others):
            seg.text = seg.text[n:].lstrip("，。、 \u3000")
            seg.notes.append({"kind": "repair", "what": f"抄本{seg.sigil}在正文开头重复了标题，重复处已删去"
                                                        "（其他抄本正文不以标题起首）",
                              "from": seg.source})


def emend_reading(work: str, cite: str, text: str, title: str, segs: list[Segment],
                  rows: list[tuple[str, str, str, str]], notes: list[dict]) -> tuple[str, str]:
    """Apply a clause's emendations (kb/data/emendations.tsv), each checked against its support."""
    for wrong, right, support, why in rows:
        if wrong not in text + title:
            raise KbError(f"kb/data/emendations.tsv: {work} {cite}: '{wrong}' not in the text taken from {segs[0].sigil}")
        if (text + "\n" + title).count(wrong) > 1:
            raise KbError(f"kb/data/emendations.tsv: {work} {cite}: '{wrong}' occurs more than once; "
                          "give a longer reading")
        if support != "editor" and not any(s.sigil == support and right in to_hans(s.title + s.text) for s in segs):
            raise KbError(f"kb/data/emendations.tsv: {work} {cite}: witness {support} does not read '{right}'")
        text, title = text.replace(wrong, right), title.replace(wrong, right)
        notes.append({"kind": "emendation", "what": f"{wrong} → {right}（{why}）",
                      "from": f"抄本{support}" if support != "editor" else "编者"})
    return text, title


def _breaks_off(text: str, sigil: str, held_by: int) -> dict | None:
    """A loss note for a text that stops mid-sentence (an unclosed bracket, no closing mark)."""
    if not text or text[-1] in "。；：！？）」" or text.count("（") <= text.count("）"):
        return None
    alone = "；没有其他抄本载有此款" if held_by == 1 else ""
    return {"kind": "loss", "what": f"抄本{sigil}此处句子未完（括号未闭合，句末缺失）{alone}，未作补出",
            "from": "抄本正文"}


def tidy(text: str) -> str:
    """Drop stray spaces the scrapes left inside Chinese text (第50 条, 4 （b）)."""
    return re.sub(r"(?<=[\u4e00-\u9fff0-9A-Za-z（）()，。；：])[ \u3000]+(?=[\u4e00-\u9fff0-9（）()，。；：])", "", text)


def mark_lost(text: str) -> str:
    """Show where witness 002 lost digits or letters in a reference (第条款 -> 第□条□款)."""
    text = re.sub(r"(?<=[第、阅用见照述和及或])(?=条)", LOST_MARK, text)
    text = re.sub(r"(?<=条)(?=款)", LOST_MARK, text)
    text = re.sub(r"(?<=[阅述见])(?=款)", LOST_MARK, text)
    text = re.sub(r"(?<=超过)(?=线)", LOST_MARK, text)          # 超过7线: the 7 is gone
    return text.replace("（）", f"（{LOST_MARK}）")


def variants(segs: list[Segment]) -> list[dict]:
    """Differences between the base witness and each other witness, after normalisation."""
    out = []
    base = segs[0]
    for other in segs[1:]:
        strip = base.sigil in LOST_DIGITS or other.sigil in LOST_DIGITS
        a, b = _form(base.text, strip), _form(other.text, strip)
        if a == b:
            continue
        sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for op, i1, i2, j1, j2 in sm.get_opcodes():
            if op == "equal":
                continue
            if op == "delete" and j1 == len(b) and other.extra.get("truncated"):
                continue        # the witness breaks off here: a loss, noted on the record, not a variant
            out.append({"witnesses": [base.sigil, other.sigil],
                        "readings": {base.sigil: a[i1:i2], other.sigil: b[j1:j2]},
                        "context": a[max(0, i1 - 6):i1] + "…" + a[i2:i2 + 6]})
    return out


def _trust(work: str, sigil: str) -> int:
    """A witness's rank in its work's order of trust (kb/data/works.toml)."""
    order = works.get(work).witnesses
    if sigil not in order:
        raise KbError(f"kb/data/works.toml: work '{work}' does not list witness {sigil} among its witnesses")
    return order.index(sigil)


def _form(text: str, strip_lost: bool) -> str:
    form = comparison_form(text)
    return re.sub(r"[0-9A-Za-z]", "", form) if strip_lost else form


def _emendations(work: str) -> dict[str, list[tuple[str, str, str, str]]]:
    out: dict[str, list] = defaultdict(list)
    for row in read_table(EMENDATIONS):
        if row["work"] == work:
            out[row["citation"]].append((row["wrong"], row["right"], row["support"], row["why"]))
    return out


def collate_mahjong(work: str, segments: list[Segment]) -> list[Record]:
    records = []
    emend = _emendations(work)
    for i, seg in enumerate(segments):
        title = mahjong_punctuation(seg.title)
        text = mahjong_punctuation(seg.text)
        notes = list(seg.notes)
        text, title = emend_reading(work, seg.cite, text, title, [seg], emend.pop(seg.cite, []), notes)
        parent = seg.extra.get("parent")
        records.append(Record(
            id=f"{work}:{seg.cite}", work=work, citation=seg.extra["citation"], level=seg.extra["level"],
            parent=f"{work}:{parent}" if parent else None, order=i, path=seg.cite.split("."),
            title_hans=title, title_hant=to_hant(title), text_hans=text, text_hant=to_hant(text),
            witnesses=[Witness(seg.source, seg.sigil, list(seg.lines), seg.text, seg.title)],
            notes=notes, tai=seg.extra.get("tai")))
    if emend:
        raise KbError(f"kb/data/emendations.tsv: no such clause in {work}: {', '.join(emend)}")
    return records


def mahjong_punctuation(text: str) -> str:
    """Chinese punctuation for the mahjong text, which was typed with ASCII punctuation."""
    t = to_hans(text)
    t = t.replace("不求.自摸", "不求·自摸")
    t = re.sub(r"(?<=[\u4e00-\u9fff）)])\.(?=[\u4e00-\u9fff])", "、", t)
    t = re.sub(r"\s*\.?\s*;+\s*", "；", t)
    t = re.sub(r"\s*,\s*", "，", t)
    t = re.sub(r"\s*:\s*", "：", t)
    t = t.replace("(", "（").replace(")", "）")
    t = re.sub(r"\.\s*(?=[（\u4e00-\u9fff]|$)", "。", t)
    t = re.sub(r"”([^“”]{1,12})”", r"“\1”", t)
    t = re.sub(r"\s*([，。；：（）、“”])\s*", r"\1", t)
    return t.replace("。。", "。").replace("；。", "。").strip()
