"""Taking a query apart: citations, quoted phrases, English terms, definition questions, words.

A query is never parsed as a query language: AND/OR/NOT, ``*``, ``field:`` or a stray
quote are only text. The parts:

* citations (see ``citations``): 45C4(b), 第六十四条, Law 64A2 ...;
* quoted phrases ("…", “…”, 「…」): required, matched as typed;
* synonym members with Latin letters, longest first (``major penalty card``), so that a
  multi-word English term is one group, not its words;
* a definition question (什么是X, X是什么意思, X的定义 ...): X is remembered, so the clause
  that defines X can be put first;
* the remaining words, cut as the index cuts text (negators joined: 不同意 is one word);
  only question words and particles are dropped (问, 算, 不 ... are kept: they can carry
  the question's meaning), and a word no clause holds still counts for nothing.

Each word becomes a ``Group``: the word and the strings that count as it (curated
synonyms, mined counterparts from the other translation, single-character rewrites).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from kb.core.errors import KbError
from kb.search.analysis import NEGATORS, analyze, is_cjk, is_traditional, normalize, stem
from kb.search.citations import Cite, split_citations, split_codes, split_work, work_names_pattern
from kb.search.lexicon import Lexicon
from kb.search.request import PHRASE_RE, check_query
from kb.search.snippet import mark_order
from kb.search.synonyms import Synonyms

MAX_GROUPS = 24
# Fewer results than this for a quoted phrase: the query's words, unquoted, fill the list after them
PHRASE_FEW = 3
SYNONYM_WEIGHT = 0.85
MINED_WEIGHT = 0.7
GENERIC_WEIGHT = 0.7   # words of everyday language (not curated, frequent in jieba's dictionary)

# Query-only stopwords: question words and particles (the index keeps every word).
STOPWORDS = frozenset("""
的 了 吗 呢 么 吧 啊 呀 哦 嘛 是 里 这 那 这个 那个 个 地 得 着 过 和 与 及 或 或者
怎么 怎么样 怎样 如何 什么 啥 哪 哪些 哪个 哪里 为什么 为何 请问 请 一下 一般
可以 可不可以 能否 能不能 是否 是不是 会不会 要不要 该怎么 怎么办 咋 咋办
时候 的话 有没有 还是 么样 行不行 对不对 对吗 算不算
我 你 他 她 它 我们 你们 他们 咱们 人家 东家 南家 西家 北家 但 但是 可是 不过 其实 就 才 都 也 又 还 还要 还能
已经 已 很 太 挺 真的 到底 究竟 而且 并且 然后 那么 这样 那样 一 下 之后 以后 之前 以前 后 呢 几 多少
and or not the a an of to is in on for what how does do can i my if when with be
by at from as are was were it its he his him she her they their them you your me this that there
should would will could happen happens happened
s t d m ll re ve don doesn didn isn aren wasn weren hasn haven hadn shouldn couldn wouldn
""".split())
# an English query word is compared by its stem (analysis.stem), the stopwords' stems with it
STOPWORDS = STOPWORDS | frozenset(stem(w) for w in STOPWORDS)
QUESTION_PREFIXES = ("多少", "几")
NEGATION_FORMS = ("不", "未", "没", "没有", "无", "非")

_PHRASE_RE = PHRASE_RE
_QUOTES = '"“”「」『』《》'
# 12墩, 7线: the Laws write these counts in Chinese numerals (第十二墩, 七线)
_COUNTED = re.compile(r"(?<![0-9a-z])([1-9][0-9]?)(?=\s*[墩线轮])")
_NUMERALS = "零一二三四五六七八九"
# 第7副: the board a director is told about names the deal, not a rule (第7副北家叫低了): left out
_BOARD = re.compile(r"第\s*[0-9]{1,3}\s*副牌?")


def chinese_numeral(n: int) -> str:
    """1..99 in Chinese numerals as the Laws write them (12 -> 十二, 20 -> 二十, 7 -> 七)."""
    tens, ones = divmod(n, 10)
    if not tens:
        return _NUMERALS[ones]
    return ("" if tens == 1 else _NUMERALS[tens]) + "十" + (_NUMERALS[ones] if ones else "")
_DEFINITION_RES = (
    re.compile(r"^\s*(?:请问\s*)?(?:什么是|什么叫做?|何谓|何为|啥是|啥叫|what\s+is\s+(?:an?\s+|the\s+)?)"
               r"\s*(?P<term>.+?)\s*[?？。!！]*\s*$"),
    re.compile(r"^\s*(?P<term>.+?)\s*(?:是什么意思|什么意思|啥意思|的意思|的定义|是什么|是啥|是指什么|"
               r"指的是什么|指什么|怎么定义|如何定义|的含义|的解释)\s*[?？吗呢。!！]*\s*$"),
)


@dataclass
class Group:
    """One query word (or quoted phrase, or English term) and the strings that count as it."""

    label: str
    alts: list[tuple[str, float]] = field(default_factory=list)   # normalized, weight
    required: bool = False
    weight: float = 1.0             # an everyday word weighs less than a term of the rules

    def strings(self) -> list[str]:
        return [a for a, _ in self.alts]

    @property
    def english(self) -> bool:
        """The word was typed in English (its clauses' English phrases count for it)."""
        return self.label.isascii()


@dataclass
class ParsedQuery:
    """A query taken apart: citations, word groups, the defined term, display script."""

    cites: list[Cite]
    groups: list[Group]
    script: str
    defines: str | None = None
    text: str = ""                  # the words' part of the query (for whole-query grams)
    family: str | None = None       # the family of rule books the query names (桥牌, 麻将), if one
    work: str | None = None         # the one book the query names (laws1997 47E2, 1997版), if one
    codes: list[Cite] = field(default_factory=list)   # citations by the code in force's numbers (2017 27B1b)
    unread: list[str] = field(default_factory=list)   # attempts at one that are none (2017版99条), as typed

    @property
    def empty(self) -> bool:
        return not self.cites and not self.groups

    @cached_property
    def marks(self) -> tuple[str, ...]:
        """Every string of the groups, once, longest first (the order snippets mark them in);
        a single character only when the query has no longer string (牌 in 防家亮出一张牌 would be
        marked in every line)."""
        strings = {s for g in self.groups for s in g.strings() if s}
        if any(len(s) > 1 for s in strings):
            strings = {s for s in strings if len(s) > 1}
        return mark_order(strings)


def clean_query(q: Any) -> str:
    """The query's type and limits checked (kb.search.request.check_query), control characters
    replaced by spaces; KbError if unusable."""
    return check_query(q)


def definition_term(text: str) -> str | None:
    """X of 什么是X / X是什么意思 / X的定义 / what is X (normalized text), else None."""
    for pattern in _DEFINITION_RES:
        m = pattern.match(text)
        if m and m.group("term").strip(" ?？"):
            return m.group("term").strip(" ?？")
    return None


def _latin_phrase(text: str, phrase: str) -> re.Match[str] | None:
    """``phrase`` in ``text`` as whole words, spaces or hyphens between them, with an
    English inflection (s, es, ed, 's) allowed at the end."""
    body = r"[\s\-]+".join(re.escape(w) for w in phrase.split())
    return re.search(r"(?<![a-z])" + body + r"(?:s|es|d|ed|'s|’s)?(?![a-z])", text)


class QueryParser:
    """Parses queries against one lexicon and one set of synonyms."""

    def __init__(self, lex: Lexicon, syn: Synonyms, known: Callable[[str], bool],
                 games: dict[str, str] | None = None, books: dict[str, str] | None = None):
        self.lex = lex
        self.syn = syn
        self.known = known          # does some clause contain this string?
        self.phrases = syn.phrases
        self.games = game_words(games or {}, lex)
        self.books = books or {}    # the names a question gives one book by (works.query_names)
        self.books_re = work_names_pattern(self.books)

    def parse(self, q: str, script: str | None = None) -> ParsedQuery:
        """Split a cleaned query into citations, phrase groups, English terms and word groups."""
        shown = script or ("hant" if is_traditional(q) else "hans")
        original = q
        work, q = split_work(q, self.books_re, self.books)
        codes, attempts, q = split_codes(q)        # 2017 27B1b, 新规则 27B: the code in force's numbers
        unread = [original[a:b] for a, b in attempts]
        cites, rest = split_citations(q)
        rest = normalize(rest)
        groups: list[Group] = []
        seen: set[str] = set()

        def phrase(m: re.Match[str]) -> str:
            text = " ".join(next(g for g in m.groups() if g is not None).split())
            words = [w for w, _, _ in analyze(text, self.lex).words]
            if words and text not in seen and not (len(words) == 1 and words[0] in STOPWORDS):
                seen.add(text)
                groups.append(Group(text, [(text, 1.0)], required=True))
            return " "

        rest = _PHRASE_RE.sub(phrase, rest)
        rest = _BOARD.sub(" ", rest)
        rest = _COUNTED.sub(lambda m: chinese_numeral(int(m.group(1))), rest)
        rest = unquoted(rest)
        defines = definition_term(rest)
        if defines is not None:
            rest = defines          # 什么叫诈和: the asked term's words, not the question's frame (叫)
        if any("a" <= c <= "z" for c in rest):
            for p in self.phrases:
                if not all(w in rest for w in p.split()):   # each word is in the text as typed
                    continue
                m = _latin_phrase(rest, p)
                while m is not None:
                    if p not in seen:
                        seen.add(p)
                        groups.append(self._group(p))
                    rest = rest[:m.start()] + " " + rest[m.end():]
                    m = _latin_phrase(rest, p)
        words = [_unprefixed(w) for w in self._words(rest)]
        # 桥牌里明手是什么意思: a word naming the game chooses the family of books; it is not a
        # word the clauses must hold (unless the query has nothing else)
        asked = bool(cites or groups or codes) or any(w not in STOPWORDS and w not in self.games for w in words)
        named = {self.games[w] for w in words if w in self.games} if asked else set()
        for w in words:
            if w in STOPWORDS or w in seen or (named and w in self.games):
                continue
            seen.add(w)
            groups.append(self._group(w))
            if len(groups) >= MAX_GROUPS:
                break
        if defines is not None:
            defines = "".join(w for w, _, _ in analyze(defines, self.lex).words
                              if w not in STOPWORDS and not (named and w in self.games)) or None
        if named:
            for w in self.games:
                if not w.isascii():
                    rest = rest.replace(w, " ")   # nor are its characters (the whole-query grams)
        return ParsedQuery(cites, groups, shown, defines, " ".join(rest.split()),
                           next(iter(named)) if len(named) == 1 else None, work, codes, unread)

    def _words(self, text: str) -> list[str]:
        """The query's words; a word of everyday language that no clause holds and no synonym
        explains is cut again without it when that yields a term of the rules
        (要胡同一张 -> 要 胡 同 一张, not 胡同 "alley")."""
        out: list[str] = []
        for w, _, _ in analyze(text, self.lex).words:
            if (len(w) > 1 and w[0] not in NEGATORS and w not in self.lex.domain and not self.known(w)
                    and not self.syn.expand(w) and not self.syn.expand_mined(w)
                    and all(is_cjk(c) for c in w)):
                pieces = self.lex.cut_run(w, without=w)
                if any(p in self.lex.domain or (len(p) > 1 and self.known(p)) for p in pieces):
                    out.extend(pieces)
                    continue
            out.append(w)
        return out

    def _group(self, w: str) -> Group:
        alts: list[tuple[str, float]] = [(w, 1.0)] if self.known(w) else []
        names = {w}

        def add(s: str, weight: float) -> None:
            if s not in names and s not in STOPWORDS:
                names.add(s)
                alts.append((s, weight))

        for s in self.syn.expand(w):
            add(s, SYNONYM_WEIGHT)
        for s in self.syn.expand_mined(w):
            add(s, MINED_WEIGHT)
        for s in self.syn.char_rewrites(w):
            if self.known(s):
                add(s, SYNONYM_WEIGHT)
        if len(w) > 1 and w[0] in NEGATORS and self.lex.freq.get(w[1:]) and not self.lex.freq.get(w):
            # a negation the analysis joined (不碰 = 未碰 = 没碰), not a word such as 没有; and the
            # negation of a synonym of its word, with what that means (没跟出: 跟出 = 跟牌, and
            # 没跟牌 is a form of 藏牌)
            for base in (w[1:], *self.syn.expand(w[1:])):
                for neg in NEGATION_FORMS:
                    s = neg + base
                    means = self.syn.expand(s)
                    if base != w[1:] and means:
                        add(s, SYNONYM_WEIGHT)
                        for t in means:
                            add(t, SYNONYM_WEIGHT)
                    elif self.known(s):
                        add(s, SYNONYM_WEIGHT)
        if not alts:
            alts.append((w, 1.0))
        weight = GENERIC_WEIGHT if self.lex.generic(w) and not w.isascii() else 1.0
        return Group(w, [(s, x * weight) for s, x in alts], weight=weight)


def game_words(games: dict[str, str], lex: Lexicon) -> dict[str, str]:
    """The words naming a game (works.game_names: 桥牌, 麻将, mahjong) as the analysis gives them
    (an English one by its stem), each with the family of books it names; KbError for a name the
    analysis cuts into several words (a query could never hold it as one)."""
    out: dict[str, str] = {}
    for name, fam in games.items():
        words = [w for w, _, _ in analyze(name, lex).words]
        if len(words) != 1:
            raise KbError(f"game name '{name}' (kb/data/works.toml) is not one word of the search lexicon: "
                          f"{' '.join(words) or 'no word'}")
        out[words[0]] = fam
    return out


def _unprefixed(w: str) -> str:
    """A query word without a question prefix (多少分 -> 分, 几台 -> 台)."""
    for p in QUESTION_PREFIXES:
        if w.startswith(p) and len(w) > len(p):
            w = w[len(p):]
    return w


def unquoted(q: str) -> str:
    """The query with its quotation marks taken out: quoted words become ordinary words. A mark
    between two Chinese characters goes (庄家只说“草花”没说几 reads as typed without them: the
    question's bigrams across the marks count); any other becomes a space."""
    chars = list(q)
    out = []
    for i, ch in enumerate(chars):
        if ch not in _QUOTES:
            out.append(ch)
            continue
        before = next((c for c in reversed(chars[:i]) if c not in _QUOTES), "")
        after = next((c for c in chars[i + 1:] if c not in _QUOTES), "")
        out.append("" if before and after and is_cjk(before) and is_cjk(after) else " ")
    return "".join(out)


# The query grammar under public names (mirrored by the site's browser engine).
PHRASE_RE = _PHRASE_RE
QUOTES = _QUOTES
COUNTED_RE = _COUNTED
BOARD_RE = _BOARD
NUMERALS = _NUMERALS
DEFINITION_RES = _DEFINITION_RES
