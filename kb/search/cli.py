"""``kb search``: search the clause records from the command line.

    kb search QUERY                  numbered list: citation · title · (what it stands under) · snippet [= twin];
                                     found by a 2017 citation (2017 27B1b): its 2017 line after the title
    kb search --json QUERY           the answer as JSON: {"results": [...], "not_held": {...} or null}
    kb search --json -               one query per stdin line -> one JSON answer per line
    kb search --explain QUERY        each result's score taken apart by the ranking's features
                                     (with --json: ``explain`` and ``placed`` on each result)
    options: --work WORK, --limit N, --script hans|hant,
             --records PATH (build/records.jsonl), --index PATH (build/index);
             the build directory is $KB_BUILD_DIR when set

A question that may concern a matter no book holds (Law 16's hesitation, riichi mahjong), or that
nothing held matches, is told so above its results (``not_held`` in the JSON: outside.not_held).
Bad input is one line on stderr and exit status 2. In ``-`` mode a bad line prints
``{"results": [], "not_held": null}`` (so output lines stay aligned with input lines), its message
goes to stderr, and the exit status is 2 at the end.
"""
from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from kb.core.errors import KbError, escape_controls, print_error
from kb.core.inputs import Parser
from kb.core.works import holdings
from kb.search.parse import clean_query
from kb.search.request import parse_law_range

PROG = "kb search"


@functools.cache   # a parser is not changed by parsing: one per process
def make_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The argument parser (also usable as a subcommand's parser by the kb CLI)."""
    p = Parser(prog=prog, description="Search the rule clauses (both scripts, both "
                "bridge translations, mahjong); citations such as 45C4(b) or 第64条 work.")
    add_arguments(p)
    return p


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the search options to ``p`` (for wiring into a parent CLI)."""
    p.add_argument("query", nargs="+",
                   help="the query (several words are joined with spaces), or - to read "
                        "one query per line from stdin")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--explain", action="store_true",
                   help="show how each result was scored: each word's part by field, the character "
                        "and question grams, the family, title and coverage factors, and the rule "
                        "that placed it (cited, defines, under heading, phrase) if one did")
    p.add_argument("--work", help="only this work (cbr1999, laws1997, twmj16)")
    p.add_argument("--limit", type=int, default=10, help="results per query (default 10)")
    p.add_argument("--laws", default=None, metavar="N-M",
                   help="only bridge laws N to M (e.g. 61-64, or 45 for one law)")
    p.add_argument("--script", choices=("hans", "hant"),
                   help="script of titles and snippets (default: that of the query)")
    p.add_argument("--records", type=Path, default=None,
                   help="records file (default build/records.jsonl, or under $KB_BUILD_DIR)")
    p.add_argument("--index", type=Path, default=None,
                   help="index directory (default build/index; rebuilt when stale)")


def format_people(results: list[dict[str, Any]], explain: bool = False) -> str:
    """Numbered lines: work citation · title · (the clause it stands under) · snippet (tags
    removed) [= the twin clause]."""
    from kb.search.snippet import plain_snippet

    if not results:
        return "no results"
    lines = []
    for i, r in enumerate(results, 1):
        parts = [f"{r['work']} {r['citation']}".strip()]
        title = r.get("title") or ""
        tai = f"（{r['tai']}台）" if r.get("tai") else ""
        if title and title != r["citation"]:      # a mahjong clause is often cited by its title
            parts.append(title + tai)
        else:
            parts[0] += tai
        if r.get("in_force"):    # found by its 2017 citation: the line under it on the site
            parts.append(r["in_force"]["text"])
        up = r.get("under")
        if up:        # the clause it stands under, and its lead-in: 43B2(a) with 43B2's condition
            parts.append(f"（{up['name']}" + (f"：{up['text']}" if up["text"] else "") + "）")
        snippet = plain_snippet(r.get("snippet") or "")
        if snippet and snippet != r.get("title"):
            parts.append(snippet)
        twins = ", ".join(f"{t['work']} {t['citation']}".strip() for t in r.get("twins") or [])
        lines.append(f"{i}. " + " · ".join(parts) + (f" [= {twins}]" if twins else ""))
        if explain:
            lines.append(format_explain(r))
    return "\n".join(lines)


def format_explain(r: dict[str, Any]) -> str:
    """One indented line: how result r was scored (SearchEngine.explain)."""
    x = r.get("explain")
    head = f"   = {r['score']:g} placed by {r.get('placed', 'score')}"
    if not x:
        return head + " (no word of the question scored it)"
    words = []
    for g in x["groups"]:
        if not g.get("string"):
            words.append(f"{g['group']} 0")
            continue
        fields = ", ".join(f"{f} {v:.2f}" for f, v in g["fields"].items())
        grams = f", grams {g['grams']:.2f}" if g["grams"] else ""
        alt = f"={g['string']}" if g["string"] != g["group"] else ""
        weight = f" ×{g['weight']:g}" if g["weight"] != 1 else ""
        words.append(f"{g['group']}{alt}{weight} {g['score']:.2f} ({fields}{grams})")
    return (f"{head}: " + " + ".join(words) + f" + question grams {x['query_grams']:.2f}"
            f"; × family {x['family']:g} × title {x['title']:g} × coverage {x['coverage']:.3f}"
            f" (share {x['share']:.3f}) = {x['score']:.4f}")


def run(args: argparse.Namespace, stdin: TextIO | None = None,
        stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run a parsed ``kb search`` command; return the exit status."""
    from kb.core.records import read_jsonl
    from kb.search.engine import SearchEngine, default_records

    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    query = " ".join(args.query) if isinstance(args.query, list) else args.query
    try:                # the options are checked before the index is opened
        laws = parse_law_range(args.laws)
    except KbError:     # kb.search.request's words are the API's; the command line's are Chinese
        raise KbError(f"--laws 须为一个条号 N 或由小到大的 N-M（如 61-64），收到 {args.laws!r}") from None
    engine = SearchEngine.open(args.records, args.index)
    opts = dict(limit=args.limit, work=args.work, script=args.script, law_range=laws)

    @functools.cache
    def coverage() -> str:
        """What the knowledge base holds (the records read once, when first needed)."""
        return holdings(read_jsonl(args.records or default_records()))

    def format_answer(answer: dict[str, Any]) -> str:
        # a question that may concern a matter not held (Law 16's hesitation) is told so first
        said = answer["not_held"]["text"] if answer["not_held"] else ""
        if answer["results"]:
            return (said + "\n" if said else "") + format_people(answer["results"], args.explain)
        # found nothing (Law 16): say what is here, so that a director knows where not to look
        return "no results. " + coverage() + (" " + said if said else "")

    if query != "-":
        if not clean_query(query).strip():       # undecodable bytes are named first
            raise KbError("查询为空：请给出要查的词或条款号（如 明手、45C4(b)），或 - 从标准输入逐行读取")
        answer = engine.answer(query, **opts)
        if args.explain and answer["results"]:      # the same results, each taken apart
            answer["results"] = engine.explain(query, **opts)
        stdout.write((json.dumps(answer, ensure_ascii=False) if args.json else format_answer(answer)) + "\n")
        return 0

    status = 0
    for lineno, line in enumerate(_lines(stdin), 1):
        line = line.rstrip("\r\n")
        bad = False
        try:
            answer = engine.answer(line, **opts)
            if args.explain and answer["results"]:
                answer["results"] = engine.explain(line, **opts)
        except KbError as exc:
            print_error(PROG, f"标准输入第 {lineno} 行：{exc}", stderr)
            answer, status, bad = {"results": [], "not_held": None}, 2, True
        if args.json:
            stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        else:       # the line echoed as the error shows it (escaped), and not searched if it is bad
            said = f"（第 {lineno} 行有误，未查询）" if bad else format_answer(answer)
            stdout.write(f"# {escape_controls(line)}\n{said}\n")
        stdout.flush()
    return status


def _lines(stdin: TextIO) -> Iterator[str]:
    """The lines of stdin as text; bytes that are not UTF-8 are kept as surrogates (so that the line
    is refused by the search, with its number, instead of ending the loop with a decoding error)."""
    raw: BinaryIO | None = getattr(stdin, "buffer", None)
    if raw is None:                   # a text stream (a test's StringIO)
        yield from stdin
        return
    for line in raw:
        yield line.decode("utf-8", errors="surrogateescape")


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None,
         stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Entry point: ``main(["search", "--json", "明手"])`` or without the leading "search"."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "search":
        argv = argv[1:]
    stderr = stderr or sys.stderr
    try:
        args = make_parser().parse_args(argv)
        if args.limit < 1:
            raise KbError(f"--limit 须至少为 1，收到 {args.limit}")
        return run(args, stdin, stdout, stderr)
    except KbError as exc:
        print_error(PROG, " ".join(str(exc).split()), stderr)
        return 2
    except BrokenPipeError:  # `kb search ... | head`
        return 0
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else 0


if __name__ == "__main__":
    raise SystemExit(main())
