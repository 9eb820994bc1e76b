"""Build and open the search index of the clause records.

An index is a directory holding:

* a whoosh index (``whoosh.index.create_in``, one writer, one commit; schema in
  ``schema``): per record the stored fields shown in results, and its words (title, text,
  ancestor titles, search aids, with their positions), cut once at build time by the jieba
  tokenizer, and its negation-marked character bigrams and unigrams (with frequencies);
  the ranking reads them through whoosh's postings (``postings``);
* ``lengths.json``: each field's exact length per document (whoosh keeps a lossy byte);
* ``lexicon.json``: the corpus-trimmed segmenter dictionary (see ``lexicon``), so a
  fresh process cuts queries exactly as the records were cut without loading jieba;
* ``mined.json``: synonym pairs mined from the two translations' aligned clauses;
* ``kb-index.json``: the sha256 of the records file it was built from, a fingerprint of
  the analysis (curated data, analyzer and schema versions) and the sha256 of every
  other file in the directory (whoosh's segment files included). ``open_index``
  rebuilds whenever one of them differs (a damaged index is never read; ``check_files``
  names the damaged file); a build is written to a temporary directory beside the
  target and renamed into place, so a reader never sees half an index.

Opening reads the stored fields of every document (what results show, and the clause tree)
and the dense table of lengths; a term's postings are read from whoosh when a query first asks
for it (``postings.Postings``).
"""
from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import whoosh.index

from kb.core.errors import KbError
from kb.ingest.normalise import to_hant
from kb.search.analysis import USERDICT_PATH, analysis_fingerprint, is_cjk, normalize, read_userdict, searchable
from kb.search.lexicon import Lexicon
from kb.search.postings import LENGTHS_FILE, Postings
from kb.search.schema import GRAM_FIELDS, STORED, WORD_FIELDS, make_schema, term_counts
from kb.search.synonyms import CURATED_PATHS, SYNONYMS_PATH, VOCABULARY_PATH, load_synonyms, mine_parallel

META_FILE = "kb-index.json"
DATA_FILES = ("lexicon.json", "mined.json", LENGTHS_FILE)   # besides whoosh's own files
SCHEMA_VERSION = "19"
COMMON_WORD_FREQ = 100  # jieba words at least this frequent are kept whatever their characters


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fingerprint() -> str:
    """What, besides the records, an index depends on."""
    return hashlib.sha256(f"{SCHEMA_VERSION}:{analysis_fingerprint(CURATED_PATHS)}".encode()).hexdigest()


def corpus_lexicon(records: list[dict[str, Any]]) -> Lexicon:
    """jieba's dictionary + the user dictionary + synonym words, trimmed to the words made
    of the characters of the records and the curated search data, plus jieba's common
    words (so a query's other words are still cut as words, not characters)."""
    syn = load_synonyms()
    user: list[tuple[str, int | None]] = [(w, f) for w, f, _ in read_userdict()]
    known = {w for w, _ in user}
    user += [(w, None) for w in sorted(lexicon_words(records)) if w not in known and len(w) > 1]
    full = Lexicon.full(user)
    chars: set[str] = set()
    for r in records:
        for f in ("title_hans", "text_hans"):
            chars.update(c for c in normalize(r.get(f) or "") if is_cjk(c))
    chars.update(c for w, _ in user for c in w)
    chars.update(c for c in USERDICT_PATH.read_text(encoding="utf-8") if is_cjk(c))
    lex = full.trimmed(chars, COMMON_WORD_FREQ)
    lex.domain.update(syn.words())
    return lex


def lexicon_words(records: list[dict[str, Any]]) -> set[str]:
    """The curated words the segmenter learns: every word of synonyms.tsv, and the words of
    vocabulary.tsv that no record holds (everyday forms a query must find whole, 还没轮到);
    a vocabulary member the records hold (最终不叫) is matched word by word as the records
    are cut, so it does not change how they are cut."""
    corpus = "\n".join(normalize((r.get("title_hans") or "") + "\n" + (r.get("text_hans") or ""))
                       for r in records)
    vocab = load_synonyms(str(VOCABULARY_PATH)).words()
    return load_synonyms(str(SYNONYMS_PATH)).words() | {w for w in vocab if w not in corpus}


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """Records as dicts; a malformed line is a KbError naming the file and line."""
    try:
        fh = path.open(encoding="utf-8")
    except FileNotFoundError:
        raise KbError(f"records file not found: {path} (run `kb build` first)") from None
    except OSError as exc:
        raise KbError(f"{path}: cannot read records ({exc.strerror})") from None
    with fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise KbError(f"{path}:{lineno}: not a JSON record ({exc.msg})") from None
            if not isinstance(obj, dict) or not isinstance(obj.get("id"), str) \
                    or not isinstance(obj.get("work"), str):
                raise KbError(f"{path}:{lineno}: a record needs string fields id and work")
            yield obj


def _documents(records: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The fields of each record's index document (the text fields are cut by whoosh)."""
    by_id = {r["id"]: r for r in records}
    for r in records:
        ancestors: list[str] = []
        parent, seen = r.get("parent"), {r["id"]}
        while parent and parent in by_id and parent not in seen:
            seen.add(parent)
            p = by_id[parent]
            if p.get("title_hans"):
                ancestors.append(p["title_hans"])
            parent = p.get("parent")
        title = r.get("title_hans") or ""
        text = r.get("text_hans") or ""
        path = [str(p) for p in r.get("path") or []]
        citation = str(r.get("citation") or "")
        yield dict(
            id=r["id"], work=r["work"], level=str(r.get("level") or ""),
            pathkey="".join(p + "/" for p in path),
            order=r["order"] if isinstance(r.get("order"), int) else 0,
            law=r["law"] if isinstance(r.get("law"), int) else None,
            citation=citation, citation_hant=to_hant(citation), parent=r.get("parent"), twin=r.get("twin"),
            tai=r.get("tai"), concordance=r.get("concordance") or [],
            title_hans=title, title_hant=r.get("title_hant") or title,
            text_hans=text, text_hant=r.get("text_hant") or text,
            context="\n".join(reversed(ancestors)),
            subjects="\n".join(r.get("subjects") or []),
            questions="\n".join(r.get("questions") or []),
            english="\n".join(r.get("english") or []),
        )


def _indexed(doc: dict[str, Any], lex: Lexicon) -> tuple[dict[str, Any], dict[str, dict[str, int]]]:
    """A document as whoosh is given it (stored fields, the texts each word field cuts, the
    character grams' counts), and the term frequencies of every field."""
    title, text = searchable(doc["title_hans"]), searchable(doc["text_hans"])
    fields = dict(doc, title=title, text=text)
    counts = term_counts(fields, lex, body=("title", "text", "subjects", "questions"))
    fields.update({f: counts[f] for f in GRAM_FIELDS})
    return {k: v for k, v in fields.items() if v is not None}, counts


def _mine(docs: list[dict[str, Any]], counts: list[dict[str, dict[str, int]]]) -> dict[str, list[str]]:
    """Synonym pairs from every pair of twin clauses (the records' ``twin``); a clause's words
    are those its title and text were indexed with (``counts``, in the order of ``docs``)."""
    by_id = {d["id"]: n for n, d in enumerate(docs)}
    aligned = []
    for n, d in enumerate(docs):
        m = by_id.get(d["twin"]) if d.get("twin") else None
        if m is None or d["id"] > d["twin"]:
            continue
        aligned.append(([*counts[n]["title"], *counts[n]["text"]], [*counts[m]["title"], *counts[m]["text"]]))
    return mine_parallel(aligned)


@dataclass(frozen=True)
class IndexData:
    """An opened index: documents, lexicon, mined synonyms and metadata."""

    docs: list[dict[str, Any]]
    lexicon: Lexicon
    mined: dict[str, list[str]]
    meta: dict[str, Any]
    postings: Postings


def read_meta(index_dir: Path) -> dict[str, Any] | None:
    try:
        return json.loads((index_dir / META_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def build_index(records_path: Path | str, index_dir: Path | str) -> dict[str, Any]:
    """Build the index of ``records_path`` into ``index_dir`` (atomically); return its metadata."""
    records_path, index_dir = Path(records_path), Path(index_dir)
    started = time.perf_counter()
    digest = sha256_file(records_path) if records_path.exists() else None
    records = list(read_records(records_path))
    if digest is None:  # pragma: no cover - read_records raised already
        raise KbError(f"records file not found: {records_path}")
    seen: set[str] = set()
    for r in records:
        if r["id"] in seen:
            raise KbError(f"{records_path}: duplicate record id {r['id']}")
        seen.add(r["id"])

    _check_replaceable(index_dir)
    index_dir.parent.mkdir(parents=True, exist_ok=True)
    tag = f"{os.getpid()}-{secrets.token_hex(4)}"
    tmp = index_dir.with_name(f".{index_dir.name}.tmp-{tag}")
    try:
        tmp.mkdir()
        lex = corpus_lexicon(records)
        docs = list(_documents(records))
        ix = whoosh.index.create_in(str(tmp), make_schema(lex))
        writer = ix.writer()
        counts = []
        for doc in docs:
            fields, terms = _indexed(doc, lex)
            counts.append(terms)
            writer.add_document(**fields)
        writer.commit()
        lengths = {f: [sum(c[f].values()) for c in counts] for f in (*WORD_FIELDS, *GRAM_FIELDS)}
        (tmp / LENGTHS_FILE).write_text(json.dumps(lengths, separators=(",", ":")), encoding="utf-8")
        for lock in tmp.glob("*_WRITELOCK"):  # the writer's lock file: nothing writes here again
            lock.unlink()
        lex.save(tmp / "lexicon.json")
        (tmp / "mined.json").write_text(json.dumps(_mine(docs, counts), ensure_ascii=False, sort_keys=True),
                                        encoding="utf-8")
        checksums = {p.name: sha256_file(p) for p in sorted(tmp.iterdir()) if p.is_file()}
        meta = {
            "records": str(records_path), "records_sha256": digest,
            "fingerprint": fingerprint(), "count": len(records), "files": checksums,
            "works": sorted({r["work"] for r in records}),
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "build_seconds": round(time.perf_counter() - started, 3),
        }
        (tmp / META_FILE).write_text(json.dumps(meta, ensure_ascii=False, indent=1),
                                     encoding="utf-8")
        _swap_in(tmp, index_dir, tag)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return meta


def _check_replaceable(index_dir: Path) -> None:
    """Refuse to replace a directory that is neither empty nor one of our indexes."""
    if index_dir.exists() and not index_dir.is_dir():
        raise KbError(f"index path is not a directory: {index_dir}")
    if index_dir.is_dir():
        names = {p.name for p in index_dir.iterdir()}
        ours = META_FILE in names or bool(names & set(DATA_FILES)) \
            or any(n.endswith((".toc", ".seg")) for n in names)
        if names and not ours:
            raise KbError(f"refusing to replace {index_dir}: it is not a search index")


def _swap_in(tmp: Path, index_dir: Path, tag: str) -> None:
    old = index_dir.with_name(f".{index_dir.name}.old-{tag}")
    if index_dir.exists():
        os.rename(index_dir, old)
    try:
        os.rename(tmp, index_dir)
    except OSError:
        # Another process put an index there in between: keep theirs if it is complete.
        if read_meta(index_dir) is None:
            raise
    finally:
        if old.exists():
            shutil.rmtree(old, ignore_errors=True)


def check_files(index_dir: Path, meta: dict[str, Any] | None = None) -> None:
    """KbError naming the first file of the index that is missing or differs from its
    checksum in ``kb-index.json`` (whoosh's segment files included)."""
    meta = read_meta(index_dir) if meta is None else meta
    if meta is None:
        raise KbError(f"{index_dir / META_FILE}: missing or unreadable search index metadata")
    files = meta.get("files")
    if not isinstance(files, dict) or not set(DATA_FILES) <= set(files) \
            or not any(n.endswith(".toc") for n in files):
        raise KbError(f"{index_dir / META_FILE}: the search index metadata lists no whoosh index")
    for name, digest in files.items():
        path = index_dir / name
        if not path.is_file():
            raise KbError(f"{path}: search index file missing")
        if sha256_file(path) != digest:
            raise KbError(f"{path}: search index file damaged (its sha256 differs from {META_FILE})")


def is_fresh(records_path: Path | str, index_dir: Path | str) -> bool:
    """True if ``index_dir`` holds a complete, undamaged index of exactly this records file."""
    records_path, index_dir = Path(records_path), Path(index_dir)
    meta = read_meta(index_dir)
    if meta is None or not records_path.exists():
        return False
    if meta.get("records_sha256") != sha256_file(records_path) or meta.get("fingerprint") != fingerprint():
        return False
    try:
        check_files(index_dir, meta)
    except KbError:
        return False
    return True


def read_documents(index_dir: Path) -> list[dict[str, Any]]:
    """The stored fields of every document, in the order they were added."""
    ix = whoosh.index.open_dir(str(index_dir))
    with ix.reader() as reader:
        if reader.has_deletions():
            raise KbError(f"{index_dir}: the search index has deleted documents (run `kb build`)")
        docs = []
        for stored in reader.all_stored_fields():
            doc = {name: stored.get(name) for name in ("id", "work", *STORED)}
            doc["context"] = stored.get("context") or ""
            doc["subjects"] = stored.get("subjects") or ""
            doc["questions"] = stored.get("questions") or ""
            docs.append(doc)
    return docs


def _load(index_dir: Path) -> IndexData:
    meta = read_meta(index_dir) or {}
    try:
        docs = read_documents(index_dir)
        mined = json.loads((index_dir / "mined.json").read_text(encoding="utf-8"))
        postings = Postings(index_dir)
    except KbError:
        raise
    except Exception as exc:  # whoosh's errors on a file changed after the checksums were read
        raise KbError(f"{index_dir}: unreadable search index ({type(exc).__name__}: {exc})") from None
    if postings.count != len(docs):
        raise KbError(f"{index_dir}: the search index's postings and documents differ (run `kb build`)")
    return IndexData(docs, Lexicon.load(index_dir / "lexicon.json"), mined, meta, postings)


def open_index(records_path: Path | str, index_dir: Path | str) -> IndexData:
    """Load the index of ``records_path``, rebuilding it first if missing, stale or damaged."""
    records_path, index_dir = Path(records_path), Path(index_dir)
    if not records_path.exists():
        raise KbError(f"records file not found: {records_path} (run `kb build` first)")
    if not is_fresh(records_path, index_dir):
        build_index(records_path, index_dir)
    try:
        return _load(index_dir)
    except (OSError, ValueError, KbError):
        # Changed under us after the check: rebuild once.
        build_index(records_path, index_dir)
        return _load(index_dir)
