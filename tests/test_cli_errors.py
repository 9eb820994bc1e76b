"""Every kb command's bad input: one line on stderr, in Chinese (``kb CMD: 错误：…``), exit 2, with
control characters and undecodable bytes quoted from the input shown escaped, never acted on."""
from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kb.app import cli
from kb.core.errors import error_line, escape_controls
from kb.core.records import read_jsonl
from kb.search.index import build_index

FIXTURE = Path(__file__).parent / "fixtures" / "search_records.jsonl"
RAW = ("\x1b", "\x07", "\x9b", "\udcff")        # ESC, BEL, a C1 CSI, a byte that was not UTF-8


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("cli-errors") / "index"
    build_index(FIXTURE, d)
    return d


def search(args: list[str], index_dir: Path, stdin: io.TextIOBase | None = None) -> tuple[int, str, str]:
    from kb.search import cli as search_cli
    out, err = io.StringIO(), io.StringIO()
    code = search_cli.main(["search", *args, "--records", str(FIXTURE), "--index", str(index_dir)],
                           stdin=stdin or io.StringIO(""), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def one_error(err: str, *needles: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "错误：" in lines[0] and "error:" not in lines[0], lines[0]
    assert not any(c in lines[0] for c in RAW), lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_escape_controls():
    assert escape_controls("a\x1b[31mb\x07\tc\udcff\u202e") == "a\\x1b[31mb\\x07\\tc\\xff\\u202e"
    assert escape_controls("明手 45C4(b)") == "明手 45C4(b)"
    assert error_line("kb show", "「\x1b」") == "kb show: 错误：「\\x1b」"


# --- 3: bytes that are not UTF-8 in a query ---------------------------------------------------------

@pytest.mark.parametrize("query", ["\udcff\udcfe", "\udced\udca0\udc80", "明手\udcff"])
@pytest.mark.parametrize("extra", [[], ["--json"], ["--work", "cbr1999"]])
def test_an_undecodable_query_is_one_line_naming_it(index_dir, query, extra):
    code, out, err = search([*extra, query], index_dir)
    assert code == 2 and out == ""
    one_error(err, "UTF-8", escape_controls(query))


def test_an_undecodable_stdin_line_is_named_by_its_number(index_dir):
    stdin = io.TextIOWrapper(io.BytesIO("明手\n".encode() + b"\xff\xfe\n" + "罚张\n".encode()), encoding="utf-8")
    code, out, err = search(["--json", "-"], index_dir, stdin)
    lines = out.splitlines()
    assert code == 2 and len(lines) == 3 and json.loads(lines[1]) == {"results": [], "not_held": None}
    assert json.loads(lines[0])["results"] and json.loads(lines[2])["results"]
    one_error(err, "第 2 行", "\\xff\\xfe", "UTF-8")


def test_the_shell_s_bytes_reach_the_check(index_dir):
    """As typed in a shell: argv bytes that are not UTF-8 (Python keeps them as surrogates)."""
    proc = subprocess.run([sys.executable, "-m", "kb.app.cli", "search", b"\xed\xa0\x80", "--records", str(FIXTURE),
                           "--index", str(index_dir)], capture_output=True)
    assert proc.returncode == 2 and proc.stdout == b""
    one_error(proc.stderr.decode("utf-8"), "\\xed\\xa0\\x80")


# --- 12: an empty query; one language -----------------------------------------------------------------

@pytest.mark.parametrize("query", ["", "  ", "\u3000", "\x01"])
def test_an_empty_query_is_exit_2(index_dir, query):
    code, out, err = search([query], index_dir)
    assert code == 2 and out == ""
    one_error(err, "查询为空")


def test_show_says_in_chinese_that_no_record_has_the_id(monkeypatch, capsys):
    monkeypatch.setattr("kb.app.build.load_records", lambda out=None: list(read_jsonl(FIXTURE)))
    assert cli.main(["show", "cbr1999:99Z"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert one_error(captured.err, "cbr1999:99Z").startswith("kb show: 错误：没有编号")


# --- 4: control characters quoted from bad input -------------------------------------------------------

@pytest.mark.parametrize("argv, stdin", [
    (["show", "\x1b[31mX\x07"], ""),
    (["\x1b]0;title\x07"], ""),
    (["mahjong", "score", "--hand", "123m\x1b[2J\x07"], ""),
    (["mahjong", "score", "-"], '{"concealed": "1m\\u001b", "winning_tile": "1m"}'),
    (["mahjong", "settle", "-"], '{"hand": "123m456p789s5566z6z", "dealer": "\\u001b[5m"}'),
    (["mahjong", "\x1b"], ""),
    (["bridge", "trick-winner", "-"], '{"leader": "\\u0007N", "cards_in_order": ["5S", "KS", "2H", "AS"]}'),
    (["bridge", "is-revoke", "-"], '{"hand": ["\\u001bAS"], "led_suit": "H", "card": "AS"}'),
    (["bridge", "\x1b[1m"], ""),
    (["rules", "\x9b2J"], ""),
])
def test_control_characters_are_shown_escaped(monkeypatch, capsys, argv, stdin):
    monkeypatch.setattr("kb.app.build.load_records", lambda out=None: list(read_jsonl(FIXTURE)))
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    line = one_error(captured.err)
    assert "\\x1b" in line or "\\x07" in line or "\\x9b" in line, line


def test_a_file_name_with_a_nul_is_one_line(capsys):
    """Found by tests/test_cli_fuzz.py: open() refuses a NUL with ValueError, not OSError."""
    assert cli.main(["mahjong", "score", "a\x00b"]) == 2
    one_error(capsys.readouterr().err, "a\\x00b", "无法读取")


def test_a_bad_stdin_line_is_echoed_escaped_and_not_searched(index_dir):
    """Found by tests/test_cli_fuzz.py: the text mode echoed the undecodable line to a UTF-8 stdout."""
    from kb.search import cli as search_cli
    stdin = io.TextIOWrapper(io.BytesIO(b"\xe6\x98\x8e\xe6\x89\x8b\xff\n\x1b[2J\n"), encoding="utf-8")
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)
    err = io.StringIO()
    code = search_cli.main(["search", "-", "--records", str(FIXTURE), "--index", str(index_dir)],
                           stdin=stdin, stdout=out, stderr=err)
    printed = out.buffer.getvalue().decode("utf-8")
    assert code == 2 and "# 明手\\xff\n（第 1 行有误，未查询）" in printed and "# \\x1b[2J\n" in printed
    one_error(err.getvalue(), "第 1 行")


@pytest.mark.parametrize("argv, words", [
    (["rules", "lst"], "参数 command 不能是 'lst'"), (["mahjong"], "缺少参数 command"),
    (["rules", "list", "--bogus"], "无法识别的参数 --bogus"), (["bridge", "trick-winner"], "缺少参数 file"),
    (["search", "--limit", "x", "y"], "参数 --limit 须为整数，收到 'x'"), (["search", "--limit"], "参数 --limit 后须有一个值"),
    (["show"], "缺少参数 id"), (["search", "--laws", "64-61", "y"], "--laws 须为一个条号 N 或由小到大的 N-M"),
])
def test_usage_errors_are_in_the_words_of_the_other_messages(capsys, argv, words):
    assert cli.main([*argv, "--records", str(FIXTURE)] if argv[0] == "search" and "--limit" not in argv[-1:] else argv) == 2
    line = one_error(capsys.readouterr().err, words)
    assert not any(w in line for w in ("the following", "invalid", "unrecognized", "expected", " takes "))


def test_mahjong_errors_are_said_in_chinese_only(capsys):
    """The API answers 中文 / English (its readers need the JSON names); a director reads the first half."""
    assert cli.main(["mahjong", "score", "--hand", "123m"]) == 2
    line = one_error(capsys.readouterr().err, "牌数不对：3 张")
    assert "wrong tile count" not in line and " / " not in line


def test_a_lone_surrogate_is_read_as_the_search_reads_it(index_dir):
    """Not a byte from the shell (those are refused above) but a lone surrogate, as a JSON escape can
    give: stripped like a control character, by the search and by the notice of laws not held alike."""
    code, out, err = search(["犹豫很久\ud800"], index_dir)     # 犹豫 alone is 43A1(c)'s word (outside.tsv)
    assert code == 0 and not err and "第16条" in out
