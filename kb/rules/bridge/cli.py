"""``kb bridge COMMAND FILE|- [--json]``: one ruling per command, one JSON object per ruling.

The object's keys are the keyword arguments of the ruling's function, as its declaration describes
them (``kb bridge COMMAND --help``; :mod:`kb.rules.bridge.declare`, ``kb rules list``). Cards are rank + suit (``AS``, ``TH`` or
``10H``, ``Q♠``); seats ``N E S W``; a strain is ``S H D C`` or ``NT``; calls are ``1C``–``7NT``,
``P``/``PASS``, ``X``, ``XX``. The output is the explanation with its clause ids, or with
``--json`` the full result.
"""
from __future__ import annotations

import argparse
import json
import sys

from kb.core.errors import KbError
from kb.rules.bridge.cards import Result
from kb.rules.bridge.registry import BY_COMMAND, call
from kb.rules.inputs import read_object

# The former subcommands, which chose a ruling by the keys of the object; kept (unlisted) so that
# scripts written against them still run. Each maps to the commands above, first matching key wins.
FORMER: dict[str, tuple[tuple[str, str], ...]] = {
    "trick": (("cards_in_order", "trick-winner"), ("hand", "legal-cards")),
    "revoke": (("card", "is-revoke"), ("events", "revoke-established"), ("revoke_trick_winner", "revoke-adjustment")),
    "penalty-card": (("penalty_cards", "penalty-card-obligations"), ("card", "penalty-card-kind")),
}


def run(command: str, data: dict) -> Result:
    """Run the ruling of a subcommand on its JSON object."""
    if command in FORMER:
        for key, target in FORMER[command]:
            if key in data:
                return call(BY_COMMAND[target].name, data)
        keys = "、".join(k for k, _ in FORMER[command])
        raise KbError(f"{command}: 输入须含字段 {keys} 之一（或改用 {'、'.join(t for _, t in FORMER[command])}）")
    return call(BY_COMMAND[command].name, data)


def render(result: Result) -> str:
    """The default output: the explanation and the clause ids."""
    return f"{result.explanation}\n依据：{'、'.join(result.clauses)}"


def _parser() -> argparse.ArgumentParser:
    epilog = "\n".join(f"  {r.command:26} {r.summary}\n  {'':26} 字段：{' '.join(r.fields)}" for r in BY_COMMAND.values())
    parser = argparse.ArgumentParser(
        prog="kb bridge", description="桥牌规则计算（中国桥牌竞赛规则1999），每个子命令一种输入",
        epilog="子命令（[] 内为可省略的字段；kb bridge COMMAND --help 列出各字段的意思与可取的值）：\n" + epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=list(BY_COMMAND) + list(FORMER), metavar="COMMAND")
    parser.add_argument("file", help="JSON 输入文件，- 为标准输入")
    parser.add_argument("--json", action="store_true", help="输出完整 JSON 结果")
    return parser


def main(argv: list[str]) -> int:
    """``bridge COMMAND FILE [--json]``; 0 ok, 2 bad input."""
    args_in = list(argv)
    if args_in[:1] == ["bridge"]:
        args_in = args_in[1:]
    if args_in[:1] and args_in[0] in BY_COMMAND and {"-h", "--help"} & set(args_in[1:]):
        print(BY_COMMAND[args_in[0]].help())       # the ruling's fields, from its declaration
        return 0
    try:
        args = _parser().parse_args(args_in)
    except SystemExit as exc:
        return 0 if exc.code in (0, None) else 2
    try:
        result = run(args.command, read_object(args.file))
    except KbError as exc:
        print(f"错误：{exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(render(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
