"""Ranking: BM25 over word fields and over character grams, fused, then a coverage re-rank.

Two kinds of evidence for each query group (a word and the strings that count as it):

* word level: BM25 of each of its words in the title, text, ancestor-title and subject-term
  fields (boosted per field; a string of several words needs all of them in the clause);
* character level: BM25 of its character bigrams (unigrams for a single character) in
  the clause's title, text and subject terms, so a word written differently, or inside a
  longer word (罚张 in 重罚张), or cut differently, still finds its clause.

A group scores the best of its strings (times the string's weight), so synonyms widen a
word without counting it twice. The two channels are added (the gram channel scaled by
gram_weight; reciprocal-rank fusion, FUSION = "rrf", measured lower on the tuning set),
plus the bigrams of the query as typed. When the query's terms of the rules all belong
to one family of rule books (胡 to mahjong, 明手 to bridge), clauses of the others are
scaled down (domain_penalty); a query that names the game (麻将, bridge: parse.py) chooses the
family itself, and the others are scaled down further (named_penalty). Clauses are then
scaled by the share of groups (to the power coverage_power; groups weighted by rarity; everyday words weigh less) each contains, a clause and its twin counting as one,
a group in an ancestor's title counting too (context_cover); a group is contained when all
its bigrams are in the clause (posting lists, no scan over the clauses). A clause whose own
title holds every group the query matched (42 明手的权利 for dummy's rights) is what the query
names: its score is raised by title_bonus (everyday words do not count). With a ``depth``,
the coverage of a clause is worked out only while its raw score could still reach the first
``depth`` places (coverage only lowers a score): the cut changes no answer the engine shows.
A quoted phrase must stand whole in the title, the text or a subject term. The weights named
in lower case are kb/data/search/ranking.toml's (kb.search.ranking).

Every cache is an LRU with a size, except the BM25 weights of the index's own terms (read from
whoosh's postings by its searcher: ``postings``), which are bounded by the index: nothing grows with the number of distinct queries.
"""
from __future__ import annotations

import heapq
import math
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from functools import partial
from typing import Any, Generic, TypeVar

from kb.search.analysis import Analysis, analyze, search_form
from kb.search.lexicon import Lexicon
from kb.search.parse import GENERIC_WEIGHT, Group
from kb.search.postings import ClauseBM25, Postings
from kb.search.ranking import WORD_FIELD_NAMES, Weights, default_weights

# The weights (BM25's k1 and b, each field's boost, the channels' weights, the factors below) are
# data: kb/data/search/ranking.toml, read by kb.search.ranking, learned by bench/learn_ranking.py.
# What each does is said where it is used below; a Ranker takes its own (``weights``) or the file's.
WORD_FIELDS = WORD_FIELD_NAMES
# The records' English phrases are read for a query word typed in English only: a Chinese word's
# English synonyms there would count again what the word itself finds in the Chinese text.
ENGLISH_FIELD = "english"
STRICT_TIER = False
UNIT_EVIDENCE = True      # coverage counts a clause's twin's words too
CACHE_SIZE = 4096
FUSION = "sum"            # "sum": word + gram_weight * gram scores; "rrf": reciprocal-rank fusion
RRF_K = 60
RRF_GRAM = 1.0            # weight of the character channel in reciprocal-rank fusion

# what a clause gets of a group's weight: (weight, part of the weight, each clause's case: 2 holds
# the group, 1 is under a title holding it, 0 neither)
Held = tuple[float, float, bytes]
K = TypeVar("K")
V = TypeVar("V")


_EMPTY: dict[int, float] = {}


class LRU(Generic[K, V]):
    """A thread-safe least-recently-used map of at most ``size`` entries."""

    def __init__(self, size: int = CACHE_SIZE):
        self.size = size
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K, make: Callable[[], V]) -> V:
        # A hit takes no lock: reading an entry and moving it to the end are each one step of
        # OrderedDict under the interpreter lock; only a miss's insertion and eviction take it.
        data = self._data
        try:
            value = data[key]
        except KeyError:
            pass
        else:
            try:
                data.move_to_end(key)
            except KeyError:   # evicted by another thread just now: still the right value
                pass
            return value
        value = make()
        with self._lock:
            data[key] = value
            data.move_to_end(key)
            while len(data) > self.size:
                data.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._data)


class Ranker:
    """Posting lists of every field, and BM25 scores read from them."""

    def __init__(self, docs: list[dict[str, Any]], lex: Lexicon, postings: Postings,
                 cache_size: int = CACHE_SIZE, family: list[str] | None = None,
                 twin: dict[int, int] | None = None, weights: Weights | None = None):
        self.w = w = weights or default_weights()
        self.lex = lex
        self.docs = docs
        self.postings = postings
        self._texts: list[str] | None = None   # search form of title, text and subjects (for phrases)
        self.n = max(1, len(docs))
        self.family = family or ["" for _ in docs]   # rule book family of each clause (bridge, mahjong)
        self.twin = twin or {}                       # a clause's twin in the other translation
        self.fields = (*WORD_FIELDS, "bigram", "unigram")
        self.dl = {f: postings.lengths[f] for f in self.fields}
        self.avgdl = {f: max(1.0, sum(self.dl[f]) / self.n) for f in self.fields}
        # BM25's length normalisation of each clause in each field: the whoosh searcher's model
        self.norm = {f: [w.k1 * (1 - w.b + w.b * n / self.avgdl[f]) for n in self.dl[f]] for f in self.fields}
        self.searcher = postings.searcher(ClauseBM25(w.k1, self.norm, self.n))
        self._bm25: dict[str, dict[str, dict[int, float]]] = {f: {} for f in self.fields}  # index terms only
        self._words: LRU[tuple[str, bool], dict[int, float]] = LRU(cache_size)
        self._grams: LRU[str, dict[int, float]] = LRU(cache_size)
        self._unit_docs: LRU[tuple[bool, tuple[str, ...]], frozenset[int]] = LRU(cache_size)
        self._english_docs: LRU[str, frozenset[int]] = LRU(cache_size)
        self._groups: LRU[tuple[bool, tuple[tuple[str, float], ...]], dict[int, float]] = LRU(cache_size)
        self._analysis: LRU[str, Analysis] = LRU(cache_size)
        self._contained: LRU[str, frozenset[int]] = LRU(cache_size)
        self._group_docs: LRU[tuple[bool, tuple[str, ...]], int] = LRU(cache_size)
        self._word_docs: LRU[tuple[str, ...], set[int]] = LRU(cache_size)
        self._votes: LRU[tuple[str, ...], str | None] = LRU(cache_size)
        self._context_docs: LRU[tuple[str, ...], frozenset[int]] = LRU(cache_size)
        self._title_docs: LRU[tuple[str, ...], frozenset[int]] = LRU(cache_size)
        self._holding: LRU[tuple[bool, tuple[str, ...]], bytes] = LRU(cache_size)
        self._titles: list[str] | None = None   # search form of each clause's own title
        self._outside = {f: frozenset(d for d, g in enumerate(self.family) if g != f) for f in set(self.family)}

    # --- terms ----------------------------------------------------------------------

    def analysis(self, s: str) -> Analysis:
        return self._analysis.get(s, lambda: analyze(s, self.lex))

    def grams(self, s: str) -> list[str]:
        """The gram terms standing for ``s``: its bigrams, or its unigram if it is one character."""
        a = self.analysis(s)
        return a.bigrams or a.unigrams

    def contained(self, s: str) -> frozenset[int]:
        """Clauses whose title or text holds every gram of ``s`` (a substring test by postings)."""
        def make() -> frozenset[int]:
            grams = self.grams(s)
            if not grams:
                return frozenset()
            field = "bigram" if self.analysis(s).bigrams else "unigram"
            sets = sorted((self.bm25(field, g) for g in set(grams)), key=len)
            out = set(sets[0])
            for rows in sets[1:]:
                out.intersection_update(rows)
                if not out:
                    break
            return frozenset(out)
        return self._contained.get(s, make)

    def phrase_text(self, d: int) -> str:
        """What a quoted phrase must stand in, whole: title, text, subject terms and questions, a line each."""
        if self._texts is None:
            self._texts = [search_form("\n".join((doc.get("title_hans") or "", doc.get("text_hans") or "",
                                                   doc.get("subjects") or "", doc.get("questions") or "")))
                           for doc in self.docs]
        return self._texts[d]

    def known(self, s: str) -> bool:
        """Some clause holds ``s`` (as words or as characters; several words all in one clause;
        an English word by its stem)."""
        return bool(self.contained(s)) or any(self.postings.has(f, s) for f in WORD_FIELDS) \
            or ((" " in s or s.isascii()) and bool(self.word_scores(s)))

    # --- BM25 -------------------------------------------------------------------------

    def bm25(self, field: str, term: str) -> dict[int, float]:
        """Each clause's BM25 weight of one term: whoosh's postings of the term, scored by the
        searcher's ``ClauseBM25`` (read once per index term, then kept: a term the index lacks is
        not kept, so nothing grows with the queries; read-only)."""
        cache = self._bm25[field]
        got = cache.get(term)
        if got is None:
            got = self.postings.scores(self.searcher, field, term)
            if not got:
                return _EMPTY
            cache[term] = got
        return got

    def word_scores(self, s: str, english: bool = True) -> dict[int, float]:
        """Word-level BM25 of one string over the word fields (the English phrases too if
        ``english``); all its words must occur (read-only)."""
        return self._words.get((s, english), lambda: self._word_scores(s, english))

    def _word_scores(self, s: str, english: bool = True) -> dict[int, float]:
        words = list(dict.fromkeys(w for w, _, _ in self.analysis(s).words))
        if not words:
            return {}
        acc: defaultdict[int, float] = defaultdict(float)
        have: defaultdict[int, int] = defaultdict(int)
        for w in words:
            seen: set[int] = set()
            for f, boost in self.w.word_fields.items():
                if f == ENGLISH_FIELD and not english:
                    continue
                for d, sc in self.bm25(f, w).items():
                    acc[d] += boost * sc
                    seen.add(d)
            for d in seen:
                have[d] += 1
        return {d: sc for d, sc in acc.items() if have[d] == len(words)}

    def gram_scores(self, s: str) -> dict[int, float]:
        """Character-level BM25 of one string (its bigrams, or its single character; read-only)."""
        return self._grams.get(s, lambda: self._gram_scores(s))

    def _gram_scores(self, s: str) -> dict[int, float]:
        a = self.analysis(s)
        field, grams = ("bigram", a.bigrams) if a.bigrams else ("unigram", a.unigrams)
        acc: defaultdict[int, float] = defaultdict(float)
        for g in grams:
            for d, sc in self.bm25(field, g).items():
                acc[d] += sc
        return dict(acc)

    # --- groups -------------------------------------------------------------------------

    def group_scores(self, g: Group) -> dict[int, float]:
        """Best string of the group per clause, word and gram channels added (read-only)."""
        return self._groups.get((g.english, tuple(g.alts)), lambda: self._group_scores(g))

    def _group_scores(self, g: Group) -> dict[int, float]:
        best: dict[int, float] = {}
        for s, weight in g.alts:
            per: defaultdict[int, float] = defaultdict(float)
            for d, sc in self.word_scores(s, g.english).items():
                per[d] += sc
            if self.w.gram_weight:
                for d, sc in self.gram_scores(s).items():
                    per[d] += self.w.gram_weight * sc
            for d, sc in per.items():
                sc *= weight
                if sc > best.get(d, 0.0):
                    best[d] = sc
        return best

    def _rrf(self, groups: list[Group], text: str) -> defaultdict[int, float]:
        """Reciprocal-rank fusion of the word channel and the character channel."""
        word: defaultdict[int, float] = defaultdict(float)
        gram: defaultdict[int, float] = defaultdict(float)
        for g in groups:
            wb: dict[int, float] = {}
            gb: dict[int, float] = {}
            for s, weight in g.alts:
                for d, sc in self.word_scores(s, g.english).items():
                    wb[d] = max(wb.get(d, 0.0), weight * sc)
                for d, sc in self.gram_scores(s).items():
                    gb[d] = max(gb.get(d, 0.0), weight * sc)
            for d, sc in wb.items():
                word[d] += sc
            for d, sc in gb.items():
                gram[d] += sc
        if text:
            for d, sc in self.gram_scores(text).items():
                gram[d] += self.w.query_gram_weight * sc
        out: defaultdict[int, float] = defaultdict(float)
        for channel, w in ((word, 1.0), (gram, RRF_GRAM)):
            for r, (d, _) in enumerate(sorted(channel.items(), key=lambda x: (-x[1], x[0]))):
                out[d] += w / (RRF_K + r + 1)
        return out

    def group_docs(self, g: Group) -> frozenset[int]:
        """Clauses holding one of the group's strings: in their title, text, subject terms or
        questions; a word typed in English also in their English phrases (what counts as a revoke
        is held by 61A, which says so in English only)."""
        out: set[int] = set()
        for s in g.strings():
            out |= self.contained(s)
            if g.english and s.isascii():
                out |= self.english_docs(s)
        return frozenset(out)

    def english_docs(self, s: str) -> frozenset[int]:
        """Clauses whose English phrases hold every word of ``s``."""
        return self._english_docs.get(s, lambda: self._field_docs(ENGLISH_FIELD, s))

    def _field_docs(self, field: str, s: str) -> frozenset[int]:
        """Clauses whose ``field`` holds every word of ``s``."""
        words = [w for w, _, _ in self.analysis(s).words]
        rows = [self.bm25(field, w) for w in words]
        if not rows or not all(rows):
            return frozenset()
        return frozenset(set.intersection(*(set(r) for r in rows)))

    def unit_docs(self, g: Group) -> frozenset[int]:
        """group_docs with each clause's twin: a clause and its twin are one unit, each counting
        what either translation says."""
        def make() -> frozenset[int]:
            c = self.group_docs(g)
            return c | {self.twin[d] for d in c if d in self.twin}
        return self._unit_docs.get((g.english, tuple(g.strings())), make)

    def word_docs(self, g: Group) -> set[int]:
        """Clauses holding one of the group's strings as words (not merely as characters)."""
        return self._word_docs.get(tuple(g.strings()), lambda: self._make_word_docs(g))

    def _make_word_docs(self, g: Group) -> set[int]:
        out: set[int] = set()
        for s in g.strings():
            words = [w for w, _, _ in self.analysis(s).words]
            if not words:
                continue
            sets = [{d for f in WORD_FIELDS for d in self.bm25(f, w)} for w in words]
            out |= set.intersection(*sets)
        return out

    def context_docs(self, g: Group) -> frozenset[int]:
        """Clauses an ancestor's title of which holds one of the group's strings as words
        (64A1 is about 藏牌成立 because Law 64 is titled so)."""
        def make() -> frozenset[int]:
            return frozenset().union(*(self._field_docs("context", s) for s in g.strings()))
        return self._context_docs.get(tuple(g.strings()), make)

    def title(self, d: int) -> str:
        """The search form of clause d's own title (restorations without their brackets)."""
        if self._titles is None:
            self._titles = [search_form(doc.get("title_hans") or "") for doc in self.docs]
        return self._titles[d]

    def title_docs(self, g: Group) -> frozenset[int]:
        """Clauses whose own title holds one of the group's strings (42 明手的权利 for dummy's rights)."""
        def make() -> frozenset[int]:
            return frozenset(d for s in g.strings() if s for d in self.contained(s) if s in self.title(d))
        return self._title_docs.get(tuple(g.strings()), make)

    def rarity(self, g: Group) -> float:
        """Inverse document frequency of a group: clauses containing any of its strings."""
        key = (g.english, tuple(g.strings()))
        df = self._group_docs.get(key, lambda: len(self.group_docs(g)))
        return math.log(1.0 + self.n / (1.0 + df))

    def query_family(self, groups: list[Group]) -> str | None:
        """The family of rule books (bridge, mahjong) the query's words belong to, if they agree.

        A group votes (by its rarity) for a family when nearly all the clauses holding it are
        in that family (胡 for mahjong, 明手 for bridge); words found everywhere do not vote.
        """
        votes: defaultdict[str, float] = defaultdict(float)
        for g in groups:
            if self.lex.generic(g.label) and not g.label.isascii():
                continue
            fam = self._votes.get(tuple(g.strings()), partial(self._vote, g))
            if fam is not None:
                votes[fam] += self.rarity(g)
        if not votes:
            return None
        ranked = sorted(votes.items(), key=lambda x: -x[1])
        if len(ranked) == 1 or ranked[0][1] >= 2 * ranked[1][1]:
            return ranked[0][0]
        return None

    def _vote(self, g: Group) -> str | None:
        """The family nearly all the clauses holding the group's words belong to, if any."""
        docs = self.word_docs(g)
        if not docs:
            return None
        count: defaultdict[str, int] = defaultdict(int)
        for d in docs:
            count[self.family[d]] += 1
        fam, n = max(count.items(), key=lambda x: x[1])
        return fam if n >= self.w.domain_share * len(docs) else None

    def rank(self, groups: list[Group], allowed: Callable[[int], bool] | None = None,
             text: str = "", depth: int | None = None, family: str | None = None,
             trace: dict[str, Any] | None = None) -> list[tuple[int, float]]:
        """Clauses matching the groups, best first (see the module docstring); with ``depth``,
        the first ``depth`` alone, exactly; ``trace``, if given, gets what ``explain`` needs to
        take a clause's score apart;
        ``family``: the family of books the query names (桥牌), instead of the one its words vote for."""
        required = [g for g in groups if g.required]
        optional = [g for g in groups if not g.required]
        scores: dict[int, float]
        if FUSION == "rrf":
            scores = dict(self._rrf(groups, text))
        else:
            scores = {}
            for g in groups:   # each clause's sum in group order (the same floats every time)
                gs = self.group_scores(g)
                if not scores:
                    scores = dict(gs)
                    continue
                get = scores.get
                for d, sc in gs.items():
                    scores[d] = get(d, 0.0) + sc
            if text and self.w.query_gram_weight and optional:
                every = len(optional) > 1
                for d, sc in self.gram_scores(text).items():
                    if every:
                        scores[d] = scores.get(d, 0.0) + self.w.query_gram_weight * sc
                    elif d in scores:
                        scores[d] += self.w.query_gram_weight * sc
        if allowed is not None:
            scores = {d: s for d, s in scores.items() if allowed(d)}
        for g in required:   # a quoted phrase stands as typed in the title, the text or a subject term
            phrases = g.strings()
            scores = {d: s for d, s in scores.items() if any(p in self.phrase_text(d) for p in phrases)}
        if not scores:
            return []
        named = family in self._outside
        fam = family if named else self.query_family(optional)
        if fam is not None:
            outside = self._outside[fam]
            penalty = self.w.named_penalty if named else self.w.domain_penalty
            for d in (outside.intersection(scores) if len(outside) < len(scores)
                      else [d for d in scores if d in outside]):
                scores[d] *= penalty
        covers = [self.unit_docs(g) if UNIT_EVIDENCE else self.group_docs(g) for g in optional]
        # a group weighs in the coverage if some matched clause holds it
        weights = [g.weight * self.rarity(g) if not c.isdisjoint(scores) else 0.0
                   for g, c in zip(optional, covers)]
        titled_docs: frozenset[int] = frozenset()
        if self.w.title_bonus != 1.0:
            # a clause titled with every group the query matched is what the query names
            # (everyday words aside: 有 in 有限制的权利 does not make it the clause 明手有什么权利 names)
            titled = [self.title_docs(g) for g, w in zip(optional, weights) if w and g.weight > GENERIC_WEIGHT]
            if titled:
                titled_docs = frozenset.intersection(*titled).intersection(scores)
                for d in titled_docs:
                    scores[d] *= self.w.title_bonus
        total = sum(weights)
        held = [self._held_by(g, w, c) for g, w, c in zip(optional, weights, covers) if w]
        if trace is not None:
            trace.update(groups=groups, text=text, scores=scores, family=fam,
                         penalty=(self.w.named_penalty if named else self.w.domain_penalty) if fam else 1.0,
                         outside=self._outside[fam] if fam is not None else frozenset(),
                         titled=titled_docs, held=held, total=total,
                         query_grams=bool(text and self.w.query_gram_weight and optional),
                         every=len(optional) > 1,
                         weights=[(g.label, w) for g, w in zip(optional, weights)])
        if depth is None or STRICT_TIER:
            return self._covered(scores, held, total)
        return self._best(scores, held, total, depth)

    def parts(self, g: Group, d: int) -> dict[str, Any]:
        """Group g's score of clause d taken apart: the string that scored best, its weight, each
        word field's BM25 times the field's boost, and the character channel (what
        ``group_scores`` adds, term by term)."""
        best: dict[str, Any] = {"string": None, "score": 0.0}
        for s, weight in g.alts:
            fields: dict[str, float] = {}
            words = list(dict.fromkeys(w for w, _, _ in self.analysis(s).words))
            if d in self.word_scores(s, g.english):
                for w in words:
                    for f, boost in self.w.word_fields.items():
                        if f == ENGLISH_FIELD and not g.english:
                            continue
                        sc = self.bm25(f, w).get(d)
                        if sc:
                            fields[f] = fields.get(f, 0.0) + boost * sc
            gram = self.w.gram_weight * self.gram_scores(s).get(d, 0.0) if self.w.gram_weight else 0.0
            score = (sum(fields.values()) + gram) * weight
            if score > best["score"]:
                best = {"string": s, "weight": weight, "fields": fields, "grams": gram, "score": score}
        return best

    def explain(self, d: int, trace: dict[str, Any]) -> dict[str, Any]:
        """Clause d's score as ``rank`` (which filled ``trace``) made it: each group's part, the
        question's grams, the family factor, the title bonus and the coverage factor; ``score``
        is their product, as the ranking has it."""
        groups = [{"group": g.label, **self.parts(g, d)} for g in trace["groups"]]
        base = sum(g["score"] for g in groups)
        qgram = 0.0
        if trace["query_grams"] and (trace["every"] or base):
            qgram = self.w.query_gram_weight * self.gram_scores(trace["text"]).get(d, 0.0)
        family = trace["penalty"] if d in trace["outside"] else 1.0
        title = self.w.title_bonus if d in trace["titled"] else 1.0
        share = self._shares(trace["held"], trace["total"])(d)
        coverage = share ** self.w.coverage_power
        return {"groups": groups, "query_grams": qgram, "family": family, "title": title,
                "share": share, "coverage": coverage, "score": (base + qgram) * family * title * coverage}

    def _held_by(self, g: Group, w: float, c: frozenset[int]) -> Held:
        """What a clause gets of group g's weight w: all of it if it holds g (is in ``c``), else
        context_cover of it if an ancestor's title does; and each clause's case (2, 1 or 0) as bytes."""
        part = self.w.context_cover * w
        return w, part, self._holding.get((g.english, tuple(g.strings())), partial(self._make_holding, g, c, part))

    def _make_holding(self, g: Group, c: frozenset[int], part: float) -> bytes:
        row = bytearray(self.n)
        for d in self.context_docs(g) if part else ():
            row[d] = 1
        for d in c:
            row[d] = 2
        return bytes(row)

    @staticmethod
    def _shares(held: list[Held], total: float) -> Callable[[int], float]:
        """Each clause's share of the groups' weight (``total``), the groups added in query order
        (the same floats every time, as the browser engine adds them). Clauses that hold the
        same groups share one sum."""
        if not total:
            return lambda d: 1.0
        cases = list(zip(*(row for _, _, row in held)))   # per clause: what it holds of each group
        sums: dict[tuple[int, ...], float] = {}

        def share(d: int) -> float:
            case = cases[d]
            got = sums.get(case)
            if got is None:
                got = 0.0
                for (w, part, _), k in zip(held, case):
                    if k == 2:
                        got += w
                    elif k:
                        got += part
                got = sums[case] = got / total
            return got
        return share

    def _best(self, scores: dict[int, float], held: list[Held], total: float,
              depth: int) -> list[tuple[int, float]]:
        """The first ``depth`` of ``_covered``, exactly, without the coverage of every clause:
        coverage only lowers a score, so clauses are taken by raw score, best first, until the
        next raw score is below the depth-th final score kept so far (no later clause can place)."""
        order = sorted(scores, key=scores.__getitem__, reverse=True)
        share = self._shares(held, total)
        kept = [(scores[d] * share(d) ** self.w.coverage_power, -d) for d in order[:depth]]
        heapq.heapify(kept)   # the best (final score, -clause) so far, the least first
        floor = kept[0][0] if len(kept) == depth else 0.0
        for d in order[depth:]:
            raw = scores[d]
            if raw < floor:
                break
            key = (raw * share(d) ** self.w.coverage_power, -d)
            if key > kept[0]:
                heapq.heapreplace(kept, key)
                floor = kept[0][0]
        kept.sort(reverse=True)
        return [(-neg, score) for score, neg in kept]

    def _covered(self, scores: dict[int, float], held: list[Held], total: float) -> list[tuple[int, float]]:
        """Every clause, by raw score times the square of its share of the groups."""
        keyed = []
        shares = self._shares(held, total)
        for d, score in scores.items():
            share = shares(d)
            tier = share >= 1.0 - 1e-9 if STRICT_TIER else True
            keyed.append((tier, score * share ** self.w.coverage_power, -d))
        keyed.sort(reverse=True)
        return [(-neg, score) for _, score, neg in keyed]


def ranking_meta(weights: Weights | None = None) -> dict[str, Any]:
    """What the site's browser engine ranks by: the weights (ranking.toml) and the switches above."""
    return {**(weights or default_weights()).meta(), "strictTier": STRICT_TIER, "unitEvidence": UNIT_EVIDENCE,
            "fusion": FUSION, "englishField": ENGLISH_FIELD}


RANKING = ranking_meta()
