"""The site's static search index: the server engine's analysis and ranking data, for the browser.

`kb build` writes, per edition, content-addressed chunks under `idx/`:

* `meta.<hash>.js`: the fold table, the query grammar (stopwords, question prefixes,
  phrase, count and definition patterns), the citation grammar (kb.search's regular
  expressions, translated), synonyms (curated and mined from the twin translations), the
  ranking constants, the lexicon's total and curated words, rule-book families from
  kb/data/works.toml, per-record ids, twins (kb/ingest/twins.py), paths, families and field lengths,
  and what no book holds (kb/search/outside.py ``site_table``, in the edition's script) with the
  coverage under which an answer's results are withheld (engine.py WEAK_COVERAGE); the map from
  each 2017 citation to the records that became it, and the notes on one (kb/search/inforce.py);
* `l<N>.<hash>.js`: the search lexicon (``index/lexicon.json``: words and frequencies)
  sharded by a hash of the word's first character, so the browser cuts a query exactly
  as jieba's ``cut(HMM=False)`` does (``Lexicon.cut_run``) and loads only the shards of
  the query's characters;
* `p<N>.<hash>.js`: postings (title/text/context words, bigrams, unigrams with negation
  marks) sharded by a hash of the term;
* `d<N>.<hash>.js`: display text in blocks of records (with each bridge record's concordance line).

Nothing is loaded before the first search. Every chunk is a script,
`kbIndexChunk(name, data)`, so it loads with a <script> tag from http(s) and from file://
alike. The analysis is kb.search's own (``analyze``, ``fold``, ``Lexicon``), so the browser
reads text as the server does; docs/assets/kb-engine.js ports the ranking of
kb/search/rank.py and engine.py.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import kb.search as ks
from kb.core import works
from kb.core.errors import KbError
from kb.core.records import Record
from kb.ingest.concordance import changed_below
from kb.ingest.normalise import to_hant
from kb.search.analysis import search_form
from kb.search.index import read_documents
from kb.search.inforce import CodeMap, line, site_texts
from kb.search.inforce import table_text as code_text
from kb.search.lexicon import Lexicon
from kb.search.outside import site_table, table_text
from kb.search.postings import Postings
from kb.search.schema import index_terms
from kb.search.snippet import shown_text, under
from kb.site.layout import Layout

INDEX_DIR = "idx"
DOC_BLOCK = 64             # records per display chunk
SHARD_TARGET = 24_000      # aim for postings shards of about this many characters of JSON
LEXICON_TARGET = 20_000    # and lexicon shards of about this many
CHECK_TERMS = ("明手", "藏牌", "罚张", "定约人")
WORD_SLOTS = tuple(ks.RANKING["wordFields"])   # the word fields, in the order of a posting's counts
# engine.defines' patterns (kb/search/engine.py): X after one of these, or before one of those.
DEFINES_BEFORE = ("所谓", "称为", "称之为", "叫做", "即为", "即成为", "是谓", "是为", "谓之")
DEFINES_AFTER = ("系指", "是指", "即是")


def term_hash(term: str) -> int:
    """FNV-1a (32 bit) over the UTF-16 code units of ``term`` (kb-engine.js computes the same)."""
    h = 0x811C9DC5
    data = term.encode("utf-16-le")
    for i in range(0, len(data), 2):
        h ^= data[i] | (data[i + 1] << 8)
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def js_regex(pattern: re.Pattern[str]) -> list[str]:
    """A Python pattern as [source, flags] for JavaScript's RegExp."""
    source = pattern.pattern.replace("(?P<", "(?<")
    if "(?P" in source:
        raise KbError(f"cannot translate {pattern.pattern!r} to JavaScript")
    return [source, "i" if pattern.flags & re.IGNORECASE else ""]


def _index_counts(records: list[Record], index_dir: Path) -> list[dict[str, dict[str, int]]]:
    """Each record's terms with their frequencies per field, as the server index cut them (its
    whoosh postings: the browser reads text exactly as the server does, and nothing is cut twice)."""
    docs = read_documents(index_dir)
    if [d["id"] for d in docs] != [r.id for r in records]:
        raise KbError(f"{index_dir}: the search index is not of these records (run `kb build`)")
    postings = Postings(index_dir)
    try:
        return postings.document_counts()
    finally:
        postings.close()


def _shard_count(size: int, target: int) -> int:
    return max(4, 1 << max(0, math.ceil(math.log2(max(1, size / target)))))


class StaticIndex:
    """Postings, lexicon and tables computed once; written once per edition."""

    def __init__(self, records: list[Record], layout: Layout, index_dir: Path):
        ranking = ks.RANKING
        if ranking["fusion"] != "sum":
            raise KbError(f"the site's search engine ranks by summed scores, not {ranking['fusion']!r} fusion")
        self.records = records
        self.layout = layout
        self.lex = Lexicon.load(index_dir / "lexicon.json")
        self.mined = ks.load_mined(index_dir)
        counts = _index_counts(records, index_dir)
        postings: dict[str, dict[int, list[int]]] = defaultdict(dict)
        lengths: dict[str, list[int]] = {f: [] for f in (*WORD_SLOTS, "bigram", "unigram")}
        for n, doc in enumerate(counts):
            for slot, name in enumerate(WORD_SLOTS):
                lengths[name].append(sum(doc[name].values()))
                for w, c in doc[name].items():
                    postings["w:" + w].setdefault(n, [0] * len(WORD_SLOTS))[slot] = c
            for kind, name in (("b", "bigram"), ("u", "unigram")):
                lengths[name].append(sum(doc[name].values()))
                for t, c in doc[name].items():
                    postings[f"{kind}:{t}"][n] = [c]
        self.postings = postings
        self.lengths = lengths
        self._lexicon_shards: list[dict[str, int]] | None = None
        self._postings_shards: list[dict[str, dict[str, list[int]]]] | None = None
        self._meta: dict[str, Any] | None = None
        self._shared: list[tuple[str, str, str]] | None = None
        self.changed_below = changed_below(records)   # a changed rule under them: said in their line
        self.children: dict[str, list[Record]] = {}   # a heading's clauses, in order (its snippet in the results)
        for rec in records:
            if rec.parent:
                self.children.setdefault(rec.parent, []).append(rec)

    # --- tables -------------------------------------------------------------------------

    def fold_table(self) -> tuple[str, str]:
        """Every character of the records, the curated data and ASCII, with its fold (same length)."""
        chars: set[str] = set()
        for r in self.records:
            chars.update(r.title_hans + r.text_hans + r.title_hant + r.text_hant + "".join(index_terms(r.subjects, r.questions)))
        syn, fold = ks.load_synonyms(), ks.fold
        for group in syn.groups:
            for m in group:
                chars.update(m)
        chars.update(c for c in table_text() if not c.isspace())   # what no book holds (matched in search form)
        chars.update(c for c in code_text() if not c.isspace())    # the notes on 2017 citations
        for w in self.lex.freq:
            chars.update(w)
        # every Traditional or variant character that folds onto one of these (抽菸 is asked as 抽烟,
        # a word of outside.tsv): one OpenCC call over the CJK block, so the browser folds what the
        # server folds wherever it matters (a character folding onto none of these finds nothing)
        block = [chr(c) for c in range(0x4E00, 0xA000)]
        folded = ks.fold("\n".join(block)).split("\n")
        if len(folded) != len(block):
            raise KbError("OpenCC changed the number of lines of the CJK block")
        chars.update([c for c, f in zip(block, folded) if f != c and f in chars])
        chars.update(chr(c) for c in range(0x21, 0x7F))
        chars.update(chr(c) for c in range(0xFF01, 0xFF5F))
        chars.add("\u3000")
        ordered = sorted(chars)
        converted = to_hant("\n".join(ordered)).split("\n")   # one call; a line break ends every phrase
        if len(converted) != len(ordered):
            raise KbError("OpenCC changed the number of lines of the fold table's characters")
        chars |= {h for h in converted if len(h) == 1}
        src, dst = [], []
        for c in sorted(chars):
            f = fold(c)
            if f != c and len(f) == 1:
                src.append(c)
                dst.append(f)
        return "".join(src), "".join(dst)

    def _families(self) -> tuple[list[str], list[int]]:
        """The rule-book family of each record: a work and its twin are one (as the engine has it)."""
        names: list[str] = []
        out: list[int] = []
        for r in self.records:
            fam = works.family(r.work)
            if fam not in names:
                names.append(fam)
            out.append(names.index(fam))
        return names, out

    def lexicon_shards(self) -> list[dict[str, int]]:
        """The lexicon in shards by its words' first character (computed once for both editions)."""
        if self._lexicon_shards is None:
            size = sum(len(w) + 8 for w in self.lex.freq)
            count = _shard_count(size, LEXICON_TARGET)
            shards: list[dict[str, int]] = [{} for _ in range(count)]
            shard_of: dict[str, int] = {}
            for w in sorted(self.lex.freq):
                k = shard_of.get(w[0])
                if k is None:
                    k = shard_of[w[0]] = term_hash(w[0]) % count
                shards[k][w] = self.lex.freq[w]
            self._lexicon_shards = shards
        return self._lexicon_shards

    def shard_count(self) -> int:
        size = sum(len(t) + 4 * len(p) * 3 for t, p in self.postings.items())
        return _shard_count(size, SHARD_TARGET)

    def _shards(self) -> list[dict[str, dict[str, list[int]]]]:
        """The postings in shards by term (computed once for both editions)."""
        if self._postings_shards is None:
            self._postings_shards = self._make_shards()
        return self._postings_shards

    def _make_shards(self) -> list[dict[str, dict[str, list[int]]]]:
        count = self.shard_count()
        shards: list[dict[str, dict[str, list[int]]]] = [{"w": {}, "b": {}, "u": {}} for _ in range(count)]
        for term in sorted(self.postings):
            kind, text = term.split(":", 1)
            flat: list[int] = []
            prev = 0
            for doc, row in sorted(self.postings[term].items()):
                flat.append(doc - prev)
                flat.extend(row)
                prev = doc
            shards[term_hash(term) % count][kind][text] = flat
        return shards

    def meta(self) -> dict[str, Any]:
        """The edition-independent meta chunk (a fresh copy each call; computed once)."""
        if self._meta is None:
            self._meta = self._make_meta()
        return json.loads(json.dumps(self._meta))

    def _make_meta(self) -> dict[str, Any]:
        work_ids = list(works.work_ids())
        recs = self.records
        syn = ks.load_synonyms()
        families, family = self._families()
        n = max(1, len(recs))
        position = {r.id: k for k, r in enumerate(recs)}
        held = {r.work for r in recs}
        books = {name: w for name, w in works.query_names().items() if w in held}
        books_re = ks.work_names_pattern(books)
        return {
            "version": 2,
            "count": len(recs),
            "ids": [r.id for r in recs],
            "work": [work_ids.index(r.work) for r in recs],
            "pathkey": ["".join(p + "/" for p in r.path) for r in recs],
            "order": [r.order for r in recs],
            "titles": [search_form(r.title_hans or "") for r in recs],   # as rank.py Ranker.title
            "headings": [k for k, r in enumerate(recs) if ks.bare_heading(r.text_hans, r.id in self.children)],
            "headingWindow": ks.HEADING_WINDOW,
            "families": families,
            "family": family,
            "lengths": self.lengths,
            "avg": {f: max(1.0, sum(v) / n) for f, v in self.lengths.items()},
            "works": work_ids,
            "twin": [position.get(r.twin, -1) if r.twin else -1 for r in recs],   # the records' twin
            "fold": list(self.fold_table()),
            "lexicon": {"total": self.lex.total, "maxlen": self.lex.maxlen, "domain": sorted(self.lex.domain),
                        "generic": ks.GENERIC_FREQ},
            "synonyms": {"index": syn.index, "chars": syn.chars, "phrases": syn.phrases, "mined": self.mined},
            "query": {
                "stopwords": sorted(ks.STOPWORDS), "questionPrefixes": list(ks.QUESTION_PREFIXES),
                "negationForms": list(ks.NEGATION_FORMS), "negators": "".join(sorted(ks.NEGATORS)),
                "neg": ks.NEG, "irregular": ks.IRREGULAR, "phrase": js_regex(ks.PHRASE_RE), "quotes": ks.QUOTES,
                "counted": js_regex(ks.COUNTED_RE), "board": js_regex(ks.BOARD_RE), "numerals": ks.NUMERALS,
                "definition": [js_regex(p) for p in ks.DEFINITION_RES],
                "maxGroups": ks.MAX_GROUPS, "maxQuery": ks.MAX_QUERY_CHARS, "phraseFew": ks.PHRASE_FEW,
                "synonym": ks.SYNONYM_WEIGHT, "mined": ks.MINED_WEIGHT, "generic": ks.GENERIC_WEIGHT,
                # a word naming a game, and the family (its place in ``families``) it names
                "games": {w: families.index(fam) for w, fam in ks.game_words(works.game_names(), self.lex).items()
                          if fam in families},
            },
            "citations": {
                "patterns": [[kind, *js_regex(p)] for kind, p in ks.CITATION_PATTERNS],
                "leading": ks.CITATION_LEADING, "maxLaw": ks.MAX_LAW, "maxPattern": ks.MAX_PATTERN, "minBareLaw": ks.MIN_BARE_LAW,
                "cnDigits": ks.CN_DIGITS, "cnUnits": ks.CN_UNITS,
                "mahjongWork": ks.parse_citation("计台名堂 1")[0].work,
                # what a question names one book by (works.query_names), and the pattern finding them
                "books": books, "booksRe": js_regex(books_re) if books_re else None,
                # a citation by the 2017 numbers: its marker, what may stand between, an attempt at one
                "codeMark": js_regex(ks.CODE_MARK), "codeGap": js_regex(ks.CODE_GAP),
                "codeAttempt": js_regex(ks.CODE_ATTEMPT), "codeLaw": js_regex(ks.CODE_LAW),
            },
            # each 2017 citation the records' concordance names, with the records (kb/search/inforce.py)
            "codeMap": CodeMap([r.concordance for r in recs],
                               lambda k: (work_ids.index(recs[k].work), recs[k].order)).site_table(),
            "ranking": ks.RANKING,
            "definitions": {"window": ks.DEFINITION_WINDOW, "marks": list(ks.DEFINITION_MARKS),
                            "before": list(DEFINES_BEFORE), "after": list(DEFINES_AFTER)},
            "snippet": ks.SNIPPET_CHARS,
            # engine.py answer: results covering less of the question than this are withheld
            "weak": {"coverage": ks.WEAK_COVERAGE, "depth": ks.WEAK_DEPTH},
            "shards": self.shard_count(),
            "docBlock": DOC_BLOCK,
        }

    def _doc_blocks(self, script: str) -> list[dict[str, Any]]:
        """Display data; in the Traditional edition, the Simplified title and text of the records
        whose search form differs (the engine tests definitions and marks words on those)."""
        hant = script == "hant"
        normalize = ks.normalize
        children = self.children
        blocks = []
        for start in range(0, len(self.records), DOC_BLOCK):
            block: dict[str, Any] = {"citation": [], "title": [], "text": [], "url": [], "subjects": [], "hans": {},
                                     "tai": {}, "under": {}, "inForce": {}}
            for k, rec in enumerate(self.records[start:start + DOC_BLOCK]):
                place = self.layout.place[rec.id]
                title = (rec.title_hant if hant else rec.title_hans) or rec.title_hans
                text = (rec.text_hant if hant else rec.text_hans) or rec.text_hans
                if rec.id in children:    # a heading or a lead-in: its clauses show (engine.py)
                    text = shown_text(text, [(to_hant(c.citation) if hant else c.citation,
                                              (c.title_hant if hant else c.title_hans) or "") for c in children[rec.id]])
                if rec.tai:
                    block["tai"][str(k)] = rec.tai
                if rec.concordance:       # shown when found by a 2017 citation (inforce.line, engine.py)
                    block["inForce"][str(k)] = line(rec.concordance, ks.bare_heading(rec.text_hans, rec.id in children),
                                                    script, rec.id in self.changed_below)
                parent = self.layout.by_id.get(rec.parent) if rec.parent else None
                if parent is not None:     # what the result says of the clause it stands under (engine.py)
                    block["under"][str(k)] = under(
                        to_hant(parent.citation) if hant else parent.citation,
                        (parent.title_hant if hant else parent.title_hans) or parent.title_hans,
                        (parent.text_hant if hant else parent.text_hans) or parent.text_hans)
                block["citation"].append(to_hant(rec.citation) if hant else rec.citation)
                block["title"].append(title)
                block["text"].append(text)
                block["url"].append(f"{place.page[:-3]}/#{place.anchor}")
                block["subjects"].append("\n".join(index_terms(rec.subjects, rec.questions)))
                if normalize(title) != normalize(rec.title_hans) or \
                        normalize(text) != normalize(rec.text_hans):
                    block["hans"][str(k)] = [rec.title_hans, rec.text_hans]
            blocks.append(block)
        return blocks

    def chunks(self, script: str) -> tuple[str, dict[str, str]]:
        """One edition's chunks: (the meta file's path, {path under the edition: text}); paths are
        ``idx/<name>.<content hash>.js``. The build writes them into the built edition."""
        files: dict[str, str] = {}
        texts: dict[str, str] = {}
        lex = self.lexicon_shards()
        if self._shared is None:     # the lexicon and the postings are the same in both editions: made once
            self._shared = [_chunk(f"l{i}", lshard) for i, lshard in enumerate(lex)] + \
                [_chunk(f"p{i}", shard) for i, shard in enumerate(self._shards())]
        made = list(self._shared) + [_chunk(f"d{i}", block) for i, block in enumerate(self._doc_blocks(script))]
        for name, filename, text in made:
            files[name] = f"{INDEX_DIR}/{filename}"
            texts[files[name]] = text
        meta = self.meta()
        meta["lexicon"]["shards"] = len(lex)
        meta["files"] = files
        meta["script"] = script
        meta["outside"] = site_table(script)   # what no book holds, and the notes, in the edition's script
        meta["codeNotes"] = site_texts(script)   # the notes on 2017 citations, in the edition's script
        _, filename, text = _chunk("meta", meta)
        texts[f"{INDEX_DIR}/{filename}"] = text
        return f"{INDEX_DIR}/{filename}", texts


def write_chunks(edition: Path, texts: dict[str, str]) -> None:
    """Write chunks made by ``StaticIndex.chunks`` into an edition."""
    (edition / INDEX_DIR).mkdir(parents=True, exist_ok=True)
    for rel, text in texts.items():
        (edition / rel).write_text(text, encoding="utf-8")


def _chunk(name: str, data: Any) -> tuple[str, str, str]:
    """(name, content-addressed file name, text) of one chunk."""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    text = f"kbIndexChunk({json.dumps(name)},{body});\n"
    digest = hashlib.sha256(text.encode()).hexdigest()[:10]
    return name, f"{name}.{digest}.js", text


_CHUNK = re.compile(r'^kbIndexChunk\("([^"]+)",(.*)\);\n?$', re.S)


def read_chunk(path: Path) -> tuple[str, Any]:
    """(name, data) of one chunk file; ValueError if it is not one."""
    m = _CHUNK.match(path.read_text(encoding="utf-8"))
    if not m:
        raise ValueError("not an index chunk")
    return m.group(1), json.loads(m.group(2))


def index_problems(site: Path) -> list[str]:
    """What is wrong with the built site's static search index, as one line per problem."""
    problems: list[str] = []
    for edition in ("hans", "hant"):
        root = site / edition
        metas = sorted((root / INDEX_DIR).glob("meta.*.js"))
        if len(metas) != 1:
            problems.append(f"{root / INDEX_DIR}: expected one meta.*.js, found {len(metas)}")
            continue
        try:
            _, meta = read_chunk(metas[0])
        except (OSError, ValueError) as exc:
            problems.append(f"{metas[0]}: unreadable ({exc})")
            continue
        chunks: dict[str, Any] = {}
        for name, rel in meta.get("files", {}).items():
            path = root / rel
            digest = rel.rsplit(".", 2)[-2]
            try:
                got_name, data = read_chunk(path)
            except (OSError, ValueError) as exc:
                problems.append(f"{path}: missing or unreadable ({exc})")
                continue
            if got_name != name or hashlib.sha256(path.read_bytes()).hexdigest()[:10] != digest:
                problems.append(f"{path}: name or content hash does not match the meta")
            chunks[name] = data
        count = meta.get("shards", 0)
        lex_count = meta.get("lexicon", {}).get("shards", 0)
        for term in CHECK_TERMS:
            lex = chunks.get(f"l{term_hash(term[0]) % lex_count}") if lex_count else None
            if not lex or term not in lex:
                problems.append(f"{metas[0]}: '{term}' is not a word of the static index's lexicon")
                continue
            shard = chunks.get(f"p{term_hash('w:' + term) % count}") if count else None
            if not shard or not shard["w"].get(term):
                problems.append(f"{root / INDEX_DIR}: no postings for the word '{term}'")
        if len(meta.get("ids", [])) != meta.get("count"):
            problems.append(f"{metas[0]}: record count does not match its ids")
    return problems
