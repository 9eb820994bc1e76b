"""Rules as code for 台湾十六张麻将 (``twmj16``): the 台 of a winning hand and who pays whom.

Modules: tiles, hand (input and its checks), layouts, patterns (names and 台 from
kb/data/mahjong/patterns.tsv), scoring, settlement, notation (one-line hands), examples.
This package re-exports the public names for callers of the former single module.
"""
from kb.rules.mahjong.examples import EXAMPLES_PATH, check_examples, check_settlements, known_clauses, load_examples
from kb.rules.mahjong.hand import KNOWN_FIELDS, clause, parse_hand
from kb.rules.mahjong.notation import parse_line
from kb.rules.mahjong.patterns import BY_NUMBER, PATTERNS, pattern_rows
from kb.rules.mahjong.scoring import EXCLUSIONS, INTERPRETATIONS, score
from kb.rules.mahjong.settlement import settle

__all__ = [
    "score", "settle", "parse_hand", "parse_line", "check_examples", "check_settlements", "known_clauses",
    "load_examples", "clause", "pattern_rows", "PATTERNS", "BY_NUMBER", "EXCLUSIONS",
    "INTERPRETATIONS", "KNOWN_FIELDS", "EXAMPLES_PATH",
]
