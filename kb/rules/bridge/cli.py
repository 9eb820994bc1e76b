"""``kb bridge COMMAND FILE|- [--json]``: one ruling per command, one JSON object per ruling.

The object's keys are the keyword arguments of the ruling's function, as its declaration describes
them (:mod:`kb.rules.bridge.declare`, ``kb rules list``); ``kb bridge COMMAND --help`` lists them
with the values each takes. Cards are rank + suit (``AS``, ``TH``
or ``10H``, ``Q♠``, ``红心K``); seats ``N E S W`` or ``北 东 南 西``; a strain is ``S H D C`` or
``NT``; calls are ``1C``–``7NT``, ``P``/``PASS``, ``X``, ``XX``. The output is the explanation with
its clause ids, or with ``--json`` the full result.
"""
from __future__ import annotations

import argparse
import functools
import json
import sys

from kb.core.errors import KbError, print_error
from kb.core.inputs import Parser
from kb.rules.bridge.cards import Result
from kb.rules.bridge.registry import BY_COMMAND, Ruling, call
from kb.rules.inputs import read_object

PROG = "kb bridge"
# The former subcommands, which chose a ruling by the keys of the object; kept (unlisted) so that
# scripts written against them still run. Each maps to the commands above, first matching key wins.
FORMER: dict[str, tuple[tuple[str, str], ...]] = {
    "trick": (("cards_in_order", "trick-winner"), ("hand", "legal-cards")),
    "revoke": (("card", "is-revoke"), ("events", "revoke-established"), ("revoke_trick_winner", "revoke-adjustment")),
    "penalty-card": (("penalty_cards", "penalty-card-obligations"), ("card", "penalty-card-kind")),
}
SEAT_VALUES = "N、E、S、W 或 北、东、南、西（東）"


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


def field_lines(ruling: Ruling) -> list[str]:
    """The lines of a ruling's JSON fields, from its declaration: name, words and the values each takes."""
    return ["  " + f.help().replace("\n", "\n  ") for f in ruling.inputs]


def commands() -> str:
    """The commands as the help lists them: each with its summary."""
    return "\n".join(f"  {r.command:26} {r.summary}" for r in BY_COMMAND.values())


def _parser() -> argparse.ArgumentParser:
    return _parser_of(_registry())


def _registry() -> tuple[tuple[str, str], ...]:
    """What the parsers are made from: the declared rulings' commands and summaries."""
    return tuple((r.command, r.summary) for r in BY_COMMAND.values())


@functools.cache   # a parser is not changed by parsing: one per registry
def _parser_of(registry: tuple[tuple[str, str], ...]) -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG, description="桥牌规则计算（中国桥牌竞赛规则1999），每个子命令一种输入",
        epilog="子命令（kb bridge COMMAND --help 列出其字段与可取的值）：\n" + commands(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", metavar="COMMAND", choices=[*BY_COMMAND, *FORMER], help="子命令，见下")
    parser.add_argument("file", help="JSON 输入文件，- 为标准输入")
    parser.add_argument("--json", action="store_true", help="输出完整 JSON 结果")
    return parser


def _command_parser(command: str) -> argparse.ArgumentParser:
    return _command_parser_of(command, _registry())


@functools.cache   # a parser is not changed by parsing: one per command and registry
def _command_parser_of(command: str, registry: tuple[tuple[str, str], ...]) -> argparse.ArgumentParser:
    ruling = BY_COMMAND[command]
    parser = Parser(
        prog=f"{PROG} {ruling.command}", description=ruling.summary,
        epilog="JSON 对象的字段（依据 " + "、".join(ruling.clauses) + "）：\n" + "\n".join(field_lines(ruling)),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", help="JSON 输入文件，- 为标准输入")
    parser.add_argument("--json", action="store_true", help="输出完整 JSON 结果")
    return parser


def main(argv: list[str]) -> int:
    """``bridge COMMAND FILE [--json]``; 0 ok, 2 bad input (one line on stderr)."""
    args_in = list(argv)
    if args_in[:1] == ["bridge"]:
        args_in = args_in[1:]
    try:
        command = next((a for a in args_in if not a.startswith("-")), None)
        if command is None:
            _parser().parse_args(args_in)       # --help, or the usage error naming COMMAND
            raise KbError("须给出子命令（kb bridge --help 列出）")
        if command not in BY_COMMAND and command not in FORMER:
            raise KbError(f"未知的子命令「{command}」；可用的子命令：{'、'.join(BY_COMMAND)}（kb bridge --help 列出各自的用途）")
        else:
            rest = list(args_in)
            rest.remove(command)
            args = _command_parser(command if command in BY_COMMAND else _former(command).command).parse_args(rest)
        result = run(command, read_object(args.file))
    except KbError as exc:
        print_error(PROG, exc)
        return 2
    except SystemExit as exc:       # --help
        return exc.code if isinstance(exc.code, int) else 0
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(render(result))
    return 0


def _former(command: str) -> Ruling:
    """A former subcommand's parser is that of its first ruling (its --help names the others)."""
    return BY_COMMAND[FORMER[command][0][1]]


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
