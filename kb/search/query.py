"""The engine's names under their old module (``from kb.search.query import SearchEngine``).

The engine lives in ``kb.search.engine``; ``main`` runs ``kb search`` (``kb.search.cli``).
Neither of those imports this module, so there is no import cycle.
"""
from __future__ import annotations

from collections.abc import Sequence

from kb.search.engine import SearchEngine, default_index, default_records, get_engine, reset_engines, search
from kb.search.snippet import highlight, plain_snippet

__all__ = ["SearchEngine", "default_index", "default_records", "get_engine", "highlight", "main",
           "plain_snippet", "reset_engines", "search"]


def main(argv: Sequence[str] | None = None) -> int:
    """``kb search`` (see kb.search.cli)."""
    from kb.search.cli import main as cli_main

    return cli_main(argv)
