"""The whoosh schema of the search index and its jieba tokenizers.

Terms come from ``analysis.analyze`` with the build's corpus-trimmed ``Lexicon`` (jieba's
algorithm and dictionary, without importing jieba), the same cutter the engine cuts
queries with. Folding (fullwidth, t2s, lowercase) and the joining of a negator to the
next word happen inside the tokenizer, not in filters after it: both change where the
text is cut (t2s changes the characters jieba sees; 不 + 判罚 -> 不判罚 marks the grams of
判罚 as negated), so they must precede the cut.

Fields: ``id`` (ID, stored, unique), ``work`` (ID, stored), the display fields and the record's
``concordance`` (its 2017 citations, read by ``inforce``) (STORED);
``title`` (title_hans), ``text`` (text_hans), ``context`` (the ancestors' titles, also
stored), ``subjects`` (the record's subject-index terms, kb/ingest/subjects.py, one per line, also
stored), ``questions`` (the questions people ask that it answers, one per line, also stored: a
field of their own, so that a clause's many whole-sentence questions neither lengthen nor
outweigh its few subject terms), ``english`` (the record's English phrases, one per line;
English words by their stem): TEXT, jieba words
with sequential positions, so whoosh phrase queries work; ``bigram`` and ``unigram``
(``GramField``): the negation-marked character grams of title + text + subjects + questions,
with their frequencies (no positions: nothing asks a gram's place), given to whoosh already
counted (``term_counts``: the word fields and the grams come from one cached ``analyze`` call per
text). The ranking reads all of them through whoosh's postings (``postings``).
"""
from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator
from typing import Any

from whoosh import fields, formats
from whoosh.analysis import Token, Tokenizer
from whoosh.system import pack_uint

from kb.core.errors import KbError
from kb.search.analysis import Analysis, analyze
from kb.search.lexicon import Lexicon

WORD_FIELDS = ("title", "text", "context", "subjects", "questions", "english")
GRAM_FIELDS = ("bigram", "unigram")
STORED = ("level", "pathkey", "order", "law", "citation", "citation_hant", "parent", "twin", "tai",
          "title_hans", "title_hant", "text_hans", "text_hant", "concordance")


@functools.lru_cache(maxsize=16)
def cached_analysis(value: str, lexicon: Lexicon) -> Analysis:
    """``analyze`` of the texts of the document being added (each is cut for several fields)."""
    return analyze(value, lexicon)


def index_terms(subjects: list[str], questions: list[str]) -> list[str]:
    """A record's search aids where a quoted phrase or a query's characters are looked for
    beside its title and text: its subject terms, then its questions."""
    return [*subjects, *questions]


def bare_heading(text_hans: str | None, has_clauses: bool) -> bool:
    """A clause with no text of its own and clauses under it (a law's or a section's title)."""
    return has_clauses and not (text_hans or "").strip()


def term_counts(fields: dict[str, str], lexicon: Lexicon, body: tuple[str, ...]) -> dict[str, dict[str, int]]:
    """The terms with their frequencies that the tokenizer makes of each word field's value,
    and the character grams of the ``body`` fields' values (one text of them, a line each).

    The grams of lines are the grams of each line (a line break ends a run: no gram, and no
    negation, reaches across it), so they are summed from the fields' own analyses, not cut
    again (a test checks the sums against an analysis of the joined text)."""
    out: dict[str, dict[str, int]] = {}
    bigrams: Counter[str] = Counter()
    unigrams: Counter[str] = Counter()
    for name in WORD_FIELDS:
        a = cached_analysis(fields.get(name) or "", lexicon)
        out[name] = dict(Counter(w for w, _, _ in a.words))
        if name in body:
            bigrams.update(a.bigrams)
            unigrams.update(a.unigrams)
    out["bigram"], out["unigram"] = dict(bigrams), dict(unigrams)
    return out


class GramField(fields.FieldType):
    """A field of character grams, indexed from their counts ({gram: frequency}), not from text."""

    def __init__(self) -> None:
        super().__init__(formats.Frequency(), None, scorable=True, stored=False)

    def index(self, value: Any, **kwargs: Any) -> Iterator[tuple[bytes, int, float, bytes]]:
        if not isinstance(value, dict):
            raise KbError(f"a gram field is indexed from its counts, not {type(value).__name__}")
        for term, freq in value.items():
            yield term.encode("utf-8"), freq, float(freq), pack_uint(freq)


class JiebaTokenizer(Tokenizer):
    """The words of a text, with positions and character offsets, cut by the lexicon.

    The lexicon is not pickled with the schema whoosh saves: an index opened for reading
    needs no tokenizer (queries are cut by the engine with the index's ``lexicon.json``).
    """

    def __init__(self, lexicon: Lexicon | None):
        self.lexicon = lexicon

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.lexicon = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JiebaTokenizer)

    def __hash__(self) -> int:
        return hash(JiebaTokenizer)

    def __call__(self, value: str, positions: bool = False, chars: bool = False,
                 keeporiginal: bool = False, removestops: bool = True, start_pos: int = 0,
                 start_char: int = 0, mode: str = "", **kwargs: Any) -> Iterator[Token]:
        if self.lexicon is None:
            raise KbError("this search tokenizer has no lexicon (it was loaded from an index); "
                          "cut text with the index's lexicon.json")
        a = cached_analysis(value, self.lexicon)
        t = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        for i, (word, start, end) in enumerate(a.words):
            t.text = word
            t.boost = 1.0
            if keeporiginal:
                t.original = value[start:end]
            if positions:
                t.pos = start_pos + i
            if chars:
                t.startchar = start_char + start
                t.endchar = start_char + end
            yield t


def make_schema(lexicon: Lexicon | None) -> fields.Schema:
    """The index schema; ``lexicon`` cuts the text fields when documents are added."""
    words = JiebaTokenizer(lexicon)
    stored: dict[str, fields.FieldType] = {name: fields.STORED() for name in STORED}
    return fields.Schema(
        id=fields.ID(stored=True, unique=True),
        work=fields.ID(stored=True),
        **{name: fields.TEXT(analyzer=words, phrase=True, stored=name in ("context", "subjects", "questions"))
           for name in WORD_FIELDS},
        **{name: GramField() for name in GRAM_FIELDS},
        **stored,
    )
