"""A record as a person reads it in a terminal."""
from __future__ import annotations

from kb.core.records import Record


def format_record(rec: Record, records: list[Record] | None = None) -> str:
    lines = [f"{rec.id}  {rec.citation}  {rec.title_hans}" + (f" / {rec.title_hant}" if rec.title_hant != rec.title_hans else "")]
    if rec.tai:
        lines.append(f"台数: {rec.tai}")
    if rec.parent:
        lines.append(f"上级: {rec.parent}")
    if rec.text_hans:
        lines += [f"简体: {rec.text_hans}", f"繁體: {rec.text_hant}"]
    if records is not None:
        children = [r for r in records if r.parent == rec.id]
        if children:
            lines.append("下级: " + "  ".join(f"{c.citation} {c.title_hans}" for c in children))
    for w in rec.witnesses:
        lines.append(f"出处: {w.source} 行 {w.lines[0]}–{w.lines[1]}")
    for f in rec.footnotes:
        lines.append(f"脚注 [{f['n']}]: {f.get('text_hans', f['text'])}")
    for v in rec.variants:
        lines.append("异文: " + " | ".join(f"{k}: {t or '∅'}" for k, t in v["readings"].items()) + f"  ({v['context']})")
    for n in rec.notes:
        lines.append(f"注 [{n['kind']}]: {n['what']} (据 {n['from']})")
    for ref in rec.refs:
        lines.append(f"引用: {ref['text']} → {ref.get('target') or '—'} [{ref['status']}]")
    if rec.cited_by:
        lines.append("被引用: " + ", ".join(rec.cited_by))
    if rec.twin:
        lines.append(f"另一译本: {rec.twin}")
    if rec.concordance:
        first = rec.concordance[0]
        cites = "、".join(e["citation"] for e in rec.concordance if e["citation"]) or "—"
        lines.append(f"{first['code']} 版: {cites} [{first['change']}] (据 {first['authority']})")
    if rec.subjects:
        lines.append("索引词: " + "、".join(rec.subjects))
    if rec.questions:
        lines.append("问法: " + " | ".join(rec.questions))
    if rec.english:
        lines.append("英文检索词: " + "; ".join(rec.english))
    return "\n".join(lines)
