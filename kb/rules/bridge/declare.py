"""A bridge ruling declared once, beside its function: its command, clauses, summary, input fields and prose.

Every place a ruling is shown or asked for is made from its declaration: ``kb bridge COMMAND``
and its ``--help`` (kb/rules/bridge/cli.py), the API and its OpenAPI schema (kb/rules/api.py),
the site's form, field guide and worked examples (kb/site/rules_pages.py, kb/site/examples_text.py),
the catalogue (kb/rules/catalogue.py). A ruling module declares each of its rulings as a
:class:`Ruling` at module level; kb/rules/bridge/registry.py finds them.

A field (:class:`Field`) has a name (the function's keyword argument), a kind, a label in
Simplified (the Traditional edition converts it, as it does all the site's words) and, for a
``choice``, its codes with the words for each: the one wording of that code, which the form, the
worked examples and the answers use. Whether a field may be left out and its default are the
function's own (its signature). The kinds, and how each is written in JSON:

``seat`` N/E/S/W · ``suit`` S/H/D/C · ``trump`` a suit or NT · ``led`` a suit, or null when the
player leads · ``suits`` a list of suits · ``card`` "KH" · ``cards`` a list of cards · ``call``
"1H", "P", "X", "XX" · ``word`` declarer's words ("大") · ``int`` a number · ``ints`` a list of
numbers · ``bool`` true/false · ``choice`` one of the field's codes (``words``) · ``events`` a list
of {"seat", "action", "trick"} (the actions: ``words``; those at a trick: ``trick_actions``).
"""
from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import kb.rules.bridge.prose as prose
from kb.core.errors import KbError
from kb.rules.bridge.cards import SEAT_NAMES, SUIT_NAMES, Result

KINDS = ("seat", "suit", "trump", "led", "suits", "card", "cards", "call", "word", "int", "ints", "bool", "choice",
         "events")
LISTED = ("seat", "suit", "trump", "led", "choice")          # the kinds asked for by a list to choose from

# how a field of each kind is written in JSON (the field guide) and how its text box is filled in (the form)
WRITTEN = {"suits": '花色的列表，如 ["S"]', "cards": '牌的列表，如 ["KH", "7S"]（♥K、♠7；10 写作 10 或 T）',
           "card": '一张牌，如 "KH"（♥K）', "call": '叫牌，如 "1H"、"3NT"、"P"（不叫）、"X"（加倍）、"XX"（再加倍）',
           "ints": "墩号的列表，如 [7, 9]", "bool": "true 或 false"}
TYPED = {"cards": "用空格分开，如 KH 7S，或 红心K 黑桃7（10 写作 10 或 T）", "card": "如 KH，也可写 ♥K 或 红心K",
         "call": "如 1H 或 1红心、3NT 或 3无将、P（不叫）、X（加倍）、XX（再加倍）", "ints": "墩号，用空格分开，如 7 9",
         "suits": "花色，用空格分开，如 S H（黑桃、红心）"}
_SUIT = {"type": "string", "enum": list(SUIT_NAMES)}
SCHEMAS: dict[str, dict[str, Any]] = {   # each kind as JSON Schema (a choice's enum is its field's codes)
    "seat": {"type": "string", "enum": list(SEAT_NAMES)}, "suit": _SUIT,
    "trump": {"type": ["string", "null"], "enum": [*SUIT_NAMES, "NT", None]},
    "led": {"type": ["string", "null"], "enum": [*SUIT_NAMES, None]},
    "suits": {"type": "array", "items": _SUIT}, "card": {"type": "string", "examples": ["KH", "10S"]},
    "cards": {"type": "array", "items": {"type": "string", "examples": ["KH", "10S"]}, "maxItems": 13},
    "call": {"type": "string", "examples": ["1H", "3NT", "P", "X", "XX"]}, "word": {"type": "string"},
    "int": {"type": "integer"}, "ints": {"type": "array", "items": {"type": "integer"}}, "bool": {"type": "boolean"},
    "choice": {"type": "string"}, "events": {"type": "array", "items": {"type": "object"}},
}


@dataclass(frozen=True)
class Field:
    """One input of a ruling, as declared: ``Field("hand", "cards", "手中的牌")``."""

    name: str
    kind: str
    label: str
    words: Mapping[str, str] | None = None      # choice: code → words; events: action → words
    trick_actions: tuple[str, ...] = ()          # events: the actions that belong to a trick
    unit: str = ""                                # int: how a value is worded ("第{}墩")
    optional: bool = False                        # both from the function's signature
    default: Any = None

    def choices(self) -> list[list[str]] | None:
        """[code, words] for a field asked for by a list to choose from (the JSON null as ""); None otherwise."""
        k = self.kind
        if k == "seat":
            return _pairs(SEAT_NAMES)
        if k in ("suit", "trump"):
            return _pairs(SUIT_NAMES) + ([["NT", "无将"]] if k == "trump" else [])
        if k == "led":
            return [["", "无（他引牌）"]] + _pairs(SUIT_NAMES)
        if k == "choice":
            return _pairs(self.words or {})
        return None

    def written(self, samples: list[Any]) -> str:
        """How a field asked for in a text box is written in JSON (the field guide)."""
        k = self.kind
        if k == "word":
            return "庄家的原话，如 " + "、".join(f'"{w}"' for w in dict.fromkeys(samples[:3])) if samples else "庄家的原话"
        if k == "int":
            return self.hint(samples)
        if k == "events":
            return '事件的列表，如 [{"seat": "W", "action": "play", "trick": 6}]；action：' + \
                "、".join(f"{a}（{n}）" for a, n in (self.words or {}).items())
        return WRITTEN[k]

    def hint(self, samples: list[Any]) -> str:
        """How the text box of a field is filled in; "" for a field asked for by a list or a box to tick."""
        k = self.kind
        if k == "word":
            return "庄家的原话，如 " + "、".join(dict.fromkeys(samples[:3])) if samples else "庄家的原话"
        if k == "int":
            return "数字，如 " + str(samples[0] if samples else 1)
        if k == "events":
            return "每件事一行，按发生的顺序：哪一家、做了什么、在第几墩（声称或承认不属于哪一墩）；没有就不加"
        return TYPED.get(k, "")

    def form(self, samples: list[Any]) -> dict[str, Any]:
        """The field as the helper's form asks for it: name, words, kind, whether it may be left out, its
        default; the choices of a list, or how it is written in JSON and (``hint``) how its box is filled in."""
        out: dict[str, Any] = {"name": self.name, "label": self.label, "kind": self.kind, "optional": self.optional,
                               "default": self.default}
        if self.kind == "events":     # rows of seat, action and trick
            out["seats"] = _pairs(SEAT_NAMES)
            out["actions"] = _pairs(self.words or {})
            out["trick_actions"] = list(self.trick_actions)
        listed = self.choices()
        if listed is not None:
            out["choices"] = listed
        else:
            out["json"] = self.written(samples)
            hint = self.hint(samples)
            if hint:
                out["hint"] = hint
        return out

    def schema(self) -> dict[str, Any]:
        """The field as JSON Schema (the OpenAPI description of the API): its type, its codes, its default."""
        out = dict(SCHEMAS[self.kind], title=self.label, description=f"{self.label}：{self.values()}")
        if self.kind == "choice":
            out["enum"] = list(self.words or {})
        if self.kind == "events":
            out["items"] = {"type": "object", "required": ["seat", "action"], "additionalProperties": False,
                            "properties": {"seat": SCHEMAS["seat"], "action": {"type": "string", "enum": list(self.words or {})},
                                           "trick": {"type": "integer", "minimum": 1, "maximum": 13}}}
        if self.optional and self.default is None:       # left out, or null
            types = out["type"] if isinstance(out["type"], list) else [out["type"]]
            out["type"] = types if "null" in types else [*types, "null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        if self.optional:
            out["default"] = self.default
        return out

    def values(self) -> str:
        """The values the field takes, in words: each code of a list with its words, else how it is written."""
        listed = self.choices()
        if listed is None or self.kind == "events":
            return self.written([])
        return "、".join(f"{c or 'null'}（{w}）" for c, w in listed)

    def help(self) -> str:
        """The field's lines in ``kb bridge COMMAND --help``: its name, words and allowed values."""
        left = f"（可省略，默认 {json.dumps(self.default, ensure_ascii=False)}）" if self.optional else ""
        return f"{self.name}：{self.label}{left}\n    {self.values()}"

    def value_words(self, value: Any) -> str:
        """A value of the field for a person: cards as ♠A, seats as 北家, calls as 1红心, flags as 是/否."""
        k = self.kind
        if isinstance(value, bool):
            return "是" if value else "否"
        if k == "cards":
            return prose.cards(value)
        if k == "card":
            return prose.card(value)
        if k == "led" and value is None:
            return "无（他引牌）"
        if k in ("suit", "trump", "led"):
            return prose.suit(value)
        if k == "suits":
            return "、".join(prose.suit(s) for s in value)
        if k == "seat":
            return prose.seat(value)
        if k == "call":
            return prose.call(value, self.name)
        if k == "events":
            return "；".join(prose.event(e, self.words or {}) for e in value) or "（无）"
        if k == "ints":
            return "、".join(f"第{n}墩" for n in value) or "（无）"
        if k == "choice":
            return prose.value(self.words or {}, value, self.name)
        if k == "word":
            return f"“{value}”"
        return self.unit.format(value) if self.unit else str(value)


@dataclass(frozen=True)
class Ruling:
    """One encoded ruling, declared beside its function: its ``kb bridge`` subcommand, function, clause
    ids, one-line summary, input fields (one per keyword argument, in order), its situation in words
    (``situation(input) -> str``: what a worked example says happened) and, if it likes, its worked
    examples (the older rulings keep theirs in examples.json)."""

    command: str
    function: Callable[..., Result]
    clauses: tuple[str, ...]
    summary: str
    inputs: tuple[Field, ...]
    situation: Callable[[dict], str] = field(compare=False)
    # worked examples declared with the ruling ({"title", "clause", "input", "expect"[, "near_miss"]}), run
    # with those of examples.json (kb/rules/bridge/examples.py): they are checked and shown the same way
    examples: tuple[dict[str, Any], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        where = f"bridge ruling {self.command}"
        params = inspect.signature(self.function).parameters
        names = [f.name for f in self.inputs]
        if names != list(params):
            raise KbError(f"{where}: 声明的字段 {names} 应与 {self.function.__name__} 的参数 {list(params)} 一一对应")
        resolved = []
        for f in self.inputs:
            if f.kind not in KINDS:
                raise KbError(f"{where}.{f.name}: 未知的字段种类 {f.kind!r}（可用：{'、'.join(KINDS)}）")
            if (f.kind in ("choice", "events")) != bool(f.words):
                raise KbError(f"{where}.{f.name}: 只有 choice 与 events 字段声明 words，且必须声明")
            if not f.label:
                raise KbError(f"{where}.{f.name}: 缺少标签")
            default = params[f.name].default
            optional = default is not inspect.Parameter.empty
            resolved.append(replace(f, optional=optional, default=default if optional else None))
        object.__setattr__(self, "inputs", tuple(resolved))

    @property
    def name(self) -> str:
        return self.function.__name__

    @property
    def fields(self) -> tuple[str, ...]:
        """The JSON fields the ruling takes, optional ones in brackets: ``("hand", "[led_suit]")``."""
        return tuple(f"[{f.name}]" if f.optional else f.name for f in self.inputs)

    def field(self, name: str) -> Field:
        for f in self.inputs:
            if f.name == name:
                return f
        raise KbError(f"{self.name}: 没有字段 {name}（可用：{'、'.join(f.name for f in self.inputs)}）")

    def form(self, samples: list[dict]) -> list[dict[str, Any]]:
        """The helper's form for the ruling, field by field (``samples``: the worked examples' inputs)."""
        return [f.form([s[f.name] for s in samples if f.name in s]) for f in self.inputs]

    def schema(self) -> dict[str, Any]:
        """The ruling's JSON input as JSON Schema."""
        return {"type": "object", "title": self.summary, "additionalProperties": False,
                "required": [f.name for f in self.inputs if not f.optional],
                "properties": {f.name: f.schema() for f in self.inputs}}

    def help(self) -> str:
        """``kb bridge COMMAND --help``: the summary, then each field with its allowed values."""
        lines = [f"kb bridge {self.command} FILE|- [--json]", f"  {self.summary}", "", "字段（JSON 对象的键）："]
        lines += ["  " + f.help().replace("\n", "\n  ") for f in self.inputs]
        return "\n".join(lines)


def _pairs(names: Mapping[str, str]) -> list[list[str]]:
    """[code, words] of each code, in order: what a list to choose from offers."""
    return [[c, n] for c, n in names.items()]
