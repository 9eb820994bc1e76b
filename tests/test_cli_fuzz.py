"""Fuzzing every kb command with generated bad input (seeded): no traceback, ever.

Each input is run in-process through kb's own entry point (kb.app.cli.main: kb search, show, bridge
COMMAND for every command, mahjong score and settle, rules list, and kb's own parser), with stdout and
stderr encoded as a terminal's are (UTF-8, strict for stdout), stdin as bytes. A traceback is any
exception escaping main, or "Traceback" in what it printed; an exit status other than 0 and 2, or an
error that is not exactly one line free of raw control characters, is counted too. The search engine
is opened once (on the test's small records): the cost measured is the command's, not the index's.
"""
from __future__ import annotations

import io
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kb.app import cli
from kb.core.records import read_jsonl
from kb.rules.bridge.registry import BY_COMMAND
from kb.search.engine import SearchEngine
from kb.search.index import build_index

FIXTURE = Path(__file__).parent / "fixtures" / "search_records.jsonl"
RULES = Path(__file__).resolve().parent.parent / "kb" / "rules"
BRIDGE_EXAMPLES = json.loads((RULES / "bridge" / "examples.json").read_text(encoding="utf-8"))
MAHJONG_EXAMPLES = json.loads((RULES / "mahjong" / "examples.json").read_text(encoding="utf-8"))
COMMAND_OF = {r.name: r.command for r in BY_COMMAND.values()}
RAW_CONTROLS = {chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)]} | {chr(c) for c in range(0xD800, 0xE000)}

NASTY = ["", " ", "\x1b[31m", "\x07", "\x00", "\x9b", "\u202e", "\udcff", "\ud800", "\n", "\r\n", "\t", "\u3000",
         "明手", "罚张", "45C4(b)", "第64条", "1997版47条", "自摸", "庄", "东", "東", "北家", "N", "NT", "AS", "10H",
         "红心K", "♠Q", "1C", "7NT", "PASS", "XX", "-", "--json", "--help", "-h", "1e309", "-1", "0", "99", "NaN",
         "null", "true", "[]", "{}", "\"", "\\", "'", "%s", "{0}", "../../etc/passwd", "长" * 1200, "9" * 40,
         "123m456p789s5566z6z", "胡6z", "碰111s", "杠7777s", "海底", "连100", "门风中", "花春夏", "f9"]
JSON_VALUES: list[Any] = [None, True, False, 0, -1, 1.5, 10**30, "", "x", "\u001b[2J", "\udcff", [], [None], {},
                          {"a": 1}, "N", "E", "AS", "H", "NT", "1NT", 13, 7, ["AS", "AS"], ["5S", "KS", "2H", "AS"]]


def mutate_text(rng: random.Random, text: str) -> str:
    """A text with a few characters cut, doubled, or replaced by nasty ones."""
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        k = rng.randrange(len(chars) + 1)
        r = rng.random()
        if r < 0.3 and chars:
            del chars[min(k, len(chars) - 1)]
        elif r < 0.6:
            chars.insert(k, rng.choice(NASTY))
        else:
            chars.insert(k, chr(rng.choice([rng.randrange(0x20, 0x7F), rng.randrange(0x4E00, 0x9FFF),
                                             rng.randrange(0, 0x20), rng.randrange(0x80, 0x3000)])))
    return "".join(chars)


def mutate_value(rng: random.Random, value: Any, depth: int = 0) -> Any:
    """A JSON value with a part replaced by a value of another type or a nasty string."""
    if isinstance(value, dict) and value and depth < 3 and rng.random() < 0.7:
        out = dict(value)
        key = rng.choice(list(out))
        r = rng.random()
        if r < 0.15:
            del out[key]
        elif r < 0.25:
            out[rng.choice(NASTY)] = rng.choice(JSON_VALUES)
        else:
            out[key] = mutate_value(rng, out[key], depth + 1)
        return out
    if isinstance(value, list) and value and depth < 3 and rng.random() < 0.6:
        out_list = list(value)
        k = rng.randrange(len(out_list))
        out_list[k] = mutate_value(rng, out_list[k], depth + 1)
        return out_list
    if isinstance(value, str) and rng.random() < 0.5:
        return mutate_text(rng, value)
    return rng.choice(JSON_VALUES + NASTY)


def json_text(rng: random.Random, value: Any) -> str:
    """JSON text for a value, sometimes broken (cut, an extra brace, a lone surrogate escape, bad bytes)."""
    text = json.dumps(value, ensure_ascii=rng.random() < 0.5)
    r = rng.random()
    if r < 0.1:
        return text[: rng.randrange(len(text) + 1)]
    if r < 0.15:
        return text + rng.choice(["}", "]", ",", "\x00", "\n{}"])
    if r < 0.2:
        return mutate_text(rng, text)
    return text


def bridge_cases(rng: random.Random, n: int) -> list[tuple[list[str], bytes]]:
    out = []
    commands = list(BY_COMMAND) + ["trick", "revoke", "penalty-card"]
    for _ in range(n):
        ex = rng.choice(BRIDGE_EXAMPLES)
        command = COMMAND_OF[ex["function"]] if rng.random() < 0.85 else rng.choice(commands + NASTY)
        data = mutate_value(rng, ex["input"]) if rng.random() < 0.9 else rng.choice(JSON_VALUES)
        argv = ["bridge", command, "-"] + (["--json"] if rng.random() < 0.3 else [])
        if rng.random() < 0.03:
            argv = ["bridge", *rng.sample(NASTY, rng.randint(0, 3))]
        raw = json_text(rng, data).encode("utf-8", "surrogatepass")
        if rng.random() < 0.03:
            raw += b"\xff\xfe"
        out.append((argv, raw))
    return out


PIECES = ["123m", "456p", "789s", "55s", "5566z", "6z", "EEE", "1z", "8z", "0m", "m", "12", "碰555p", "碰111s", "吃123s",
          "吃135s", "杠7777s", "暗杠1111z", "花春夏", "春", "f9", "胡5m", "胡6z", "胡55m", "自摸", "庄", "庄付", "连3", "连",
          "连100", "门风南", "门风中", "圈风東", "一万", "五筒", "九條", "發", "xyz", "ＡＢ", "４５６ｍ", "杠上", "海底", "抢杠",
          "天听", "地聽", "天胡", "人胡", "八仙过海", "七搶一", "配牌"]


def hand_line(rng: random.Random) -> str:
    if rng.random() < 0.5:
        line = " ".join(rng.choice(PIECES) for _ in range(rng.randint(1, 8)))
    else:
        line = "123m456p789s5566z6z 碰111s " + " ".join(rng.sample(PIECES, rng.randint(0, 3)))
    return mutate_text(rng, line) if rng.random() < 0.4 else line


def mahjong_cases(rng: random.Random, n: int) -> list[tuple[list[str], bytes]]:
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.35:
            out.append((["mahjong", "score", "--hand", hand_line(rng)] + (["--json"] if rng.random() < 0.3 else []), b""))
        elif r < 0.6:
            hand = mutate_value(rng, rng.choice(MAHJONG_EXAMPLES)["hand"])
            out.append((["mahjong", "score", "-"], json_text(rng, hand).encode("utf-8", "surrogatepass")))
        elif r < 0.95:
            body: dict[str, Any] = {"hand": hand_line(rng) if rng.random() < 0.6 else
                                    mutate_value(rng, rng.choice(MAHJONG_EXAMPLES)["hand"])}
            for key, values in (("dealer", ["本家", "下家", "对家", "上家", "东家", None, 3]),
                                ("discarder", ["下家", "对家", "上家", "本家", None]), ("streak_shown", [0, 2, -1, 100, "2"])):
                if rng.random() < 0.6:
                    body[key] = rng.choice(values)
            if rng.random() < 0.2:
                body = mutate_value(rng, body)
            out.append((["mahjong", "settle", "-"] + (["--json"] if rng.random() < 0.3 else []),
                        json_text(rng, body).encode("utf-8", "surrogatepass")))
        else:
            out.append((["mahjong", *rng.sample(NASTY + ["score", "settle", "--hand"], rng.randint(0, 4))], b""))
    return out


def search_cases(rng: random.Random, n: int) -> list[tuple[list[str], bytes]]:
    out: list[tuple[list[str], bytes]] = []
    options = [["--json"], ["--work", "cbr1999"], ["--work", "chess"], ["--limit", "0"], ["--limit", "x"], ["--limit", "3"],
               ["--laws", "61-64"], ["--laws", "64-61"], ["--laws", "abc"], ["--script", "hant"], ["--script", "latin"]]
    for _ in range(n):
        query = mutate_text(rng, rng.choice(NASTY))
        argv = ["search", *rng.choice(options), query] if rng.random() < 0.8 else ["search", *rng.sample(NASTY, 2)]
        out.append((argv, b""))
    lines = b"\n".join(mutate_text(rng, rng.choice(NASTY)).encode("utf-8", "surrogatepass") for _ in range(n))
    out.append((["search", "--json", "-"], lines + b"\n\xff\xfe\xed\xa0\x80\n"))
    out.append((["search", "-"], lines[: len(lines) // 4]))
    return out


def other_cases(rng: random.Random, n: int) -> list[tuple[list[str], bytes]]:
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.4:
            out.append((["show", mutate_text(rng, rng.choice(["cbr1999:45C4b", "45C4(b)", "twmj16:patterns.13", "x"]))]
                        + (["--json"] if rng.random() < 0.3 else []), b""))
        elif r < 0.7:
            out.append((["rules", *rng.sample(NASTY + ["list", "--json"], rng.randint(0, 3))], b""))
        else:
            out.append((rng.sample(NASTY + ["show", "stats", "check", "export", "--build-dir", "bridge"], rng.randint(0, 3)), b""))
    return out


class Run:
    """One call of kb's main with terminal-like streams; what went wrong, if anything."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.monkeypatch = monkeypatch

    def __call__(self, argv: list[str], stdin: bytes) -> str | None:
        out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)
        err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace", write_through=True)
        self.monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
        self.monkeypatch.setattr("sys.stdout", out)
        self.monkeypatch.setattr("sys.stderr", err)
        try:
            code = cli.main(list(argv))
        except BaseException as exc:      # noqa: BLE001 - anything escaping main is what is counted
            return f"{type(exc).__name__}: {exc}"
        finally:
            self.monkeypatch.undo()
        printed = out.buffer.getvalue().decode("utf-8") if hasattr(out.buffer, "getvalue") else ""
        said = err.buffer.getvalue().decode("utf-8") if hasattr(err.buffer, "getvalue") else ""
        if "Traceback" in printed + said:
            return "Traceback printed"
        if code not in (0, 2):
            return f"exit {code}"
        if code == 2 and argv[:2] != ["search", "--json"] and argv[:2] != ["search", "-"]:
            lines = said.splitlines()
            if len(lines) != 1 or RAW_CONTROLS & set(lines[0]):
                return f"not one clean error line: {said!r}"
        return None


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> SearchEngine:
    index = tmp_path_factory.mktemp("fuzz") / "index"
    build_index(FIXTURE, index)
    return SearchEngine.open(FIXTURE, index)


def test_no_kb_command_gives_a_traceback(engine, monkeypatch):
    rng = random.Random(20261207)
    cases = (bridge_cases(rng, 4500) + mahjong_cases(rng, 3500) + search_cases(rng, 1200) + other_cases(rng, 1000))
    records = list(read_jsonl(FIXTURE))
    opened: Callable[..., SearchEngine] = lambda *a, **k: engine          # noqa: E731
    found: list[tuple[list[str], bytes, str]] = []
    with pytest.MonkeyPatch.context() as fixed:
        fixed.setattr(SearchEngine, "open", opened)
        fixed.setattr("kb.app.build.load_records", lambda out=None: records)
        fixed.setattr("kb.app.build.ensure_built", lambda *a, **k: FIXTURE.parent)
        fixed.setenv("KB_BUILD_DIR", str(FIXTURE.parent))
        run = Run(pytest.MonkeyPatch())
        for argv, stdin in cases:
            if argv[:1] == ["search"] and "-" not in argv[1:] and rng.random() < 0.5:
                argv = [*argv, "--records", str(FIXTURE)]
            wrong = run(argv, stdin)
            if wrong:
                found.append((argv, stdin[:200], wrong))
    inputs = len(cases) - 2 + 1200 + 300          # the two stdin cases hold 1,500 lines
    assert inputs >= 10_000
    assert not found, f"{len(found)} of {inputs} inputs went wrong, e.g. {found[:5]}"
