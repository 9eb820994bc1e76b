"""Retrieval through whoosh: each term's clauses and BM25 weights from whoosh's inverted index.

The ranker (``rank``) asks for one term of one field at a time. The answer comes from a whoosh
``Searcher`` over the index's postings (the word fields with positions, the character-gram fields
with frequencies), scored by ``ClauseBM25``, a ``whoosh.scoring.WeightingModel``: BM25 with the
ranking's k1 and b, and each clause's exact field length. whoosh keeps a field's lengths as one
byte per document (a lossy code: 13 and 14 words read the same), which would break the browser
engine's agreement to the last digit, so the exact lengths are a small dense table of the index
(``lengths.json``: a list of ints per field, 8 × 475 numbers, 11 KB here; 90 KB at 10 × the
corpus and about 0.9 MB at 100 ×, read in milliseconds: bench/scale.py). Nothing else per clause is read for ranking: a term's
postings are read when a query first asks for it, and kept (bounded by the index's terms).
"""
from __future__ import annotations

import json
import math
import threading
from pathlib import Path
from typing import Any

import whoosh.index
from whoosh.matching import Matcher
from whoosh.reading import IndexReader
from whoosh.scoring import BaseScorer, WeightingModel
from whoosh.searching import Searcher

from kb.core.errors import KbError

LENGTHS_FILE = "lengths.json"


class ClauseScorer(BaseScorer):
    """One term's BM25 in one field: idf · tf · (k1 + 1) / (tf + norm[clause])."""

    def __init__(self, idf: float, k1: float, norm: list[float]):
        self.idf, self.k1, self.norm = idf, k1, norm

    def supports_block_quality(self) -> bool:
        return False

    def score(self, matcher: Matcher) -> float:
        tf = matcher.weight()
        return self.idf * tf * (self.k1 + 1) / (tf + self.norm[matcher.id()])


class ClauseBM25(WeightingModel):
    """BM25 over exact field lengths (``norm``: each field's k1 · (1 − b + b · length / mean))."""

    def __init__(self, k1: float, norm: dict[str, list[float]], count: int):
        self.k1, self.norm, self.count = k1, norm, count

    def scorer(self, searcher: Searcher, fieldname: str, text: bytes, qf: int = 1) -> ClauseScorer:
        df = searcher.doc_frequency(fieldname, text)
        idf = math.log(1.0 + (self.count - df + 0.5) / (df + 0.5))
        return ClauseScorer(idf, self.k1, self.norm[fieldname])


class Postings:
    """An opened whoosh index: its reader, the dense table of field lengths, and searchers."""

    def __init__(self, index_dir: Path):
        self.index_dir = index_dir
        try:
            self.lengths: dict[str, list[int]] = json.loads((index_dir / LENGTHS_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise KbError(f"{index_dir / LENGTHS_FILE}: unreadable field lengths ({exc})") from None
        self._ix = whoosh.index.open_dir(str(index_dir))
        self.reader: IndexReader = self._ix.reader()
        self.count = self.reader.doc_count_all()
        if self.reader.has_deletions():
            raise KbError(f"{index_dir}: the search index has deleted documents (run `kb build`)")
        bad = [f for f, row in self.lengths.items() if not isinstance(row, list) or len(row) != self.count]
        if bad:
            raise KbError(f"{index_dir / LENGTHS_FILE}: the lengths of {bad[0]} are not one per document")
        self._lock = threading.Lock()   # whoosh's readers are not documented as thread-safe

    def searcher(self, model: ClauseBM25) -> Searcher:
        """A whoosh searcher over the shared reader, scoring by ``model``."""
        return Searcher(self.reader, weighting=model, closereader=False)

    def has(self, field: str, term: str) -> bool:
        """Some clause holds ``term`` in ``field``."""
        return (field, term.encode("utf-8")) in self.reader

    def scores(self, searcher: Searcher, field: str, term: str) -> dict[int, float]:
        """Every clause holding the term, with its score by the searcher's model."""
        btext = term.encode("utf-8")
        with self._lock:
            if (field, btext) not in self.reader:
                return {}
            m = searcher.postings(field, btext)
            out: dict[int, float] = {}
            while m.is_active():
                out[m.id()] = m.score()
                m.next()
        return out

    def document_counts(self) -> list[dict[str, dict[str, int]]]:
        """Each document's terms with their frequencies per field, read back from the postings (the
        site's browser index is made of these: it reads text exactly as the server does)."""
        fields = list(self.lengths)
        out: list[dict[str, dict[str, int]]] = [{f: {} for f in fields} for _ in range(self.count)]
        with self._lock:
            for f in fields:
                for btext in self.reader.lexicon(f):
                    term = btext.decode("utf-8")
                    m = self.reader.postings(f, btext)
                    while m.is_active():
                        out[m.id()][f][term] = int(m.weight())
                        m.next()
        return out

    def close(self) -> None:
        self.reader.close()

    def stats(self) -> dict[str, Any]:
        return {"documents": self.count, "fields": {f: sum(r) for f, r in self.lengths.items()}}
