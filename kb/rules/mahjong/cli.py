"""``kb mahjong score|settle``: the 台 of a hand, and who pays whom, from JSON or one line of notation."""
from __future__ import annotations

import argparse
import functools
import json
import unicodedata
from typing import Any

from kb.core.errors import KbError, print_error
from kb.core.inputs import Parser
from kb.rules.inputs import parse_json, read_text
from kb.rules.mahjong.hand import BilingualError, fail
from kb.rules.mahjong.notation import parse_line
from kb.rules.mahjong.scoring import score
from kb.rules.mahjong.settlement import settle
from kb.rules.mahjong.tiles import tile_name

NOTATION_HELP = """\
手牌可写成 JSON，也可写成一行（players' notation）：
  数字+花色：m 万、p 筒、s 索、z 字（1z–7z = 东 南 西 北 白 发 中），如 123m456p789s11z；
  或中文：一万…九万、一筒…九筒、一索…九索（条）、东 南 西 北 中 发 白（東 發 亦可）。
  第一段为暗牌：含胡牌那张时写在最后；或只写胡牌前的暗牌，另写 胡X（胡的那张，并入暗牌）。其余各段：
  吃123m 碰555p 杠7777s 暗杠1111z（副露）、花春夏 或 春夏（花牌）、自摸、庄（本家为庄）、
  庄付（庄家付）、连2（连庄2次）、门风南、圈风东、杠上、海底、抢杠、天听、地听、天胡、地胡、
  人胡、八仙过海、七抢一、配牌（配牌花胡）。
例：kb mahjong score --hand "123m456p789s5566z6z 碰111s 自摸 门风南"
    kb mahjong score --hand "123m456p789s5566z 胡6z 碰111s 自摸 门风南"（同一手牌）
    echo '一万二万三万 ...' | kb mahjong score -
结算（settle）：JSON {"hand": 手牌（JSON 或一行）, "dealer": 本家|下家|对家|上家（可省略：由门风推定，无门风按下家为庄，答案中注明）,
  "discarder": 下家|对家|上家（放铳者；自摸时省略）, "streak_shown": N（连庄示记，可省略）}
"""


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _width(text))


def format_table(result: dict[str, Any]) -> str:
    """The human (Chinese) table of a score result."""
    lines = [f"牌型：{result['form']}"]
    if result["groups"]:
        lines.append("组合：" + " ".join(f"{g['kind']}[{''.join(tile_name(t) for t in g['tiles'])}]"
                                      for g in result["groups"]))
    if result["waits"]:
        lines.append("听牌：" + "、".join(tile_name(t) for t in result["waits"]))
    rows = [(i["name"], str(i["tai"]), i["clause"], i.get("detail", "")) for i in result["items"]]
    width = max([_width("名堂")] + [_width(r[0]) for r in rows]) + 2
    cwidth = max([_width("条款")] + [_width(r[2]) for r in rows]) + 2
    lines.append(_pad("名堂", width) + _pad("台", 5) + _pad("条款", cwidth) + "说明")
    lines += [(_pad(name, width) + _pad(tai, 5) + _pad(cl, cwidth) + detail).rstrip()
              for name, tai, cl, detail in rows]
    if result["excluded"]:
        lines.append("不计：")
        lines += [f"  {e['name']}（{e['tai']} 台）：{e['why']}  {e['clause']}" for e in result["excluded"]]
    lines.append(f"合计：{result['total']} 台")
    return "\n".join(lines)


def read_hand(text: str, label: str) -> Any:
    """A hand from JSON text (starting with ``{``) or one line of notation."""
    if text.lstrip().startswith(("{", "[")):   # JSON (an array is refused as not a hand)
        data = parse_json(text, label)
        if isinstance(data, dict) and isinstance(data.get("concealed"), str):
            data = {**parse_line(data.pop("concealed")), **data}
        return data
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) != 1:
        raise KbError(f"{label}: 一行写法须恰为一行手牌（收到 {len(lines)} 行）")
    return parse_line(lines[0])


@functools.cache   # a parser is not changed by parsing: one per process
def make_parser() -> argparse.ArgumentParser:
    """The parser of ``kb mahjong`` (its two subcommands)."""
    parser = Parser(prog="kb mahjong", description="台湾十六张麻将计台与结算",
                     epilog=NOTATION_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("score", help="计算一手胡牌的台数", epilog=NOTATION_HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE", nargs="?", help="手牌文件（JSON 或一行写法），- 为标准输入")
    p.add_argument("--hand", help="直接给出一行手牌，如 \"123m456p789s5566z6z 碰111s 自摸\"")
    p.add_argument("--json", action="store_true", help="输出 JSON")
    s = sub.add_parser("settle", help="结算：谁付给胡牌者多少（底与台）", epilog=NOTATION_HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("file", metavar="FILE", help="结算 JSON 文件，- 为标准输入")
    s.add_argument("--json", action="store_true", help="输出 JSON")
    return parser


def main(argv: list[str]) -> int:
    """``mahjong score FILE|-|--hand LINE [--json]``, ``mahjong settle FILE|- [--json]``; bad input → one line, exit 2."""
    parser = make_parser()
    argv = list(argv)
    if argv[:1] == ["mahjong"]:
        argv = argv[1:]
    try:
        args = parser.parse_args(argv)
        if args.command == "score":
            if (args.hand is None) == (args.file is None):
                raise fail("须给出 FILE 或 --hand 之一", "give FILE or --hand")
            hand = (read_hand(args.hand, "--hand") if args.hand is not None
                    else read_hand(read_text(args.file), "stdin" if args.file == "-" else args.file))
            result = score(hand)
            text = format_table(result)
        else:
            label = "stdin" if args.file == "-" else args.file
            data = parse_json(read_text(args.file), label)
            if not isinstance(data, dict) or not set(data) <= {"hand", "dealer", "discarder", "streak_shown"} \
                    or "hand" not in data:
                raise KbError(f"{label}: 应为 JSON 对象，含 hand（可选 dealer、discarder、streak_shown；未给 dealer 时按门风推定，否则按下家为庄）")
            if isinstance(data["hand"], str):
                data["hand"] = parse_line(data["hand"])
            result = settle(**data)
            text = result["explanation"] + "\n依据：" + "、".join(result["clauses"]) + "\n条文未定：" + \
                "".join(result["silent"])
    except KbError as exc:
        print_error("kb mahjong", exc.chinese if isinstance(exc, BilingualError) else exc)   # the director's half
        return 2
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else 0
    print(json.dumps(result, ensure_ascii=False, indent=2) if args.json else text)
    return 0
