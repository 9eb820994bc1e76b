"""The guides document the `kb` command: every command and every option of each, read from the
argparse parsers themselves, is named in README.md or a maintainer's guide; README.md stays short."""
from __future__ import annotations

import argparse
import copy
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kb.app import cli, serve
from kb.rules import cli as rules_cli
from kb.rules.bridge import cli as bridge_cli
from kb.rules.mahjong import cli as mahjong_cli
from kb.search import cli as search_cli

ROOT = Path(__file__).resolve().parent.parent
GUIDES = ("README.md", "ARCHITECTURE.md", "CONTRIBUTING.md")
README_LIMIT = 8000        # characters

# The commands kb.app.cli hands on to their stage (cli.DELEGATED), and where each builds its parser.
DELEGATED: dict[str, Callable[[], argparse.ArgumentParser]] = {
    "search": search_cli.make_parser,
    "bridge": bridge_cli._parser,
    "mahjong": mahjong_cli.make_parser,
    "rules": rules_cli.make_parser,
    "serve": serve.make_parser,
}
# Positional choices that are commands of their own (kb bridge COMMAND), less the former names
# kept unlisted so that old scripts still run.
UNLISTED = set(bridge_cli.FORMER)


def kb_parsers() -> dict[str, argparse.ArgumentParser]:
    """The parser of `kb` and of each delegated command, by the command's name ("" for kb itself):
    copies, which a test may change (the commands keep one parser each per process)."""
    return {"": copy.deepcopy(cli._parser()), **{name: copy.deepcopy(make()) for name, make in DELEGATED.items()}}


def commands(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, list[str]]]:
    """(command path, its options) for the parser and every subcommand under it; a positional
    with choices (kb bridge COMMAND) yields each choice as a command without options."""
    options = [s for a in parser._actions for s in a.option_strings
               if s.startswith("--") and not isinstance(a, argparse._HelpAction)]
    yield path, options
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, f"{path} {name}")
        elif not action.option_strings and action.choices:
            for choice in action.choices:
                if choice not in UNLISTED:
                    yield f"{path} {choice}", []


def all_commands(parsers: dict[str, argparse.ArgumentParser]) -> list[tuple[str, list[str]]]:
    """Every kb command with its options: kb's own subcommands, the delegated ones from their parsers."""
    out = []
    for path, options in commands(parsers[""], "kb"):
        name = path.split()[1] if " " in path else ""
        if name in DELEGATED and name in parsers:
            continue                                 # a stub in kb's parser: read the real one
        out.append((path, options))
    for name, parser in parsers.items():
        if name:
            out += commands(parser, f"kb {name}")
    return out


def documentation() -> str:
    return "\n".join((ROOT / name).read_text(encoding="utf-8") for name in GUIDES)


def undocumented(parsers: dict[str, argparse.ArgumentParser], text: str) -> list[str]:
    """What the guides do not name: a command whose words appear nowhere (`kb mahjong score`; for a
    bridge ruling its name in backticks), or an option not on a line that names its command."""
    lines = text.splitlines()
    missing = []
    for path, options in all_commands(parsers):
        words = path.split()
        if len(words) > 1 and words[1] == "bridge" and len(words) == 3:
            found = f"`{words[2]}`" in text
        else:
            found = path in text
        if not found:
            missing.append(path)
        for option in options:
            pattern = re.compile(re.escape(option) + r"(?![\w-])")
            if not any(pattern.search(ln) and (path == "kb" or path in ln) for ln in lines):
                missing.append(f"{path} {option}")
    return missing


def test_the_delegated_commands_are_the_ones_read_here():
    assert set(DELEGATED) == set(cli.DELEGATED)


def test_every_command_and_option_is_documented():
    parsers = kb_parsers()
    found = all_commands(parsers)
    paths = {p for p, _ in found}
    # the walk reaches every kind: kb's own, subcommands of a delegated one, bridge rulings
    assert {"kb build", "kb serve", "kb mahjong score", "kb rules list", "kb bridge insufficient-bid"} <= paths
    assert "kb bridge trick" not in paths
    assert "--pdf" in dict(found)["kb build"] and "--allowed-host" in dict(found)["kb serve"]
    assert undocumented(parsers, documentation()) == []


@pytest.mark.parametrize("where", ["serve", "", "mahjong"])
def test_a_made_up_option_is_reported(where):
    parsers = kb_parsers()
    target = parsers[where]
    if where == "mahjong":      # an option of a subcommand: kb mahjong settle
        sub = next(a for a in target._actions if isinstance(a, argparse._SubParsersAction))
        target = sub.choices["settle"]
    target.add_argument("--made-up-option", action="store_true")
    path = {"serve": "kb serve", "": "kb", "mahjong": "kb mahjong settle"}[where]
    assert undocumented(parsers, documentation()) == [f"{path} --made-up-option"]


def test_a_made_up_command_is_reported():
    parsers = kb_parsers()
    sub = next(a for a in parsers[""]._actions if isinstance(a, argparse._SubParsersAction))
    sub.add_parser("frobnicate").add_argument("--depth")
    assert undocumented(parsers, documentation()) == ["kb frobnicate", "kb frobnicate --depth"]


def test_an_option_named_only_under_another_command_is_reported():
    """--json is documented for many commands (and kb export's --jsonl): a line naming another
    command, or a longer option, does not document kb export --json."""
    parsers = kb_parsers()
    sub = next(a for a in parsers[""]._actions if isinstance(a, argparse._SubParsersAction))
    sub.choices["export"].add_argument("--json", action="store_true")
    assert undocumented(parsers, documentation()) == ["kb export --json"]


def test_readme_is_short():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text) <= README_LIMIT, f"README.md has {len(text)} characters, more than {README_LIMIT}"


def test_readme_links_resolve():
    """Every relative link and image of the README and the guides names a file of the checkout."""
    for name in GUIDES:
        text = (ROOT / name).read_text(encoding="utf-8")
        for target in re.findall(r'\]\(([^)\s#]+)(?:#[^)]*)?\)|src="([^"]+)"', text):
            path = next(t for t in target if t)
            if "://" in path:
                continue
            assert (ROOT / path).exists(), (name, path)
