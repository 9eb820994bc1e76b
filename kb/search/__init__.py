"""Full-text search over the clause records (whoosh + jieba + OpenCC).

    from kb.search import search, build_index, open_index, parse_citation
    search("莊家說大", records_path="build/records.jsonl", index_dir="build/index")

Modules: ``analysis`` (folding, tokenizers), ``citations`` (45C4(b), 第64条 ...),
``synonyms`` (curated groups), ``index`` (build/open, freshness), ``query``
(``SearchEngine``, ``search``), ``cli`` (``kb search``). Names are imported lazily so
that importing the package does not load jieba or whoosh.
"""
from __future__ import annotations

from typing import Any

_EXPORTS = {
    "search": "kb.search.query",
    "SearchEngine": "kb.search.query",
    "get_engine": "kb.search.query",
    "build_index": "kb.search.index",
    "open_index": "kb.search.index",
    "is_fresh": "kb.search.index",
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
