"""The search engine: an opened index, queries in, results out.

``SearchEngine.search`` parses a query (``parse``), finds the cited clauses and ranks
the rest (``rank``), puts the clause that defines the asked term first for 什么是X,
folds each bridge clause and its twin in the other translation into one result (the
twin attached under ``twins``), and builds the snippets (``snippet``).

A result: {id, work, citation, title, score, snippet, twins: [{id, work, citation,
title, snippet}], under: {citation, title, name, text} of the clause it stands under, if any
(snippet.under)}. The engine is read-only after opening; its caches are bounded LRUs,
so it is safe to share between threads without a lock.
"""
from __future__ import annotations

import os
import threading
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kb.core import works
from kb.core.errors import KbError
from kb.ingest.concordance import changed_below
from kb.search.analysis import normalize
from kb.search.citations import Cite
from kb.search.index import IndexData, open_index
from kb.search.inforce import CodeMap, line, notes, with_notes
from kb.search.outside import claimed, concerns, not_held
from kb.search.parse import GENERIC_WEIGHT, PHRASE_FEW, Group, ParsedQuery, QueryParser, clean_query, unquoted
from kb.search.rank import CACHE_SIZE, LRU, Ranker
from kb.search.ranking import Weights
from kb.search.schema import bare_heading
from kb.search.snippet import highlight, normal_form, shown_text, under
from kb.search.synonyms import Synonyms, load_synonyms

MAX_LIMIT = 1000
# A question whose results all cover less of it than this (``coverage``) is answered by none of
# them: they are withheld and the answer says that nothing held matches it (outside.not_held).
# Measured on the tuning sets (bench/queries.tsv, bench/tuning*.tsv): the least coverage that the
# best graded-relevant result of any of their questions has, rounded down (0.179, an English
# question whose words the clauses' English phrases mostly lack); tests/test_search.py measures it
# again. WEAK_DEPTH: how many results are looked at (the first ten, as the tuning sets grade them).
WEAK_COVERAGE = 0.17
WEAK_DEPTH = 10
MAX_ENGINES = 8          # open engines kept by get_engine (one per records/index pair)
DEFINITION_WINDOW = 30   # candidates examined for a clause defining the asked term
HEADING_WINDOW = 10      # candidates examined for a clause under a bare heading that came first


def build_dir() -> Path:
    """The build directory: $KB_BUILD_DIR or ./build (as ``kb --build-dir`` sets it)."""
    return Path(os.environ.get("KB_BUILD_DIR") or "build")


def default_records() -> Path:
    return build_dir() / "records.jsonl"


def default_index() -> Path:
    return build_dir() / "index"


class SearchEngine:
    """An opened index: documents, ranker, parser (one per process is plenty)."""

    def __init__(self, data: IndexData, synonyms: Synonyms | None = None,
                 cache_size: int = CACHE_SIZE, weights: Weights | None = None):
        self.docs = data.docs
        self.meta = data.meta
        self.by_id = {d["id"]: n for n, d in enumerate(self.docs)}
        order = works.work_ids()
        self.works = sorted({d["work"] for d in self.docs},
                            key=lambda w: (order.index(w) if w in order else 99, w))
        self._work_rank = [self.works.index(d["work"]) for d in self.docs]   # registry order
        # each 2017 citation the records' concordance names, with its records (2017 27B1b: inforce.py)
        self.code_map = CodeMap([d.get("concordance") or [] for d in self.docs], self._book_order)
        self.hay = [_hay(d) for d in self.docs]
        self.by_path = {(d["work"], d["pathkey"]): n for n, d in enumerate(self.docs)}
        self.below: defaultdict[tuple[str, str], list[int]] = defaultdict(list)
        for n, d in enumerate(self.docs):
            parts = d["pathkey"].split("/")[:-1]
            for k in range(1, len(parts)):
                self.below["/".join(parts[:k]) + "/", d["work"]].append(n)
        self.twin: dict[int, int] = {}   # a clause's twin in the other translation (the records' twin)
        for n, d in enumerate(self.docs):
            m = self.by_id.get(d["twin"]) if d.get("twin") else None
            if m is not None:
                self.twin[n] = m
        self.postings = data.postings
        families = {w: works.family(w) for w in self.works}   # the registry read once per work, not per clause
        self.ranker = Ranker(self.docs, data.lexicon, data.postings, cache_size,
                             [families[d["work"]] for d in self.docs], self.twin, weights)
        syn = (synonyms or load_synonyms()).with_mined(data.mined)
        self.parser = QueryParser(data.lexicon, syn, self.ranker.known, works.game_names(), works.query_names())
        self._parsed: LRU[tuple[str, str | None], ParsedQuery] = LRU(cache_size)
        self._defining: LRU[str, dict[int, bool]] = LRU(cache_size)   # per term: each clause checked
        self._normal: dict[int, tuple[str, str]] = {}
        # what a result shows of a clause in a script, and its normal form (bounded by the index)
        self._display: dict[tuple[int, bool], tuple[str, tuple[str, bool]]] = {}
        self.children: defaultdict[int, list[int]] = defaultdict(list)   # a heading's clauses, in order
        for n, d in enumerate(self.docs):
            p = self.by_id.get(d["parent"]) if d.get("parent") else None
            if p is not None:
                self.children[p].append(n)
        self.headings = {n for n, d in enumerate(self.docs) if bare_heading(d["text_hans"], n in self.children)}
        self.changed_below = changed_below(self.docs)   # clauses with a changed rule under them (concordance)

    @classmethod
    def open(cls, records_path: Path | str | None = None,
             index_dir: Path | str | None = None) -> SearchEngine:
        """Open (rebuilding first if stale or damaged) the index of ``records_path``."""
        return cls(open_index(records_path or default_records(), index_dir or default_index()))

    def close(self) -> None:
        """Close the whoosh reader (the engine cannot search after this)."""
        self.postings.close()

    def parse(self, q: str, script: str | None = None) -> ParsedQuery:
        """The parsed form of a cleaned query (cached, bounded)."""
        return self._parsed.get((q, script), lambda: self.parser.parse(q, script))

    # --- searching ----------------------------------------------------------------

    def search(self, q: str, *, limit: int = 10, work: str | None = None,
               law_range: tuple[int, int] | None = None,
               script: str | None = None, lead: str | None = None) -> list[dict[str, Any]]:
        """Search; see the module docstring. ``lead``: the work whose clause leads a clause and its
        twin (the book being read), instead of the registry's first. Bad arguments raise KbError."""
        q = clean_query(q)
        self._check_args(limit, work, law_range, script, lead)
        parsed = self.parse(q, script)
        if parsed.empty and not parsed.codes:
            return []
        if parsed.work in self.works:
            # laws1997 47E2, 1997版47条: the book the question names is the one searched (an
            # explicit ``work`` stands over it) and leads a clause and its twin
            work = work or parsed.work
            lead = lead or parsed.work

        allowed = self._allowed(work, law_range)
        if parsed.codes:
            return self._by_code(parsed, allowed, limit, lead)
        ranked = self._fold_twins(self._ranked(parsed, allowed, self._depth(parsed, limit)), limit, allowed, lead)
        if len(ranked) < PHRASE_FEW and any(g.required for g in parsed.groups):
            # A quoted phrase few clauses hold as typed is most often words quoted as they were said
            # at the table (庄家只说“草花”, 明手问“没有这门花色吗”): after those clauses, what its words
            # find as the query's other words do.
            parsed = self.parse(unquoted(q), script)
            more = self._fold_twins(self._ranked(parsed, allowed, self._depth(parsed, limit)), limit, allowed, lead)
            placed = {m for n, _ in ranked for m in (n, self.twin.get(n)) if m is not None}
            ranked += [(n, s) for n, s in more if n not in placed and self.twin.get(n) not in placed]
        return [self._result(n, score, parsed) for n, score in ranked[:limit]]

    def _allowed(self, work: str | None, law_range: tuple[int, int] | None) -> Callable[[int], bool] | None:
        """The filter of a search limited to one book or to a range of laws (None: not limited)."""
        if not work and not law_range:
            return None

        def filtered(n: int) -> bool:
            d = self.docs[n]
            if work and d["work"] != work:
                return False
            return not law_range or (d["law"] is not None and law_range[0] <= d["law"] <= law_range[1])
        return filtered

    def answer(self, q: str, *, limit: int = 10, work: str | None = None,
               law_range: tuple[int, int] | None = None,
               script: str | None = None, lead: str | None = None) -> dict[str, Any]:
        """The search's answer: {"results": [...], "not_held": {...} or null}. ``not_held`` (see
        outside.not_held) names the matters no book holds that the question may concern; when no
        result covers WEAK_COVERAGE of the question (and the search is not limited to a book or to
        laws), the results are withheld and it says that nothing held matches the question."""
        results = self.search(q, limit=limit, work=work, law_range=law_range, script=script, lead=lead)
        q = clean_query(q)
        parsed = self.parse(q, script)
        matters = concerns(q, parsed.cites, work, law_range)
        weak = False
        if work is None and law_range is None and not parsed.empty:
            first = results if limit >= WEAK_DEPTH else self.search(q, limit=WEAK_DEPTH, script=script, lead=lead)
            weak = self.weak(parsed, [r["id"] for r in first[:WEAK_DEPTH]], matters, q)
        if weak:
            results = []
        held = not_held(matters, bool(results), weak, parsed.script)
        # a 2017 citation with no counterpart here, or none held but one above it: said first
        return {"results": results,
                "not_held": with_notes(held, notes(self.code_map, parsed.codes, parsed.unread, parsed.script))}

    def explain(self, q: str, *, limit: int = 10, work: str | None = None,
                law_range: tuple[int, int] | None = None, script: str | None = None,
                lead: str | None = None) -> list[dict[str, Any]]:
        """The search's results, each with ``explain``: its score taken apart by the ranking's
        features (Ranker.explain: each word's part by field, the character channel, the
        question's grams, the family, title and coverage factors) and ``placed``: the rule of
        the domain that put it where it is, if one did ("cited": the question cites it or a
        clause above it; "defines": it defines the term asked; "under heading": it stands under
        the bare heading the ranking put first; "phrase": its words, after the clauses holding
        a quoted phrase as typed), else "score"."""
        results = self.search(q, limit=limit, work=work, law_range=law_range, script=script, lead=lead)
        parsed = self.parse(clean_query(q), script)
        if parsed.work in self.works:
            work = work or parsed.work
        trace: dict[str, Any] = {}
        if parsed.groups:
            self.ranker.rank(parsed.groups, self._allowed(work, law_range), parsed.text, None, parsed.family, trace)
        cited = self._cited(parsed.cites) if parsed.cites else set()
        defining = [parsed.defines] if parsed.defines else (
            parsed.groups[0].strings() if len(parsed.groups) == 1 and not parsed.groups[0].required else [])
        for r in results:
            n = self.by_id[r["id"]]
            unit = [n] + ([self.twin[n]] if n in self.twin else [])
            m = max(unit, key=lambda k: trace["scores"].get(k, -1.0)) if trace else n
            r["explain"] = self.ranker.explain(m, trace) if trace and m in trace["scores"] else None
            if parsed.codes:
                placed = "cited in 2017"    # the clauses the 2017 citation's concordance rows name
            elif any(k in cited for k in unit):
                placed = "cited"
            elif any(t and self._defines(k, t) for k in unit for t in defining):
                placed = "defines"
            elif r["explain"] is not None and abs(r["explain"]["score"] - r["score"]) <= 1e-3 * max(1.0, r["score"]):
                placed = "score"
            else:
                placed = "phrase" if any(g.required for g in parsed.groups) else "under heading"
            r["placed"] = placed
        return results

    def weak(self, parsed: ParsedQuery, ids: list[str], matters: list[Any], q: str = "") -> bool:
        """Whether none of the results ``ids`` covers WEAK_COVERAGE of the question (a question
        citing a clause that is held is never weak)."""
        if parsed.cites and self._cited(parsed.cites) or parsed.codes and self.code_map.ranked(parsed.codes, None):
            return False
        normal = normalize(q)
        return not any(self.coverage(parsed, self.by_id[i], lambda w: claimed(w, normal, matters)) >= WEAK_COVERAGE
                       for i in ids)

    def coverage(self, parsed: ParsedQuery, n: int, claimed: Callable[[str], bool] | None = None) -> float:
        """The share of the question's words (each by its weight and rarity, as the ranking weighs
        them; a word no clause holds weighs the most) that clause n holds, with its twin, or that
        the title of a clause above it holds. A question of quoted phrases alone is covered (every
        result holds them). Words ``claimed`` by a matter no book holds (the 机 of 发牌机) count for
        nothing held: they are left out of what the clause holds, not of the question."""
        groups = [g for g in parsed.groups if not g.required]
        if not groups:
            return 1.0
        total = got = 0.0
        for g in groups:
            w = g.weight * self.ranker.rarity(g)
            total += w
            if (n in self.ranker.unit_docs(g) or n in self.ranker.context_docs(g)) and \
                    not (claimed is not None and claimed(g.label)):
                got += w
        return got / total if total else 1.0

    @staticmethod
    def _depth(parsed: ParsedQuery, limit: int) -> int:
        """How many of a ranking must be exact: a twin folds into its clause's result (two
        places for one), a clause under a heading is looked for among the first HEADING_WINDOW,
        and a definition, when the query asks for one, among the first DEFINITION_WINDOW."""
        defining = parsed.defines or (len(parsed.groups) == 1 and not parsed.groups[0].required)
        return max(2 * limit, HEADING_WINDOW, DEFINITION_WINDOW if defining else 0)

    def _ranked(self, parsed: ParsedQuery, allowed: Callable[[int], bool] | None,
                depth: int) -> list[tuple[int, float]]:
        """The clauses a parsed query finds, best first, twins not yet folded."""
        if not parsed.groups:
            ranked = self._by_citation(parsed.cites, allowed)
        elif parsed.cites:
            # Words within the cited clause(s) first, then the cited clause itself if no
            # word matched there, then word matches elsewhere.
            inside = self._cited(parsed.cites)
            ranked = self.ranker.rank(parsed.groups, lambda n: n in inside and (allowed is None or allowed(n)),
                                      parsed.text, depth, parsed.family)
            if not ranked:
                ranked = self._by_citation(parsed.cites, allowed)
            else:
                ranked = self._topic_first(ranked, parsed.cites, parsed.groups)
            seen = {n for n, _ in ranked}
            ranked += [(n, sc) for n, sc in self.ranker.rank(parsed.groups, allowed, parsed.text,
                                                             depth + len(seen), parsed.family)
                       if n not in seen]
        else:
            ranked = self.ranker.rank(parsed.groups, allowed, parsed.text, depth, parsed.family)
            if parsed.defines:
                # 放槍是什麼意思: the clause defining 放铳 (放枪's synonym) defines it too
                named = [s for g in parsed.groups if g.label == parsed.defines for s in g.strings()]
                ranked = self._definitions_first(ranked, list(dict.fromkeys([parsed.defines, *named])),
                                                 parsed.family)
            else:
                if len(parsed.groups) == 1 and not parsed.groups[0].required:
                    # A bare term (revoke, 罚张, 清一色) asks what it is: its definition first.
                    ranked = self._definitions_first(ranked, parsed.groups[0].strings(), parsed.family)
                ranked = self._specific_first(ranked, parsed.groups)
        return ranked

    def _check_args(self, limit: Any, work: Any, law_range: Any, script: Any, lead: Any = None) -> None:
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            raise KbError(f"limit 须为 1 到 {MAX_LIMIT} 的整数，收到 {limit!r}")
        known = ", ".join(self.works) or "none"
        for value, what in ((work, ""), (lead, "（lead）")):
            if value is not None and value not in self.works:
                raise KbError(f"未知的书 {value!r}{what}（可用：{known}）")
        if law_range is not None:
            ok = (isinstance(law_range, (tuple, list)) and len(law_range) == 2
                  and all(isinstance(x, int) and not isinstance(x, bool) for x in law_range)
                  and 0 <= law_range[0] <= law_range[1])
            if not ok:
                raise KbError(f"法条范围须为两个条号，由小到大，收到 {law_range!r}")
        if script not in (None, "hans", "hant"):
            raise KbError(f"script 须为 hans 或 hant，收到 {script!r}")

    def _cited(self, cites: list[Cite]) -> set[int]:
        """Every clause a citation names, in every work, with everything under it."""
        out: set[int] = set()
        for c in cites:
            for w in self.works:
                if c.work and w != c.work:
                    continue
                n = self.by_id.get(f"{w}:{c.suffix}")
                if n is not None:
                    out.add(n)
                out.update(self.below.get((c.pathkey, w), []))
        return out

    def _by_code(self, parsed: ParsedQuery, allowed: Callable[[int], bool] | None, limit: int,
                 lead: str | None) -> list[dict[str, Any]]:
        """2017 27B1b, 新规则 27B: the clauses that became the 2017 citation (inforce.CodeMap), each
        with its concordance line (a clause's twin leads it only if the twin became it too), then
        what the query's other citations and words find."""
        hits = self.code_map.ranked(parsed.codes, allowed)
        found = {n for n, _ in hits}
        ranked = self._fold_twins(hits, limit, found.__contains__, lead)
        if not parsed.empty:
            placed = {m for n, _ in ranked for m in (n, self.twin.get(n)) if m is not None}
            more = self._fold_twins(self._ranked(parsed, allowed, self._depth(parsed, limit)), limit, allowed, lead)
            ranked += [(n, s) for n, s in more if n not in placed and self.twin.get(n) not in placed]
        out = []
        for n, score in ranked[:limit]:
            r = self._result(n, score, parsed)
            if n in found:
                r["in_force"] = line(self.docs[n].get("concordance") or [], n in self.headings, parsed.script,
                                     self.docs[n]["id"] in self.changed_below)
            out.append(r)
        return out

    def _topic_first(self, ranked: list[tuple[int, float]], cites: list[Cite],
                     groups: list[Group]) -> list[tuple[int, float]]:
        """law 70 claim, 64A 藏牌: words that only name the cited clause's topic (its title or an
        ancestor's) ask for that clause, not for the sub-clause that repeats them most."""
        named = [n for c in cites for w in self.works if not c.work or w == c.work
                 for n in [self.by_id.get(f"{w}:{c.suffix}")] if n is not None]
        topical = [n for n in dict.fromkeys(named) if all(self._titled(g, n) for g in groups)]
        if not topical:
            return ranked
        score = ranked[0][1]
        topical.sort(key=self._book_order)
        return [(n, score) for n in topical] + [(n, sc) for n, sc in ranked if n not in topical]

    def _book_order(self, n: int) -> tuple[int, int]:
        """Sort key of clause n: the registry's order of works, then its place in its book."""
        return self._work_rank[n], self.docs[n]["order"]

    def _titled(self, g: Group, n: int) -> bool:
        """Whether the title of clause n, or of a clause above it, holds one of the group's strings."""
        d = self.docs[n]
        parts = d["pathkey"].split("/")[:-1]
        for k in range(len(parts), 0, -1):
            m = self.by_path.get((d["work"], "".join(p + "/" for p in parts[:k])))
            title = self.ranker.title(m) if m is not None else ""
            if title and any(s and s in title for s in g.strings()):
                return True
        return False

    def _by_citation(self, cites: list[Cite], allowed: Callable[[int], bool] | None) -> list[tuple[int, float]]:
        """The cited clause in each work that has it, then its sub-clauses in order."""
        exact: list[int] = []
        fallback: list[int] = []
        below: list[int] = []
        for c in cites:
            for w in self.works:
                if c.work and w != c.work:
                    continue
                n = self.by_id.get(f"{w}:{c.suffix}")
                if n is not None:
                    exact.append(n)
                else:
                    for k in range(len(c.path) - 1, 0, -1):  # nearest ancestor that exists
                        anc = Cite(c.law, c.path[:k], work=c.work)
                        m = self.by_id.get(f"{w}:{anc.suffix}")
                        if m is not None:
                            fallback.append(m)
                            break
                below.extend(self.below.get((c.pathkey, w), []))
        below.sort(key=self._book_order)
        out: list[tuple[int, float]] = []
        seen: set[int] = set()
        for n, score in ([(n, 100.0) for n in exact] + [(n, 50.0) for n in fallback]
                         + [(n, 10.0) for n in below]):
            if n not in seen and (allowed is None or allowed(n)):
                seen.add(n)
                out.append((n, score))
        return out

    def _definitions_first(self, ranked: list[tuple[int, float]], terms: list[str],
                           family: str | None = None) -> list[tuple[int, float]]:
        """For 什么是X: the clauses among the first candidates that define X, first (of the family
        of books the query names, if it names one)."""
        head = ranked[:DEFINITION_WINDOW]
        defining = [(n, s) for n, s in head if (family is None or self.ranker.family[n] == family)
                    and any(self._defines(n, t) for t in terms if t)]
        if not defining:
            return ranked
        keep = {n for n, _ in defining}
        return defining + [(n, s) for n, s in ranked if n not in keep]

    def _specific_first(self, ranked: list[tuple[int, float]], groups: list[Group]) -> list[tuple[int, float]]:
        """A bare heading (27 叫品不足, a title over its clauses) that came first answers less than
        the clause under it that the question also found (27A, 27B): that clause goes first,
        unless the question is one term (叫品不足 names the law) or the heading's own title
        holds every term asked (有缺陷的牌墩)."""
        if not ranked or ranked[0][0] not in self.headings:
            return ranked
        top = ranked[0][0]
        title = self.ranker.title(top)
        named = [g for g in groups if not g.required and g.weight > GENERIC_WEIGHT]
        if len(named) == 1 or named and all(any(s and s in title for s in g.strings()) for g in named):
            return ranked
        d = self.docs[top]
        for i, (n, _) in enumerate(ranked[1:HEADING_WINDOW], 1):
            if self.docs[n]["work"] == d["work"] and self.docs[n]["pathkey"].startswith(d["pathkey"]):
                return [ranked[i], *ranked[:i], *ranked[i + 1:]]
        return ranked

    def _fold_twins(self, ranked: list[tuple[int, float]], limit: int,
                    allowed: Callable[[int], bool] | None = None,
                    lead: str | None = None) -> list[tuple[int, float]]:
        """One result per clause and its twin, at the better one's place: the clause of the work
        ``lead`` (the book being read), else of the work listed first in the registry, leads (the
        other is attached), so a reader always sees the same rule book first; a twin the filters
        leave out never leads."""
        out: list[tuple[int, float]] = []
        placed: set[int] = set()
        for n, score in ranked:
            if len(out) >= limit:
                break
            if n in placed:
                continue
            placed.add(n)
            twin = self.twin.get(n)
            if twin is not None:
                placed.add(twin)
                if allowed is None or allowed(twin):
                    first = self._work_rank[twin] < self._work_rank[n]
                    if lead is not None and lead in (self.docs[n]["work"], self.docs[twin]["work"]):
                        first = self.docs[twin]["work"] == lead
                    if first:
                        n = twin
            out.append((n, score))
        return out

    def _defines(self, n: int, term: str) -> bool:
        # one cache entry per term (its clauses' verdicts, bounded by the index), not per pair:
        # a bare term checks every one of its synonyms against each of the first candidates
        verdicts = self._defining.get(term, dict)
        got = verdicts.get(n)
        if got is None:
            got = verdicts[n] = defines(self.docs[n], term, self._title_text(n))
        return got

    def _title_text(self, n: int) -> tuple[str, str]:
        """A clause's normalized title and text (kept once made: bounded by the index)."""
        got = self._normal.get(n)
        if got is None:
            d = self.docs[n]
            got = self._normal[n] = (normalize(d["title_hans"] or ""), normalize(d["text_hans"] or ""))
        return got

    # --- results ------------------------------------------------------------------

    def _shown(self, n: int, parsed: ParsedQuery) -> dict[str, Any]:
        d = self.docs[n]
        hant = parsed.script == "hant"
        title = (d["title_hant"] if hant else d["title_hans"]) or ""
        citation = d["citation_hant"] if hant else d["citation"]
        got = self._display.get((n, hant))
        if got is None:
            got = self._display[(n, hant)] = self._display_text(n, hant)
        shown, norm = got
        out = {"id": d["id"], "work": d["work"], "citation": citation, "title": title,
               "snippet": highlight(shown, [t for t in parsed.marks if t in self.hay[n]], ordered=True,
                                    normalized=norm)}
        if d.get("tai"):
            out["tai"] = d["tai"]       # a mahjong scoring item's 台, as the rules give it ("8", "2N")
        return out

    def _display_text(self, n: int, hant: bool) -> tuple[str, tuple[str, bool]]:
        """What a result shows of clause n in a script (a heading or a lead-in: its clauses too,
        snippet.shown_text; else its text, or its title), and that text's normal form."""
        d = self.docs[n]
        title = (d["title_hant"] if hant else d["title_hans"]) or ""
        text = (d["text_hant"] if hant else d["text_hans"]) or ""
        if self.children.get(n):
            text = shown_text(text, [(c["citation_hant"] if hant else c["citation"],
                                      (c["title_hant"] if hant else c["title_hans"]) or "")
                                     for c in (self.docs[k] for k in self.children[n])])
        shown = text or title
        return shown, normal_form(shown)

    def _result(self, n: int, score: float, parsed: ParsedQuery) -> dict[str, Any]:
        r = self._shown(n, parsed)
        r["score"] = round(float(score), 4)
        r["twins"] = [self._shown(self.twin[n], parsed)] if n in self.twin else []
        parent = self.by_id.get(self.docs[n]["parent"]) if self.docs[n].get("parent") else None
        if parent is not None:
            p, hant = self.docs[parent], parsed.script == "hant"
            r["under"] = under(p["citation_hant"] if hant else p["citation"],
                               (p["title_hant"] if hant else p["title_hans"]) or "",
                               (p["text_hant"] if hant else p["text_hans"]) or "")
        return r


_DEF_MARKS = ("是", "为", "指", "：", ":", "，是", "系指", "即")
_DEF_BEFORE = ("所谓", "称为", "称之为", "叫做", "即为", "即成为", "是谓", "是为", "谓之")
_DEF_AFTER = ("系指", "是指", "即是")


def defines(doc: dict[str, Any], term: str, normal: tuple[str, str] | None = None) -> bool:
    """Does a clause define ``term``: its title is the term (or the term's definition), or its
    text opens with the term, or says 所谓X / 称为X / X是 / X指 ... (``normal``: the clause's
    title and text normalized, if already made)."""
    title, text = normal or (normalize(doc["title_hans"] or ""), normalize(doc["text_hans"] or ""))
    if title and (title == term or title in (f"{term}的定义", f"{term}定义", f"定义{term}")):
        return True
    if text.startswith(term) and text[len(term):len(term) + 2].startswith(_DEF_MARKS):
        return True
    for mark in _DEF_BEFORE:   # 所谓X, not followed by more of a longer word
        needle = mark + term
        i = text.find(needle)
        while i >= 0:
            j = i + len(needle)
            if j == len(text) or not "\u4e00" <= text[j] <= "\u9fff":
                return True
            i = text.find(needle, i + 1)
    return any(term + mark in text for mark in _DEF_AFTER)


def _hay(d: dict[str, Any]) -> str:
    return normalize("\n".join(d.get(f) or "" for f in ("title_hans", "text_hans", "context")))


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
        engine = SearchEngine.open(records_path, index_dir)
        _engines.pop(key, None)
        _engines[key] = (engine, stamp)
        while len(_engines) > MAX_ENGINES:  # bounded: one per build directory in use
            _engines.pop(next(iter(_engines)))
        return engine


def reset_engines() -> None:
    """Forget every cached engine (tests; after rebuilding an index in-process)."""
    with _engines_lock:
        _engines.clear()


def search(q: str, *, limit: int = 10, work: str | None = None,
           law_range: tuple[int, int] | None = None, script: str | None = None,
           records_path: Path | str | None = None,
           index_dir: Path | str | None = None) -> list[dict[str, Any]]:
    """Search the records: [{id, citation, work, title, score, snippet, twins}, ...] best first.

    The records and index default to $KB_BUILD_DIR (or ./build)/records.jsonl and /index.
    """
    return get_engine(records_path, index_dir).search(
        q, limit=limit, work=work, law_range=law_range, script=script)
