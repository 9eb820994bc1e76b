"""Full-text search over the clause records: words, character grams, citations, synonyms.

    from kb.search import search, build_index, parse_citation
    search("莊家說大", records_path="build/records.jsonl", index_dir="build/index")

The index is a whoosh index (whoosh-reloaded) whose text fields are cut by a jieba
tokenizer (a ``whoosh.analysis.Tokenizer`` running jieba's algorithm on the build's
corpus-trimmed dictionary, positions sequential so whoosh phrase queries work); opening
reads its stored fields and term vectors into memory, and the engine ranks from those
(BM25 over words and negation-marked character grams, coverage re-rank) without
whoosh's searcher. Queries are cut by the same lexicon (``lexicon.json`` in the index);
the build reads jieba's dictionary, and no process imports jieba (``Lexicon.cut_run`` is
jieba's maximum-probability route).

Modules, each importing only those before it: ``lexicon`` (segmenter dictionary),
``analysis`` (folding, words, grams), ``citations``, ``inforce`` (2017 citations: the
records that became them), ``synonyms``, ``schema`` (whoosh
fields, jieba tokenizer), ``index`` (build/open), ``parse`` (query -> groups), ``rank``
(BM25 channels, coverage), ``snippet``, ``engine`` (``SearchEngine``, ``search``),
``cli`` (``kb search``); ``query`` keeps the old names.

The contract with the static site's search (keep these four stable):

* ``normalize(text)``: the search form of a text (fullwidth folded, OpenCC t2s,
  lowercase; same length as the text);
* ``tokenize(text, lexicon)`` / ``char_grams(text, lexicon)``: the word terms and the
  negation-marked bigram terms of a text, exactly as the index holds them; the lexicon
  is ``Lexicon.load(index_dir / "lexicon.json")`` (written by the build);
* ``load_synonyms()``: the curated synonym groups (``Synonyms``: ``expand(word)``,
  ``phrases`` for multi-word English terms), and ``mined.json`` in the index for the pairs
  mined from the two translations;
* ``parse_citation(query)`` / ``split_citations(query)``: the citations in a query;
  ``split_work(query, work_names_pattern(names), names)``: the one book a query names;
  ``split_codes(query)``: its citations by the 2017 numbers (2017 27B1b, 新规则 27B).

What the site's browser engine (kb/site/static_search.py, docs/assets/kb-engine.js) mirrors
is exported here too: ``fold`` and ``analyze`` (words, bigrams, unigrams; English words by
their stem, ``IRREGULAR`` its table of past forms), ``load_mined``,
the query grammar (``STOPWORDS``, ``QUESTION_PREFIXES``, ``NEGATION_FORMS``, ``NEGATORS``,
``PHRASE_RE``, ``COUNTED_RE``, ``BOARD_RE``, ``DEFINITION_RES`` ...), the citation grammar
(``CITATION_PATTERNS`` ..., ``CODE_MARK`` ... for the 2017 numbers, whose map and notes are
kb/search/inforce.py's), the ranking constants (``RANKING``) and the definition test's
marks (``DEFINITION_MARKS``, ``DEFINITION_WINDOW``), and which clauses are bare headings
(``bare_heading``, ``HEADING_WINDOW``), and when an answer's results are withheld as matching the
question too little (``WEAK_COVERAGE``, ``WEAK_DEPTH``; the note itself: kb/search/outside.py).

Names are imported lazily so that importing the package loads nothing heavy.
"""
from __future__ import annotations

from typing import Any

_EXPORTS = {
    "search": "kb.search.engine",
    "SearchEngine": "kb.search.engine",
    "get_engine": "kb.search.engine",
    "build_index": "kb.search.index",
    "open_index": "kb.search.index",
    "is_fresh": "kb.search.index",
    "normalize": "kb.search.analysis",
    "tokenize": "kb.search.analysis",
    "char_grams": "kb.search.analysis",
    "Lexicon": "kb.search.lexicon",
    "load_synonyms": "kb.search.synonyms",
    "parse_citation": "kb.search.citations",
    "split_citations": "kb.search.citations",
    "split_work": "kb.search.citations",
    "work_names_pattern": "kb.search.citations",
    "Cite": "kb.search.citations",
    "split_codes": "kb.search.citations",
    "main": "kb.search.cli",
    # mirrored by the site's browser engine (kb/site/static_search.py)
    "fold": "kb.search.analysis",
    "analyze": "kb.search.analysis",
    "NEGATORS": "kb.search.analysis",
    "NEG": "kb.search.analysis",
    "IRREGULAR": "kb.search.analysis",
    "GENERIC_FREQ": "kb.search.lexicon",
    "load_mined": "kb.search.synonyms",
    "CITATION_PATTERNS": "kb.search.citations",
    "CITATION_LEADING": "kb.search.citations",
    "CN_DIGITS": "kb.search.citations",
    "CN_UNITS": "kb.search.citations",
    "MAX_LAW": "kb.search.citations",
    "MAX_PATTERN": "kb.search.citations",
    "MIN_BARE_LAW": "kb.search.citations",
    "CODE_MARK": "kb.search.citations",
    "CODE_GAP": "kb.search.citations",
    "CODE_ATTEMPT": "kb.search.citations",
    "CODE_LAW": "kb.search.citations",
    "STOPWORDS": "kb.search.parse",
    "QUESTION_PREFIXES": "kb.search.parse",
    "NEGATION_FORMS": "kb.search.parse",
    "PHRASE_RE": "kb.search.parse",
    "QUOTES": "kb.search.parse",
    "COUNTED_RE": "kb.search.parse",
    "BOARD_RE": "kb.search.parse",
    "NUMERALS": "kb.search.parse",
    "DEFINITION_RES": "kb.search.parse",
    "MAX_GROUPS": "kb.search.parse",
    "PHRASE_FEW": "kb.search.parse",
    "MAX_QUERY_CHARS": "kb.search.request",
    "SYNONYM_WEIGHT": "kb.search.parse",
    "MINED_WEIGHT": "kb.search.parse",
    "GENERIC_WEIGHT": "kb.search.parse",
    "game_words": "kb.search.parse",
    "RANKING": "kb.search.rank",
    "SNIPPET_CHARS": "kb.search.snippet",
    "DEFINITION_WINDOW": "kb.search.engine",
    "HEADING_WINDOW": "kb.search.engine",
    "WEAK_COVERAGE": "kb.search.engine",
    "WEAK_DEPTH": "kb.search.engine",
    "bare_heading": "kb.search.schema",
}
# Exported under another name than the module's own (modules kept as they are).
_ALIASES = {"DEFINITION_MARKS": ("kb.search.engine", "_DEF_MARKS")}

__all__ = sorted([*_EXPORTS, *_ALIASES])


def __getattr__(name: str) -> Any:
    module, attr = _EXPORTS.get(name), name
    if module is None and name in _ALIASES:
        module, attr = _ALIASES[name]
    if module is None:
        raise AttributeError(f"module 'kb.search' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), attr)
