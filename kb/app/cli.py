"""The `kb` command line."""
from __future__ import annotations

import argparse
import functools
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

from kb.core.errors import KbError, print_error
from kb.core.inputs import Parser


@functools.cache   # a parser is not changed by parsing: one per process
def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="kb", description="牌规知识库: build, inspect and search the rule books")
    p.add_argument("--build-dir", type=Path, default=None, help="build directory (default ./build or $KB_BUILD_DIR)")
    sub = p.add_subparsers(dest="cmd", required=True)
    bd = sub.add_parser("build", help="build the records, index and site as one generation (skipped when up to date)")
    bd.add_argument("--force", action="store_true", help="rebuild even if the inputs did not change")
    bd.add_argument("--pdf", action="store_true",
                    help="also print the PDF editions (needs Chromium: /usr/bin/chromium or $KB_CHROMIUM, and a CJK font)")
    ex = sub.add_parser("export", help="print the records")
    ex.add_argument("--jsonl", action="store_true", required=True, help="one JSON object per record")
    sh = sub.add_parser("show", help="print one record (ID like cbr1999:45C4b, or 45C4(b) for every work)")
    sh.add_argument("id")
    sh.add_argument("--json", action="store_true")
    st = sub.add_parser("stats", help="counts per work and witness; every repair, recovery and variant")
    st.add_argument("--json", action="store_true")
    ck = sub.add_parser("check", help="every reference by status; fail on unresolved ones and broken site links")
    ck.add_argument("--json", action="store_true")
    ck.add_argument("--lint", action="store_true", help="the corpus lint instead (kb/ingest/lint.py): fail on any unexplained finding")
    sub.add_parser("accept", help="re-fingerprint the published text (kb/data/fingerprints.tsv) and list what changed")
    for name, text in DELEGATED.items():
        sub.add_parser(name, help=text, add_help=False)
    return p


DELEGATED = {
    "search": "search the rules: kb search QUERY | --json QUERY | --json - (one query per line)",
    "mahjong": "mahjong 台 and settlement: kb mahjong score FILE|-|--hand LINE, kb mahjong settle FILE|- [--json]",
    "bridge": "bridge rulings, one command per question (kb rules list): kb bridge COMMAND FILE|- [--json]; "
              "kb bridge COMMAND --help lists its fields and their values",
    "rules": "the catalogue of encoded rulings: kb rules list [--json]",
    "serve": "serve the site and the search API: kb serve [--host 127.0.0.1] [--port N]",
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    rest = argv
    build_dir = None
    if rest[:1] == ["--build-dir"] and len(rest) > 1:
        build_dir, rest = rest[1], rest[2:]
    if rest and rest[0] in DELEGATED:
        return _guarded(f"kb {rest[0]}", lambda: _delegate(rest[0], rest[1:], build_dir))
    command = next((a for a in rest if not a.startswith("-")), "")
    return _guarded(f"kb {command}" if command in COMMANDS else "kb", lambda: _run(_parser().parse_args(argv)))


COMMANDS = ("build", "export", "show", "stats", "check")


def _guarded(label: str, run: Callable[[], int]) -> int:
    """Run a command; bad input becomes one line on stderr (kb/core/errors.py error_line: control
    characters escaped) and exit 2, never a traceback."""
    try:
        return run()
    except KbError as exc:
        print_error(label, exc)
        return 2
    except BrokenPipeError:
        return 0
    except SystemExit as exc:       # --help
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    except KeyboardInterrupt:
        return 130
    except OSError as exc:  # a read-only folder, a full disk: the file and the reason, one line
        where = f"{exc.filename}: " if exc.filename else ""
        print_error(label, f"{where}{exc.strerror or exc}")
        return 2


def _delegate(name: str, argv: list[str], build_dir: str | None) -> int:
    """Subcommands whose parsers live with their stage."""
    if build_dir:
        import os
        os.environ["KB_BUILD_DIR"] = build_dir
    if name == "mahjong":
        from kb.rules.mahjong.cli import main as run
    elif name == "bridge":
        from kb.rules.bridge.cli import main as run
    elif name == "rules":
        from kb.rules.cli import main as run
    elif name == "search":
        if not {"--records", "--index"} & {a.split("=", 1)[0] for a in argv} and "-h" not in argv \
                and "--help" not in argv:
            from kb.app.build import ensure_built
            ensure_built(Path(build_dir).absolute() if build_dir else None)  # checksums verified here
        from kb.search.cli import main as run
    else:
        from kb.app.serve import main as run
    return run(argv)


def _run(args: argparse.Namespace) -> int:
    from kb.app import build as b

    if args.cmd == "build":
        out = args.build_dir.absolute() if args.build_dir else b.default_build_dir()
        before = b.meta(out).get("files")
        b.build(out, force=args.force, with_pdf=args.pdf)
        meta = b.meta(out)
        state = "up to date" if meta.get("files") == before and not args.force else "built"
        pdf = "with" if meta.get("pdf") else "without"
        print(f"{state}: {meta['records']} records in {out} (site: {b.site_dir(out)}, {pdf} the PDF editions)")
        return 0
    if args.cmd == "export":
        out = b.ensure_built(args.build_dir)
        sys.stdout.write((out / "records.jsonl").read_text(encoding="utf-8"))
        return 0
    if args.cmd == "show":
        records = b.load_records(args.build_dir)
        found = find_records(records, args.id)
        if args.json:
            payload = [r.to_json() for r in found]
            print(json.dumps(payload[0] if len(payload) == 1 else payload, ensure_ascii=False, indent=1))
        else:
            from kb.core.present import format_record
            print("\n\n".join(format_record(r, records) for r in found))
        return 0
    if args.cmd == "stats":
        out = b.ensure_built(args.build_dir)
        stats = json.loads((out / "stats.json").read_text(encoding="utf-8"))
        if args.json:
            print(json.dumps(stats, ensure_ascii=False, indent=1))
        else:
            from kb.core.stats import format_stats
            print(format_stats(stats))
        return 0
    if args.cmd == "check":
        from kb.app.check import run_check, run_lint_check
        if args.lint:
            return run_lint_check(args.build_dir)
        return run_check(args.build_dir, as_json=args.json)
    if args.cmd == "accept":
        from kb.app.accept import run_accept
        return run_accept(args.build_dir)
    raise KbError(f"未知命令 {args.cmd}")


def find_records(records, wanted: str):
    """Records for an id (cbr1999:45C4b), a citation with a work (cbr1999:45C4(b)) or without one."""
    key = re.sub(r"[()（）\s]", "", wanted)
    work, _, local = key.rpartition(":")
    hits = [r for r in records if r.id.split(":", 1)[1] == local and (not work or r.work == work)]
    if not hits:
        raise KbError(f"没有编号为「{wanted}」的条款（编号形如 cbr1999:45C4b、laws1997:41A、twmj16:patterns.13）")
    return hits


if __name__ == "__main__":
    sys.exit(main())
