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
``analysis`` (folding, words, grams), ``citations``, ``synonyms``, ``schema`` (whoosh
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
* ``parse_citation(query)`` / ``split_citations(query)``: the citations in a query.

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
    "Cite": "kb.search.citations",
    "main": "kb.search.cli",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kb.search' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
