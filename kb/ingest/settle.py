"""Stage: settled readings. Where the witnesses of a clause disagree on a character, and more of
them (or the other translation) agree against the witness the text was taken from, the text takes
the reading they agree on, and a note says so.

Collation takes a clause's text from its most trusted witness (kb/data/works.toml), and lists
where the others differ. That alone lets a slip in the most trusted witness stand in the published
text although the others read right: witness 004 reading 任占 where 000 and 002 read 任何. The rule
here, for every place where the published text (title or text) and a witness read a different
character or few (a substitution of the same length, at most ``MAX_CHARS``):

- each witness of the clause votes for what it reads at that place (aligned as the variants are,
  after normalisation, ignoring punctuation; witness 002 where it lost its digits and letters
  does not vote on them);
- the twin translation (kb/data/works.toml ``twin``, its clause as kb/ingest/twins.py pairs them) votes
  for one reading when its text holds that reading with ``CONTEXT`` characters on either side as
  the clause has them, and not the other: the same words at the same place;
- the reading with the most votes is taken when it has more than the published one. A tie keeps
  the published reading (the most trusted witness), as collation always did.

Only the published reading of the witness the text was taken from is ever replaced: where an
editor's emendation (kb/data/emendations.tsv) or restoration already changed that place, the
editor decided it. The witnesses' own readings and the variants are kept as they were; the note
(kind ``settled``) names who reads what.
"""
from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, replace

from kb.core.records import Record
from kb.ingest.normalise import to_hans, to_hant

LOST_DIGITS = {"002"}       # witnesses that lost every Arabic digit and clause letter (as collate says)
MAX_CHARS = 3               # the longest substitution settled: a character or a few, not a phrase
CONTEXT = 2                 # characters on either side the twin translation must share
_WORD = re.compile(r"\w", re.UNICODE)
_LOST = re.compile(r"[0-9A-Za-z]")


def settle_readings(records: list[Record], twins: dict[str, str | None]) -> list[Record]:
    """New records, each text and title with the readings its witnesses settle (see above);
    ``twins``: each record's clause in the twin translation (kb.ingest.twins.twin_ids)."""
    by_id = {r.id: r for r in records}
    out = []
    for rec in records:
        if len(rec.witnesses) < 2:
            out.append(rec)
            continue
        mate = by_id.get(twins.get(rec.id) or "")
        twin = (mate.id, _form(mate.title_hans + "\n" + mate.text_hans, False)[0]) if mate else None
        text, text_notes = settle(rec.text_hans, [(w.sigil, to_hans(w.text)) for w in rec.witnesses], twin, "text")
        title, title_notes = settle(rec.title_hans, [(w.sigil, to_hans(w.title)) for w in rec.witnesses],
                                    twin, "title")
        if text_notes or title_notes:
            rec = replace(rec, text_hans=text, text_hant=to_hant(text), title_hans=title,
                          title_hant=to_hant(title), notes=rec.notes + title_notes + text_notes)
        out.append(rec)
    return out


def settle(published: str, readings: list[tuple[str, str]], twin: tuple[str, str] | None,
           where: str) -> tuple[str, list[dict]]:
    """The published reading (a text or a title, Simplified) with the places its witnesses settle,
    and a note for each. ``readings``: (sigil, the witness's own reading in Simplified), most trusted
    first, the first that has one being the reading's source; ``twin``: (id, comparison form) of
    the clause in the twin translation."""
    readings = [(sigil, own) for sigil, own in readings if own]
    if len(readings) < 2 or not published:
        return published, []
    source = readings[0][0]
    aligned = [(sigil, Alignment(published, own, sigil in LOST_DIGITS or source in LOST_DIGITS))
               for sigil, own in readings]
    places = sorted({place for _, al in aligned[1:] for place in al.substitutions()})
    changes: list[tuple[int, int, str, dict[str, list[str]]]] = []
    for start, end in places:
        ours = _word(published[start:end])
        if aligned[0][1].reads(start, end) != ours:
            continue                 # an editor's emendation or restoration already decided this place
        voters: dict[str, list[str]] = {}
        for sigil, al in aligned:
            read = al.reads(start, end)
            if read is not None:
                voters.setdefault(read, []).append(f"抄本{sigil}")
        if twin is not None:
            held = _twin_reads(published, start, end, voters, twin[1])
            if held is not None:
                voters[held].append(f"另一译本 {twin[0]}")
        ranked = sorted(voters.items(), key=lambda kv: -len(kv[1]))
        best, who = ranked[0]
        if best != ours and len(who) > len(voters[ours]) and (len(ranked) == 1 or len(ranked[1][1]) < len(who)) \
                and not any(s < end and start < e for s, e, _, _ in changes):   # one decision per place
            changes.append((start, end, best, voters))
    notes = []
    settled = published
    for start, end, best, voters in changes:       # same lengths: the places do not move
        ours = published[start:end]
        settled = settled[:start] + best + settled[end:]
        around = slice(max(0, start - CONTEXT), end + CONTEXT)
        notes.append({"kind": "settled",
                      "what": f"{published[around]} → {settled[around]}：{'、'.join(voters[_word(ours)])}作“{ours}”，"
                              f"{'、'.join(voters[best])}作“{best}”，从多数",
                      "from": "、".join(voters[best]), "where": where, "span": [start, end],
                      "readings": {"published": ours, "taken": best}})
    return settled, notes


def _twin_reads(published: str, start: int, end: int, voters: dict[str, list[str]], twin_form: str) -> str | None:
    """The one reading among ``voters`` the twin translation holds at the same place: with the
    CONTEXT characters either side that the published text has there (None if it holds none, or
    more than one)."""
    form, index = _form(published, False)
    f1, f2 = _form_range(index, start, end)
    left, right = form[max(0, f1 - CONTEXT):f1], form[f2:f2 + CONTEXT]
    if len(left) + len(right) < 2 * CONTEXT:
        return None
    held = [r for r in voters if left + r + right in twin_form]
    return held[0] if len(held) == 1 else None


def _word(text: str) -> str:
    return "".join(_WORD.findall(unicodedata.normalize("NFKC", text)))


def _form(text: str, strip_lost: bool) -> tuple[str, list[int]]:
    """The comparison form of a Simplified text (its word characters) and, for each of them, its
    index in the text."""
    chars, index = [], []
    for i, ch in enumerate(text):
        for c in unicodedata.normalize("NFKC", ch):
            if _WORD.match(c) and not (strip_lost and _LOST.match(c)):
                chars.append(c)
                index.append(i)
    return "".join(chars), index


def _form_range(index: list[int], start: int, end: int) -> tuple[int, int]:
    inside = [k for k, i in enumerate(index) if start <= i < end]
    return (inside[0], inside[-1] + 1) if inside else (0, 0)


@dataclass
class Alignment:
    """A witness's reading aligned with the published text, as the variants are (comparison forms)."""

    published: str
    own: str
    strip: bool

    def __post_init__(self) -> None:
        self.a, self.index = _form(self.published, self.strip)
        self.b, _ = _form(self.own, self.strip)
        self.ops = difflib.SequenceMatcher(None, self.a, self.b, autojunk=False).get_opcodes()

    def substitutions(self) -> list[tuple[int, int]]:
        """Where the witness reads other characters, as many, as the published text: text ranges
        of the published text (only runs of word characters)."""
        out = []
        for op, i1, i2, j1, j2 in self.ops:
            if op == "replace" and i2 - i1 == j2 - j1 <= MAX_CHARS:
                start, end = self.index[i1], self.index[i2 - 1] + 1
                if _word(self.published[start:end]) == self.a[i1:i2]:
                    out.append((start, end))
        return out

    def reads(self, start: int, end: int) -> str | None:
        """What the witness reads where the published text has [start, end); None where that cannot
        be said (the witness lacks the place, or differs there in length)."""
        f1, f2 = _form_range(self.index, start, end)
        if f1 == f2 or _word(self.published[start:end]) != self.a[f1:f2]:
            return None
        for op, i1, i2, j1, j2 in self.ops:
            if i1 <= f1 and f2 <= i2:
                if op == "equal":
                    return self.a[f1:f2]
                if op == "replace" and i2 - i1 == j2 - j1:
                    return self.b[j1 + f1 - i1:j1 + f2 - i1]
                return None
        return None
