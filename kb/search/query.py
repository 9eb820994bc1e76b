"""Searching the clause index: plain words, quoted phrases, citations, synonyms, snippets.

A query is never parsed as whoosh syntax: it is split into citations (see
``citations``), quoted phrases and jieba words, and the whoosh query is built from
those, so AND/OR/NOT, ``*``, ``field:`` or a stray quote are only text.

Ranking: each query word becomes a group (the word, its synonyms, and for
single-character groups its rewrites), searched in the title, text, ancestor titles
and character-gram fields with BM25F. Candidates are then re-ranked so that a clause
containing every (findable) word comes first, the rest ordered by score scaled by the
share of words they contain. Quoted phrases are required.
"""
from __future__ import annotations

import heapq
import html
import math
import os
import re
import threading
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from whoosh import index as whoosh_index
from whoosh.query import And, NumericRange, Or, Phrase, Prefix, Query, Term
from whoosh.scoring import BM25F

from kb import works
from kb.errors import KbError
from kb.normalise import to_hant
from kb.search.analysis import gram_sequence, is_traditional, normalize, segmenter, strip_controls, words
from kb.search.citations import Cite, split_citations
from kb.search.index import open_index
from kb.search.synonyms import Synonyms, load_synonyms


def build_dir() -> Path:
    """The build directory: $KB_BUILD_DIR or ./build (as ``kb --build-dir`` sets it)."""
    return Path(os.environ.get("KB_BUILD_DIR") or "build")


def default_records() -> Path:
    return build_dir() / "records.jsonl"


def default_index() -> Path:
    return build_dir() / "index"


WORK_ORDER = works.work_ids()
MAX_QUERY_CHARS = 1000
MAX_GROUPS = 24
MAX_LIMIT = 1000
SNIPPET_CHARS = 120

TITLE_BOOST = 2.5
TEXT_BOOST = 1.0
CONTEXT_BOOST = 0.4
GRAM_BOOST = 0.3
SYNONYM_WEIGHT = 0.85
LEAF_CACHE_SIZE = 20000  # matches of single-term / phrase queries kept per open index
SUBWORD_WEIGHT = 0.3     # the dictionary words inside a long compound (门清一摸三 -> 门清)
SUBWORD_MIN_LEN = 4
COVERAGE_POWER = 1.0
STRICT_TIER = True  # clauses containing every findable query word rank first
CANDIDATES = 200  # candidates re-ranked by coverage
MAX_DF_SHARE = 0.3  # a word in more than this share of clauses counts as common

# Query-only stopwords (the index keeps every word, so phrases still match them).
STOPWORDS = frozenset("""
的 了 吗 呢 么 吧 啊 呀 哦 嘛 是 在 有 和 与 及 或 或者 把 被 这 那 这个 那个 个
怎么 怎么样 怎样 如何 什么 啥 哪 哪些 哪个 哪里 为什么 可以 可不可以 能 能否 能不能
是否 是不是 会 会不会 要 需要 应该 应当 请问 问 问题 情况 时候 算 几 多少 谁 怎么办
and or not the a an of to is in on for what how does do can
""".split())
QUESTION_PREFIXES = ("多少", "几")

_PHRASE_RE = re.compile(r'"([^"]*)"|“([^”]*)”|「([^」]*)」|『([^』]*)』|《([^》]*)》')
_QUOTES = '"“”「」『』《》'


SCORED_FIELDS = ("title", "text", "context", "grams")


class CachedLengthBM25F(BM25F):
    """BM25F reading field lengths from lists filled once per process.

    Same scores as whoosh's BM25F; whoosh looks each length up in a column file, which
    was a fifth of the query time.
    """

    def __init__(self, lengths: dict[str, list[int]], **kwargs: Any):
        super().__init__(**kwargs)
        self.lengths = lengths

    def scorer(self, searcher: Any, fieldname: str, text: bytes, qf: int = 1) -> Any:
        sc = super().scorer(searcher, fieldname, text, qf)
        table = self.lengths.get(fieldname)
        if table is not None and hasattr(sc, "dfl") and searcher.is_atomic():
            sc.dfl = lambda docid: table[docid] or 1
        return sc


@dataclass
class Group:
    """One query word (or quoted phrase) and the strings that count as it."""

    label: str
    alts: list[tuple[str, float]] = field(default_factory=list)   # normalized, weight
    required: bool = False

    def strings(self) -> list[str]:
        return [a for a, _ in self.alts]


@dataclass
class ParsedQuery:
    """A query taken apart: citations, word groups, required phrases, display script."""

    cites: list[Cite]
    groups: list[Group]
    script: str

    @property
    def empty(self) -> bool:
        return not self.cites and not self.groups


def clean_query(q: Any) -> str:
    """Type and length checks, control characters removed; KbError if unusable."""
    if not isinstance(q, str):
        raise KbError("query must be text")
    if len(q) > MAX_QUERY_CHARS:
        raise KbError(f"query too long: {len(q)} characters (at most {MAX_QUERY_CHARS})")
    return strip_controls(q)


class SearchEngine:
    """An open index with its searcher, stored documents and synonyms (one per process)."""

    def __init__(self, ix: whoosh_index.Index, synonyms: Synonyms | None = None):
        self.ix = ix
        weighting = CachedLengthBM25F({})
        self.searcher = ix.searcher(weighting=weighting)
        reader = self.searcher.reader()
        weighting.lengths.update(
            (f, [reader.doc_field_length(d, f, 0) for d in range(reader.doc_count_all())])
            for f in SCORED_FIELDS if f in ix.schema)
        self.syn = synonyms or load_synonyms()
        self._lock = threading.Lock()
        self._df: dict[tuple[str, str], int] = {}
        self._idf_cache: dict[str, float] = {}
        self._leaf_cache: dict[tuple[str, str], tuple[tuple[int, float], ...]] = {}
        self.docs: dict[int, dict[str, Any]] = {}
        self.by_id: dict[str, int] = {}
        self.hay: dict[int, str] = {}
        for docnum, fields in reader.iter_docs():
            self.docs[docnum] = fields
            self.by_id[fields["id"]] = docnum
            self.hay[docnum] = normalize("\n".join(
                fields.get(f) or "" for f in ("title_hans", "text_hans", "context")))
        self.corpus = "\n".join(self.hay.values())
        self.doc_count = max(1, len(self.docs))
        self.works = sorted({d["work"] for d in self.docs.values()},
                            key=lambda w: (WORK_ORDER.index(w) if w in WORK_ORDER else 99, w))

    @classmethod
    def open(cls, records_path: Path | str | None = None,
             index_dir: Path | str | None = None) -> SearchEngine:
        """Open (rebuilding first if stale) the index of ``records_path``."""
        return cls(open_index(records_path or default_records(), index_dir or default_index()))

    def close(self) -> None:
        self.searcher.close()
        self.ix.close()

    # --- parsing ------------------------------------------------------------------

    def parse(self, q: str, script: str | None = None) -> ParsedQuery:
        """Split a cleaned query into citations, phrase groups and word groups."""
        shown = script or ("hant" if is_traditional(q) else "hans")
        cites, rest = split_citations(q)
        rest = normalize(rest)
        groups: list[Group] = []
        seen: set[str] = set()

        def phrase(m: re.Match[str]) -> str:
            text = " ".join(next(g for g in m.groups() if g is not None).split())
            toks = words(text)
            if toks and text not in seen:
                seen.add(text)
                if len(toks) == 1 and toks[0] in STOPWORDS:
                    return " "
                groups.append(Group(text, [(text, 1.0)], required=True))
            return " "

        rest = _PHRASE_RE.sub(phrase, rest)
        rest = "".join(" " if ch in _QUOTES else ch for ch in rest)
        for w in words(rest):
            for p in QUESTION_PREFIXES:
                if w.startswith(p) and len(w) > len(p):
                    w = w[len(p):]
            if w in STOPWORDS or w in seen:
                continue
            seen.add(w)
            groups.append(self._group(w))
            if len(groups) >= MAX_GROUPS:
                break
        return ParsedQuery(cites, groups, shown)

    def _group(self, w: str) -> Group:
        alts: list[tuple[str, float]] = [(w, 1.0)]
        names = {w}
        for s in self.syn.expand(w):
            if s not in names and s not in STOPWORDS:
                names.add(s)
                alts.append((s, SYNONYM_WEIGHT))
        for s in self.syn.char_rewrites(w):
            if s not in names and s in self.corpus:
                names.add(s)
                alts.append((s, SYNONYM_WEIGHT))
        if len(w) >= SUBWORD_MIN_LEN:
            for s in segmenter().cut_for_search(w):
                if len(s) >= 2 and s not in names and s not in STOPWORDS and s in self.corpus:
                    names.add(s)
                    alts.append((s, SUBWORD_WEIGHT))
        return Group(w, alts)

    # --- whoosh queries -----------------------------------------------------------

    @staticmethod
    def _field_query(fieldname: str, toks: Sequence[str], boost: float,
                     phrase: bool = True) -> Query:
        if len(toks) == 1:
            return Term(fieldname, toks[0], boost=boost)
        if phrase:
            return Phrase(fieldname, list(toks), boost=boost)
        return And([Term(fieldname, t) for t in toks], boost=boost)

    def _alt_leaves(self, s: str, weight: float) -> list[Query]:
        """Field queries for one string: title, text, ancestor titles, character grams.

        A single character gets no gram leaf (the text leaf and the substring coverage
        test already see it).
        """
        toks = words(s)
        seq = gram_sequence(s)
        if not toks or not seq:
            return []
        subs = [self._field_query("title", toks, TITLE_BOOST * weight),
                self._field_query("text", toks, TEXT_BOOST * weight)]
        if CONTEXT_BOOST > 0:
            subs.append(self._field_query("context", toks, CONTEXT_BOOST * weight,
                                          phrase=False))
        if GRAM_BOOST > 0 and (len(seq) > 1 or len(seq[0]) > 1):
            subs.append(self._field_query("grams", seq, GRAM_BOOST * weight))
        return subs

    def _is_common(self, g: Group) -> bool:
        """True if every string of the group is one word found in most clauses."""
        for s in g.strings():
            toks = words(s)
            if len(toks) != 1:
                return False
            key = ("text", toks[0])
            df = self._df.get(key)
            if df is None:
                df = self._df[key] = self.searcher.doc_frequency("text", toks[0])
            if df <= MAX_DF_SHARE * self.doc_count:
                return False
        return True

    def _group_query(self, g: Group) -> Query | None:
        """One Or of all field queries of a group's strings (for required phrases)."""
        leaves = [leaf for s, w in g.alts for leaf in self._alt_leaves(s, w)]
        if not leaves:
            return None
        return leaves[0] if len(leaves) == 1 else Or(leaves)

    def _filter(self, work: str | None, law_range: tuple[int, int] | None,
                cites: Iterable[Cite] = ()) -> Query | None:
        parts: list[Query] = []
        if work:
            parts.append(Term("work", work))
        if law_range:
            parts.append(NumericRange("law", law_range[0], law_range[1]))
        cite_qs: list[Query] = []
        for c in cites:
            q: Query = Prefix("pathkey", c.pathkey)
            if c.work:
                q = And([q, Term("work", c.work)])
            cite_qs.append(q)
        if cite_qs:
            parts.append(Or(cite_qs) if len(cite_qs) > 1 else cite_qs[0])
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else And(parts)

    # --- searching ----------------------------------------------------------------

    def search(self, q: str, *, limit: int = 10, work: str | None = None,
               law_range: tuple[int, int] | None = None,
               script: str | None = None) -> list[dict[str, Any]]:
        """Search; see the module docstring. Bad arguments raise KbError."""
        q = clean_query(q)
        self._check_args(limit, work, law_range, script)
        parsed = self.parse(q, script)
        if parsed.empty:
            return []
        with self._lock:
            if not parsed.groups:
                ranked = self._by_citation(parsed.cites, work, law_range)
            elif parsed.cites:
                # Words within the cited law(s) first, then the cited clause itself if
                # no word matched there, then word matches elsewhere.
                ranked = self._by_words(parsed, limit,
                                        self._filter(work, law_range, parsed.cites))
                if not ranked:
                    ranked = self._by_citation(parsed.cites, work, law_range)
                seen = {n for n, _ in ranked}
                ranked += [(n, sc) for n, sc in
                           self._by_words(parsed, limit, self._filter(work, law_range))
                           if n not in seen]
            else:
                ranked = self._by_words(parsed, limit, self._filter(work, law_range))
                if work is None:
                    ranked = self._with_twins(ranked)
            return [self._result(docnum, score, parsed) for docnum, score in ranked[:limit]]

    def _with_twins(self, ranked: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """Put each bridge clause's twin in the other translation right after it.

        Both translations follow the 1997 lettering, so cbr1999:45C4b and laws1997:45C4b
        are the same clause: a director who asked in one translation's words sees the other's
        wording of the clause next to it, not pages later.
        """
        out: list[tuple[int, float]] = []
        placed: set[int] = set()
        for docnum, score in ranked:
            if docnum in placed:
                continue
            out.append((docnum, score))
            placed.add(docnum)
            doc_id = self.docs[docnum]["id"]
            work, _, local = doc_id.partition(":")
            twin_work = works.twin_of(work)
            twin = self.by_id.get(f"{twin_work}:{local}") if twin_work else None
            if twin is not None and twin not in placed:
                out.append((twin, score))
                placed.add(twin)
        return out

    def _check_args(self, limit: Any, work: Any, law_range: Any, script: Any) -> None:
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            raise KbError(f"limit must be a whole number from 1 to {MAX_LIMIT}, not {limit!r}")
        if work is not None and work not in self.works:
            known = ", ".join(self.works) or "none"
            raise KbError(f"unknown work {work!r} (known: {known})")
        if law_range is not None:
            ok = (isinstance(law_range, (tuple, list)) and len(law_range) == 2
                  and all(isinstance(x, int) and not isinstance(x, bool) for x in law_range)
                  and 0 <= law_range[0] <= law_range[1])
            if not ok:
                raise KbError(f"law range must be two law numbers, low to high, not {law_range!r}")
        if script not in (None, "hans", "hant"):
            raise KbError(f"script must be hans or hant, not {script!r}")

    def _by_citation(self, cites: list[Cite], work: str | None,
                     law_range: tuple[int, int] | None) -> list[tuple[int, float]]:
        """The cited clause in each work that has it, then its sub-clauses in order."""
        works = [w for w in self.works if work is None or w == work]
        exact: list[int] = []
        fallback: list[int] = []
        below: list[int] = []
        for c in cites:
            if law_range and (c.law is None or not law_range[0] <= c.law <= law_range[1]):
                continue
            for w in works:
                if c.work and w != c.work:
                    continue
                docnum = self.by_id.get(f"{w}:{c.suffix}")
                if docnum is not None:
                    exact.append(docnum)
                    continue
                for n in range(len(c.path) - 1, 0, -1):  # nearest ancestor that exists
                    anc = Cite(c.law, c.path[:n], work=c.work)
                    docnum = self.by_id.get(f"{w}:{anc.suffix}")
                    if docnum is not None:
                        fallback.append(docnum)
                        break
            for docnum, d in self.docs.items():
                if (d.get("pathkey", "").startswith(c.pathkey) and d["pathkey"] != c.pathkey
                        and d["work"] in works and (not c.work or d["work"] == c.work)):
                    below.append(docnum)
        below.sort(key=lambda n: (self.works.index(self.docs[n]["work"]),
                                  self.docs[n].get("order") or 0))
        out: list[tuple[int, float]] = []
        seen: set[int] = set()
        for docnum, score in ([(n, 100.0) for n in exact] + [(n, 50.0) for n in fallback]
                              + [(n, 10.0) for n in below]):
            if docnum not in seen:
                seen.add(docnum)
                out.append((docnum, score))
        return out

    def _by_words(self, parsed: ParsedQuery, limit: int,
                  filt: Query | None) -> list[tuple[int, float]]:
        required = [g for g in parsed.groups if g.required]
        optional = [g for g in parsed.groups if not g.required]
        req_qs = [q for q in map(self._group_query, required) if q is not None]
        # Words in most clauses (牌, 打出) add little to BM25 and cost the most time:
        # when rarer words are present, only the coverage re-rank looks at them.
        rare = [g for g in optional if not self._is_common(g)]
        leaves = [leaf for g in (rare or optional) for s, w in g.alts
                  for leaf in self._alt_leaves(s, w)]
        if required and not req_qs:
            return []
        allowed = self._docset(filt)
        if req_qs:
            must = req_qs[0] if len(req_qs) == 1 else And(req_qs)
            scores = self._scores([must], allowed)
            allowed = set(scores)
            if not allowed:
                return []
            for d, sc in self._scores(leaves, allowed).items():
                scores[d] += sc
        elif leaves:
            scores = self._scores(leaves, allowed)
        else:
            return []
        cands = heapq.nlargest(max(CANDIDATES, limit * 5), scores.items(),
                               key=lambda x: (x[1], -x[0]))
        if required:  # a phrase must occur as typed, not only as a run of grams
            cands = [(n, s) for n, s in cands
                     if all(any(a in self.hay[n] for a in g.strings()) for g in required)]
        alts = [g.strings() for g in optional]
        covered = {n: [any(a in self.hay[n] for a in ss) for ss in alts] for n, _ in cands}
        # Words no candidate contains (typos, 'AND', question words) do not count.
        weights = [self._idf(ss) if any(c[i] for c in covered.values()) else 0.0
                   for i, ss in enumerate(alts)]
        total = sum(weights)
        keyed = []
        for n, score in cands:
            got = sum(w for w, c in zip(weights, covered[n]) if c)
            share = got / total if total else 1.0
            keyed.append((share >= 1.0 - 1e-9 or not STRICT_TIER,
                          score * share ** COVERAGE_POWER, -n))
        keyed.sort(reverse=True)
        return [(-neg, score) for _, score, neg in keyed]

    def _idf(self, strings: Sequence[str]) -> float:
        """Inverse document frequency of a group: clauses containing any of its strings."""
        key = "\t".join(strings)
        idf = self._idf_cache.get(key)
        if idf is None:
            df = sum(1 for h in self.hay.values() if any(a in h for a in strings))
            idf = self._idf_cache[key] = math.log(1.0 + self.doc_count / (1.0 + df))
        return idf

    def _docset(self, filt: Query | None) -> set[int] | None:
        return None if filt is None else set(filt.docs(self.searcher))

    def _scores(self, queries: Sequence[Query],
                allowed: set[int] | None) -> defaultdict[int, float]:
        """Summed BM25F scores of each query's matches (an Or without whoosh's Or).

        Each query's matcher is read on its own: on an index this small, whoosh's Or
        matchers (a 2048-slot score array per Or, block-quality maxima at every match in
        the collector) cost several times more than the scoring itself.
        """
        acc: defaultdict[int, float] = defaultdict(float)
        for q in queries:
            for d, score in self._matches(q):
                if allowed is None or d in allowed:
                    acc[d] += score
        return acc

    def _matches(self, q: Query) -> tuple[tuple[int, float], ...]:
        """(docnum, score) of every match of one leaf query; the index is read-only, so a
        leaf's matches never change and are kept (bounded) for the next query that uses it."""
        key = (type(q).__name__, repr(q))
        hit = self._leaf_cache.get(key)
        if hit is None:
            s = self.searcher
            m = q.matcher(s, s.context())
            found = []
            while m.is_active():
                found.append((m.id(), m.score()))
                m.next()
            hit = tuple(found)
            if len(self._leaf_cache) >= LEAF_CACHE_SIZE:
                self._leaf_cache.pop(next(iter(self._leaf_cache)))
            self._leaf_cache[key] = hit
        return hit

    # --- results ------------------------------------------------------------------

    def _result(self, docnum: int, score: float, parsed: ParsedQuery) -> dict[str, Any]:
        d = self.docs[docnum]
        hant = parsed.script == "hant"
        title = (d.get("title_hant") if hant else None) or d.get("title_hans") or ""
        text = (d.get("text_hant") if hant else None) or d.get("text_hans") or ""
        terms = [a for g in parsed.groups for a in g.strings() if a in self.hay[docnum]]
        return {
            "id": d["id"], "work": d["work"],
            "citation": to_hant(d.get("citation", "")) if hant else d.get("citation", ""),
            "title": title, "score": round(float(score), 4),
            "snippet": highlight(text or title, terms),
        }


def highlight(display: str, terms: Iterable[str], width: int = SNIPPET_CHARS) -> str:
    """HTML snippet of ``display`` with each term occurrence in <mark>; everything escaped.

    Terms are normalized strings; they are found in ``normalize(display)``, which has
    the same length, so the marks fall on the text as shown (Traditional or Simplified).
    """
    if not display:
        return ""
    norm = normalize(display)
    taken = bytearray(len(norm))
    spans: list[tuple[int, int]] = []
    for t in sorted({t for t in terms if t}, key=len, reverse=True):
        start = norm.find(t)
        while start >= 0:
            end = start + len(t)
            if not any(taken[start:end]):
                spans.append((start, end))
                taken[start:end] = b"\x01" * (end - start)
            start = norm.find(t, start + 1)
    spans.sort()
    lo, hi = 0, len(display)
    if len(display) > width:
        best_lo, best_n = 0, -1
        for s, _ in spans:
            cand = max(0, min(s - width // 6, len(display) - width))
            n = sum(1 for a, b in spans if a >= cand and b <= cand + width)
            if n > best_n:
                best_lo, best_n = cand, n
        lo, hi = best_lo, best_lo + width
    out: list[str] = ["…"] if lo > 0 else []
    pos = lo
    for s, e in spans:
        if s >= lo and e <= hi:
            out.append(html.escape(display[pos:s]))
            out.append("<mark>" + html.escape(display[s:e]) + "</mark>")
            pos = e
    out.append(html.escape(display[pos:hi]))
    if hi < len(display):
        out.append("…")
    return "".join(out)


def plain_snippet(snippet: str) -> str:
    """A snippet without <mark> tags and entities, for people at a terminal."""
    return html.unescape(snippet.replace("<mark>", "").replace("</mark>", ""))


_engines: dict[tuple[str, str], tuple[SearchEngine, tuple[int, int]]] = {}
_engines_lock = threading.Lock()


def _stamp(path: Path) -> tuple[int, int]:
    try:
        st = path.stat()
    except OSError:
        return (-1, -1)
    return (st.st_mtime_ns, st.st_size)


def get_engine(records_path: Path | str | None = None,
               index_dir: Path | str | None = None) -> SearchEngine:
    """The process's engine for these paths, opened on first use.

    The index is checked (and rebuilt if stale) when the engine is opened; later calls
    reopen it if the records file has changed since (a stat, not a hash, per call).
    """
    records_path = Path(records_path or default_records())
    index_dir = Path(index_dir or default_index())
    key = (str(records_path.resolve()), str(index_dir.resolve()))
    stamp = _stamp(records_path)
    with _engines_lock:
        cached = _engines.get(key)
        if cached is not None and cached[1] == stamp:
            return cached[0]
        if cached is not None:
            cached[0].close()
            del _engines[key]
        engine = SearchEngine.open(records_path, index_dir)
        _engines[key] = (engine, stamp)
        return engine


def reset_engines() -> None:
    """Close every cached engine (tests; after rebuilding an index in-process)."""
    with _engines_lock:
        for engine, _ in _engines.values():
            engine.close()
        _engines.clear()


def search(q: str, *, limit: int = 10, work: str | None = None,
           law_range: tuple[int, int] | None = None, script: str | None = None,
           records_path: Path | str | None = None,
           index_dir: Path | str | None = None) -> list[dict[str, Any]]:
    """Search the records: [{id, citation, work, title, score, snippet}, ...] best first.

    The records and index default to $KB_BUILD_DIR (or ./build)/records.jsonl and /index.
    """
    return get_engine(records_path, index_dir).search(
        q, limit=limit, work=work, law_range=law_range, script=script)


def main(argv: Sequence[str] | None = None) -> int:
    """``kb search`` (see kb.search.cli)."""
    from kb.search.cli import main as cli_main

    return cli_main(argv)
