"""``kb rules list [--json]``: every encoded ruling with its command, description and clauses."""
from __future__ import annotations

import argparse
import functools
import json

from kb.core.errors import KbError, print_error
from kb.core.inputs import Parser
from kb.rules.catalogue import entries, format_text


@functools.cache   # a parser is not changed by parsing: one per process
def make_parser() -> argparse.ArgumentParser:
    """The parser of ``kb rules``."""
    parser = Parser(prog="kb rules", description="规则代码目录：每项裁定的命令、说明与所据条款")
    sub = parser.add_subparsers(dest="command", required=True)
    ls = sub.add_parser("list", help="列出所有已编码的裁定")
    ls.add_argument("--json", action="store_true", help="输出 JSON")
    return parser


def main(argv: list[str]) -> int:
    """``rules list [--json]``; 0 ok, 2 bad arguments."""
    parser = make_parser()
    args_in = list(argv)
    if args_in[:1] == ["rules"]:
        args_in = args_in[1:]
    try:
        args = parser.parse_args(args_in)
    except KbError as exc:
        print_error("kb rules", exc)
        return 2
    except SystemExit as exc:       # --help
        return exc.code if isinstance(exc.code, int) else 0
    items = entries()
    if args.json:
        print(json.dumps([e.to_json() for e in items], ensure_ascii=False, indent=1))
    else:
        print(format_text(items))
    return 0
