"""The site's static search index: the server engine's analysis, exported for the browser.

`kb build` writes, per edition, `idx/meta.<hash>.js` (vocabulary, fold table, synonyms,
citation grammar, stopwords, twins, per-record lengths and ids) and content-addressed
chunks: postings sharded by a hash of the term (`idx/p<N>.<hash>.js`) and display text in
blocks of records (`idx/d<N>.<hash>.js`). A query loads the meta once, then only the
shards of its terms and the blocks of the records it shows. Every chunk is a script,
`kbIndexChunk(name, data)`, so it loads with a <script> tag from http(s) and from file://
alike. The analysis comes from kb.search (fold, jieba tokens, character grams, synonyms,
citation patterns, stopwords), so the browser and the server read text the same way.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from kb import works
from kb.normalise import to_hant
from kb.records import Record
from kb.search import analysis, citations
from kb.search import query as kbq
from kb.search.synonyms import load_synonyms
from kb.site.layout import Layout

INDEX_DIR = "idx"
DOC_BLOCK = 64             # records per display chunk
SHARD_TARGET = 24_000      # aim for postings shards of about this many characters of JSON
VOCAB_MIN_FREQ = 1000   # jieba frequency of the dictionary words the browser segments with (tuned on bench/queries.tsv)
CHECK_TERMS = ("明手", "藏牌", "罚张", "定约人")
_MJ = citations.parse_citation("计台名堂 1")[0]


def term_hash(term: str) -> int:
    """FNV-1a (32 bit) over the UTF-16 code units of ``term`` (kb-engine.js computes the same)."""
    h = 0x811C9DC5
    data = term.encode("utf-16-le")
    for i in range(0, len(data), 2):
        h ^= data[i] | (data[i + 1] << 8)
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def grams(text: str) -> list[str]:
    """The gram-field terms of ``text``: CJK unigrams and bigrams, other runs whole."""
    out: list[str] = []
    for run, _, _, cjk in analysis.gram_runs(text):
        if not cjk:
            out.append(run)
            continue
        out.extend(run)
        out.extend(run[i:i + 2] for i in range(len(run) - 1))
    return out


def js_regex(pattern: re.Pattern[str]) -> list[str]:
    """A Python citation pattern as [source, flags] for JavaScript's RegExp."""
    source = pattern.pattern.replace("(?P<", "(?<")
    if "(?P" in source:
        raise ValueError(f"cannot translate {pattern.pattern!r} to JavaScript")
    return [source, "gi" if pattern.flags & re.IGNORECASE else "g"]


def _context(rec: Record, by_id: dict[str, Record]) -> str:
    """Ancestor titles, outermost first (the server engine's context field)."""
    titles: list[str] = []
    parent, seen = rec.parent, {rec.id}
    while parent and parent in by_id and parent not in seen:
        seen.add(parent)
        p = by_id[parent]
        if p.title_hans:
            titles.append(p.title_hans)
        parent = p.parent
    return "\n".join(reversed(titles))


class StaticIndex:
    """Postings and analysis tables computed once; written once per edition."""

    def __init__(self, records: list[Record], layout: Layout):
        self.records = records
        self.layout = layout
        by_id = {r.id: r for r in records}
        postings: dict[str, dict[int, list[int]]] = defaultdict(dict)
        lengths: dict[str, list[int]] = {f: [] for f in ("title", "text", "context", "grams")}
        vocab: set[str] = set()
        chars: set[str] = set()
        for n, rec in enumerate(records):
            fields = {"title": rec.title_hans, "text": rec.text_hans, "context": _context(rec, by_id)}
            for slot, (name, value) in enumerate(fields.items()):
                toks = [w for w, _, _ in analysis.cut(value)] if value else []
                lengths[name].append(len(toks))
                for w in toks:
                    vocab.add(w)
                    row = postings["w:" + w].setdefault(n, [0, 0, 0])
                    row[slot] += 1
            g = grams(rec.title_hans + "\n" + rec.text_hans)
            lengths["grams"].append(len(g))
            for t in g:
                row = postings["g:" + t].setdefault(n, [0])
                row[0] += 1
            chars.update(rec.title_hans + rec.text_hans + rec.title_hant + rec.text_hant)
        syn = load_synonyms()
        for group in syn.groups:
            vocab.update(group)
            for m in group:
                chars.update(m)
        for word, _, _ in analysis.read_userdict():
            vocab.add(word)
        # Common words of jieba's dictionary made of the corpus's characters: they keep a query's
        # unknown words (条件) from being cut into characters that mean something else here (条).
        corpus_chars = {c for r in records for c in analysis.normalize(r.title_hans + r.text_hans)}
        for word, freq in analysis.segmenter().FREQ.items():
            if freq >= VOCAB_MIN_FREQ and 2 <= len(word) <= 4 and all(c in corpus_chars for c in word):
                vocab.add(word)
        chars.update(chr(c) for c in range(0x21, 0x7F))
        chars.update(chr(c) for c in range(0xFF01, 0xFF5F))
        chars.add("\u3000")
        chars |= {to_hant(c) for c in chars if analysis.is_cjk(c)}
        fold_from, fold_to = [], []
        for c in sorted(chars):
            f = analysis.fold(c)
            if f != c and len(f) == 1:
                fold_from.append(c)
                fold_to.append(f)
        self.postings = postings
        self.lengths = lengths
        self.vocab = sorted(w for w in vocab if len(w) >= 2 and analysis.is_wordlike(w))
        self.fold = ("".join(fold_from), "".join(fold_to))
        self.synonyms = syn.groups
        self.corpus_chars = chars

    def shard_count(self) -> int:
        size = sum(len(t) + 4 * len(p) * 3 for t, p in self.postings.items())
        return max(4, 1 << max(0, math.ceil(math.log2(max(1, size / SHARD_TARGET)))))

    def _shards(self) -> list[dict[str, dict[str, list[int]]]]:
        count = self.shard_count()
        shards: list[dict[str, dict[str, list[int]]]] = [{"w": {}, "g": {}} for _ in range(count)]
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
        work_ids = list(works.work_ids())
        recs = self.records
        lengths = self.lengths
        return {
            "version": 1,
            "count": len(recs),
            "ids": [r.id for r in recs],
            "work": [work_ids.index(r.work) for r in recs],
            "pathkey": ["".join(p + "/" for p in r.path) for r in recs],
            "order": [r.order for r in recs],
            "lengths": lengths,
            "avg": {f: (sum(v) / len(v) if v else 1.0) for f, v in lengths.items()},
            "works": work_ids,
            "twins": {w.id: w.twin for w in works.all_works() if w.twin},
            "vocab": " ".join(self.vocab),
            "fold": list(self.fold),
            "synonyms": self.synonyms,
            "stopwords": sorted(kbq.STOPWORDS),
            "questionPrefixes": list(kbq.QUESTION_PREFIXES),
            "citations": {
                "patterns": [[kind, *js_regex(p)] for kind, p in citations._PATTERNS],
                "maxLaw": citations.MAX_LAW, "maxPattern": citations.MAX_PATTERN,
                "cnDigits": citations._CN_DIGITS, "cnUnits": citations._CN_UNITS,
                # what the grammar makes of a scoring-pattern citation: its section and work
                "mahjongSection": _MJ.path[0], "mahjongWork": _MJ.work,
            },
            "params": {"title": kbq.TITLE_BOOST, "text": kbq.TEXT_BOOST, "context": kbq.CONTEXT_BOOST,
                       "grams": kbq.GRAM_BOOST, "synonym": kbq.SYNONYM_WEIGHT, "subword": kbq.SUBWORD_WEIGHT,
                       "subwordMinLen": kbq.SUBWORD_MIN_LEN, "maxGroups": kbq.MAX_GROUPS,
                       "snippet": kbq.SNIPPET_CHARS, "maxQuery": kbq.MAX_QUERY_CHARS},
            "shards": self.shard_count(),
            "docBlock": DOC_BLOCK,
        }

    def _doc_blocks(self, script: str) -> list[dict[str, list[str]]]:
        hant = script == "hant"
        blocks = []
        for start in range(0, len(self.records), DOC_BLOCK):
            block: dict[str, list[str]] = {"citation": [], "title": [], "text": [], "url": []}
            for rec in self.records[start:start + DOC_BLOCK]:
                place = self.layout.place[rec.id]
                block["citation"].append(to_hant(rec.citation) if hant else rec.citation)
                block["title"].append((rec.title_hant if hant else rec.title_hans) or rec.title_hans)
                block["text"].append((rec.text_hant if hant else rec.text_hans) or rec.text_hans)
                block["url"].append(f"{place.page[:-3]}/#{place.anchor}")
            blocks.append(block)
        return blocks

    def write(self, edition_docs: Path, script: str) -> str:
        """Write one edition's chunks under edition_docs/idx/; return the meta file's path there."""
        out = edition_docs / INDEX_DIR
        out.mkdir(parents=True, exist_ok=True)
        files: dict[str, str] = {}
        for i, shard in enumerate(self._shards()):
            files[f"p{i}"] = _write_chunk(out, f"p{i}", shard)
        for i, block in enumerate(self._doc_blocks(script)):
            files[f"d{i}"] = _write_chunk(out, f"d{i}", block)
        meta = self.meta()
        meta["files"] = files
        meta["script"] = script
        return _write_chunk(out, "meta", meta)


def _write_chunk(out: Path, name: str, data: Any) -> str:
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    text = f"kbIndexChunk({json.dumps(name)},{body});\n"
    digest = hashlib.sha256(text.encode()).hexdigest()[:10]
    filename = f"{name}.{digest}.js"
    (out / filename).write_text(text, encoding="utf-8")
    return f"{INDEX_DIR}/{filename}"


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
        shards: dict[int, Any] = {}
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
            if name.startswith("p"):
                shards[int(name[1:])] = data
        vocab = set(meta.get("vocab", "").split())
        count = meta.get("shards", 0)
        for term in CHECK_TERMS:
            if term not in vocab:
                problems.append(f"{metas[0]}: '{term}' is not a word of the static index's vocabulary")
                continue
            shard = shards.get(term_hash("w:" + term) % count) if count else None
            if not shard or not shard["w"].get(term):
                problems.append(f"{root / INDEX_DIR}: no postings for the word '{term}'")
        if len(meta.get("ids", [])) != meta.get("count"):
            problems.append(f"{metas[0]}: record count does not match its ids")
    return problems
