"""Cross-reference extractor: find -> resolve -> annotate, on sentences from the sources."""
from __future__ import annotations

import re
from pathlib import Path

import opencc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.ingest.xref import Citation, Ref, annotate, find_references, find_term_references, fold, resolve, resolve_all
from kb.ingest.xref.mahjong import TERMS_PATH, load_terms

_T2S = opencc.OpenCC("t2s")


def s(trad: str) -> str:
    """A sentence of witness 000/002 (Traditional), as the ingest stage gives it."""
    return _T2S.convert(trad)


# --------------------------------------------------------------------------- fake corpus

def _ids(work: str, laws: range, holes: set[str]) -> set[str]:
    out: set[str] = set()
    for law in laws:
        out.add(f"{work}:{law}")
        for c in "ABCDEFG":
            out.add(f"{work}:{law}{c}")
            for i in range(1, 5):
                out.add(f"{work}:{law}{c}{i}")
                for sub in "abc":
                    out.add(f"{work}:{law}{c}{i}{sub}")
    return {i for i in out if not any(i == h or i.startswith(h) for h in holes)}


# holes: 45E has no numbered items; 52B2 and 62C2 have no sub-items; 62C has no item 2
CBR = _ids("cbr1999", range(26, 72), {"cbr1999:45E1", "cbr1999:45E2", "cbr1999:45E3",
                                      "cbr1999:45E4", "cbr1999:52B2a", "cbr1999:52B2b",
                                      "cbr1999:52B2c", "cbr1999:62C2"})
LAWS = _ids("laws1997", range(41, 48), set())


def cbr(cit: Citation, law: int | None = None, path: list[str] | None = None) -> Ref:
    path = path or ([str(law)] if law else [])
    return resolve(cit, work="cbr1999", law=law, path=path, exists=CBR.__contains__)


def laws(cit: Citation, law: int, path: list[str] | None = None) -> Ref:
    return resolve(cit, work="laws1997", law=law, path=path or [str(law)],
                   exists=LAWS.__contains__)


def found(text: str) -> list[tuple[str, tuple[int, int]]]:
    return [(c.text, c.span) for c in find_references(text)]


def span_of(text: str, needle: str, start: int = 0) -> tuple[int, int]:
    i = text.index(needle, start)
    return (i, i + len(needle))


# --------------------------------------------------------------------------- absolute forms

ABSOLUTE = [
    # (sentence, citing work, citing law, reference text, target)
    (s("此一牌麵向下的首引牌，隻有在發生違規，經裁判判罰後，才能收回（參閱第47條E款2）；收回的牌張，"
       "必須放入原防家手中"), "cbr1999", 41, "第47条E款2", "cbr1999:47E2"),
    (s("明手可詢問莊家（但參閱第43條B款2（b））"), "cbr1999", 61, "第43条B款2（b）",
     "cbr1999:43B2b"),
    ("此牌只有在违例被纠正时按照裁判长的指示时方可收回（参见规则47E2）；收回的这张牌必须放回该防",
     "laws1997", 41, "规则47E2", "laws1997:47E2"),
    ("在按规则45C4（b）的规定允许对一个疏忽的", "laws1997", 47, "规则45C4（b）",
     "laws1997:45C4b"),
    ("如防家在该墩牌中已打出合法牌张，参阅４５条Ｅ款）。", "cbr1999", 45, "４５条Ｅ款", "cbr1999:45E"),
    (s("防家的牌張防家從手中抽出的牌張，當牌麵有可能被其同伴看到時，則該張牌必須於該墩中打出"
       "（如該防家在該墩牌中已打出合法牌張，參閱45條E款）"), "cbr1999", 45, "45条E款", "cbr1999:45E"),
    (s("應用第45條E款（5張牌的牌墩）或第58條B款（從一手中同時打出多張牌）"), "cbr1999", 67,
     "第45条E款", "cbr1999:45E"),
    (s("藏牌一經成立，即不得再予改正（第62條D款所述在第十二墩的藏牌除外）"), "cbr1999", 63,
     "第62条D款", "cbr1999:62D"),
    (s("（判罰）認為違規者在該墩牌上已構成藏牌，按第64條規定他可能受到一墩牌的處罰"), "cbr1999", 67,
     "第64条", "cbr1999:64"),
    ("但防家声称所暴露牌张涉及当前的未完成的牌墩时，参阅第６８条的注释。", "cbr1999", 49, "第６８条",
     "cbr1999:68"),
    ("此时不能如上述（ａ）规定方式收回打出的牌张，应用第４０条ｃ款。", "cbr1999", 47, "第４０条ｃ款",
     "cbr1999:40C"),
    ("如果庄家上家更改了打牌，庄家也可更改此墩中的打牌（参阅事１６条Ｃ款２）。", "cbr1999", 45,
     "事１６条Ｃ款２", None),                          # law 16: external, see below
    ("过早暴露（但非引牌，参阅第５７条）的牌", "cbr1999", 50, "第５７条", "cbr1999:57"),
    ("在按第４５条Ｃ款４ （ｂ）许可的情况下，赛员", "cbr1999", 47, "第４５条Ｃ款４ （ｂ）",
     "cbr1999:45C4b"),
    ("当某防家未能按第５０ 条及时引出或打出罚张时", "cbr1999", 52, "第５０ 条", "cbr1999:50"),
    ("对定的人一方处以规则64规定的判罚。", "laws1997", 43, "规则64", None),   # not in laws1997 corpus
    ("如果为时已晚，按规则40C的规定处理。", "laws1997", 47, "规则40C", None),
    ("除非是在按规则47E2（a）项的规定更改所打出的牌张", "laws1997", 41, "规则47E2（a）项",
     "laws1997:47E2a"),
    (s("明手誤打牌張如果明手將莊家未指明的牌張放在打出牌位置，在雙方對下一墩牌均打出牌張前發現，"
       "則該牌張必須收回"), "cbr1999", 45, None, None),  # no reference at all
]


@pytest.mark.parametrize("text,work,law,ref,target", ABSOLUTE)
def test_absolute_forms(text: str, work: str, law: int, ref: str | None,
                        target: str | None) -> None:
    cits = find_references(text)
    if ref is None:
        assert cits == []
        return
    (first,) = [c for c in cits if c.text == ref]
    assert first.span == span_of(text, ref)
    r = (cbr if work == "cbr1999" else laws)(first, law)
    if target is None:
        assert r.status == "external" and r.target is None
    else:
        assert (r.status, r.target, r.coarser) == ("resolved", target, False)


def test_law_lists_each_law_is_a_reference() -> None:
    t = s("由防家打出如果某防家在一墩牌中多打了一張牌，依據第50條該張牌成為罰張，除非裁判認為該張牌是"
          "下一墩的引牌，此時應用第53條或第56條")
    assert [c.text for c in find_references(t)] == ["第50条", "第53条", "第56条"]
    t = s("必須立即召請裁判，應用第70條、71條，在裁判到達前不得采取行動")
    cits = find_references(t)
    assert [(c.text, c.span) for c in cits] == [("第70条", span_of(t, "第70条")),
                                                 ("71条", span_of(t, "71条"))]
    assert [cbr(c, 68).target for c in cits] == ["cbr1999:70", "cbr1999:71"]
    t = "张是一攻牌，则按规则53或规则56的规定处理。"
    assert [laws(c, 45).status for c in find_references(t)] == ["external", "external"]
    assert [laws(c, 45).law for c in find_references(t)] == [53, 56]


def test_external_laws_are_not_linked_but_keep_the_law_number() -> None:
    t = s("對聲稱默認的撤銷在第79條C款規定的更改時限內，參賽者可要求撤銷對對方聲稱的默認")
    (c,) = find_references(t)
    assert c.text == "第79条C款"
    r = cbr(c, 69)
    assert (r.status, r.target, r.law, r.wanted) == ("external", None, 79, "79C")
    t = s("除下列各款的判罰外，當裁判認為適用第72條B款1時，應判給調整分")
    (c,) = find_references(t)
    assert (c.text, cbr(c, 50).status, cbr(c, 50).law) == ("第72条B款1", "external", 72)
    t = "叫牌的含意作出解释（参见规则20）。定约人及任一防守人在第一次轮"
    (c,) = find_references(t)
    r = laws(c, 41)
    assert (c.text, r.status, r.law, r.target) == ("规则20", "external", 20, None)
    t = s("一般判罰明手違反了上述A款1、2中的任何一種限製時，都應受到第90條的判罰")
    assert cbr(find_references(t)[-1], 43).to_json() == {
        "text": "第90条", "span": list(span_of(t, "第90条")), "target": None,
        "status": "external", "wanted": "90", "law": 90}
    ocr = find_references("（参阅事１６条Ｃ款２）")[0]
    assert (cbr(ocr, 45).status, cbr(ocr, 45).law, cbr(ocr, 45).wanted) == ("external", 16, "16C2")


def test_law_number_outside_the_laws_is_unresolved() -> None:
    for text in ("参阅第120条", "参阅第0条", "参见规则95"):
        (c,) = find_references(text)
        assert cbr(c, 45).status == "unresolved" and cbr(c, 45).target is None


def test_missing_clause_of_a_law_in_the_corpus_is_unresolved_not_coarser() -> None:
    # issue 16 §5: a mutated 第46条C款4(b) must not link to Law 46 as if resolved
    (c,) = find_references("多打出牌张，应用第45条E款1的规定")
    r = cbr(c, 67)
    assert (r.status, r.target, r.coarser, r.wanted) == ("unresolved", None, False, "45E1")
    t = s("在第45條C款4（b）許可的情況下，賽員由於疏忽而錯打，可收回更換，不判罰（參閱第62條C款2）")
    r = cbr(find_references(t)[-1], 47)
    assert (r.text, r.target, r.status, r.wanted) == ("第62条C款2", None, "unresolved", "62C2")


def test_mutated_reference_in_the_real_corpus_is_unresolved(records) -> None:
    from kb.ingest.xref import record_refs
    rec = records["cbr1999:47D"] if "cbr1999:47D" in records else next(iter(records.values()))
    rec = type(rec)(**{**rec.__dict__, "text_hans": "参阅第46条C款4（b）"})
    (r,) = record_refs(rec, records.__contains__)
    assert (r.status, r.target, r.wanted) == ("unresolved", None, "46C4b")


def test_ocr_slip_and_fullwidth() -> None:
    t = "可更改此墩中的打牌（参阅事１６条Ｃ款２）。"
    assert found(t) == [("事１６条Ｃ款２", span_of(t, "事１６条Ｃ款２"))]
    assert fold("第４５条Ｃ款４（ｂ）") == "第45条C款4(b)"
    assert len(fold("第４５条　Ｃ")) == len("第４５条　Ｃ")


def test_line_wrapped_law_number() -> None:
    t = s("某防家作了牌麵向上的越序首引後，莊家可以按第53條，接受該違規引牌，同時明手按第4\n1條攤牌")
    cits = find_references(t)
    assert [c.text for c in cits] == ["第53条", "第4\n1条"]
    assert cbr(cits[1], 54).target == "cbr1999:41"


# --------------------------------------------------------------------------- relative forms

def test_this_law_clause() -> None:
    t = s("當再要求複述競叫過程的權利喪失後（參閱本條B款），莊家或任一防家，在輪到自己出牌時")
    (c,) = find_references(t)
    assert (c.text, c.span) == ("本条B款", span_of(t, "本条B款"))
    assert cbr(c, 41, ["41", "C"]).target == "cbr1999:41B"
    # relative references resolve within their own law
    assert cbr(c, 55, ["55", "A"]).target == "cbr1999:55B"


def test_this_law_clause_item_subitem() -> None:
    t = s("莊家可要求該防家的同伴引出任一有罰張的花色（但應用本條B款1（a））")
    (c,) = find_references(t)
    assert c.text == "本条B款1（a）"
    assert cbr(c, 51, ["51", "B", "1", "b"]).target == "cbr1999:51B1a"
    t = "莊家可要求该防家的同伴引出任一有罚张的花色（但应用本条Ｂ款１（ａ））。"
    (c,) = find_references(t)
    assert (c.text, cbr(c, 51, ["51", "B", "1", "b"]).target) == ("本条Ｂ款１（ａ）", "cbr1999:51B1a")


def test_laws1997_relative_forms() -> None:
    t = "如果为时已晚，已不能按本条规则E2（a）项的规定更改所打出的牌张时，按规则40C的规定处理。"
    cits = find_references(t)
    assert [c.text for c in cits] == ["本条规则E2（a）项", "规则40C"]
    assert laws(cits[0], 47, ["47", "E", "2", "b"]).target == "laws1997:47E2a"
    t = "当再要求对叫牌过程进行复诉时（参见上面的B项），定约人或任一防守人在轮"
    (c,) = find_references(t)
    assert (c.text, laws(c, 41, ["41", "C"]).target) == ("上面的B项", "laws1997:41B")
    t = "如果防守人已经打出了一张合法的牌张，参见本条规则的E项）。"
    (c,) = find_references(t)
    assert (c.text, laws(c, 45, ["45", "C", "1"]).target) == ("本条规则的E项", "laws1997:45E")
    t = "明手违反本条规则A1和A2项中的任何一条限制"
    cits = find_references(t)
    assert [(c.text, c.span) for c in cits] == [("本条规则A1", span_of(t, "本条规则A1")),
                                                 ("A2项", span_of(t, "A2项"))]
    assert [laws(c, 43, ["43", "B", "1"]).target for c in cits] == ["laws1997:43A1",
                                                                     "laws1997:43A2"]
    t = "如果根据本条规则C、D或E项的规定而收回的牌"
    cits = find_references(t)
    assert [c.text for c in cits] == ["本条规则C", "D", "E项"]
    assert [laws(c, 47, ["47", "G"]).target for c in cits] == [
        "laws1997:47C", "laws1997:47D", "laws1997:47E"]


def test_above_clause_item_and_lists() -> None:
    t = s("特彆判罰明手有違反了上述A款2所列的限製後，如果他再有下列各種行為發生時，即：")
    (c,) = find_references(t)
    assert (c.text, cbr(c, 43, ["43", "B", "2"]).target) == ("上述A款2", "cbr1999:43A2")
    t = s("一般判罰明手違反了上述A款1、2中的任何一種限製時，都應受到第90條的判罰")
    cits = find_references(t)
    assert [(c.text, c.span) for c in cits] == [
        ("上述A款1", span_of(t, "上述A款1")), ("2", (t.index("、2") + 1, t.index("、2") + 2)),
        ("第90条", span_of(t, "第90条"))]
    assert [cbr(c, 43, ["43", "B", "1"]).target for c in cits[:2]] == ["cbr1999:43A1",
                                                                      "cbr1999:43A2"]


def test_above_subitems_are_siblings_of_the_citing_item() -> None:
    t = s("一家或多家接續打牌此時不能如上述（a）規定方式收回打出的牌張，應用第40條C款")
    cits = find_references(t)
    assert [c.text for c in cits] == ["上述（a）", "第40条C款"]
    assert cbr(cits[0], 47, ["47", "E", "2", "b"]).target == "cbr1999:47E2a"
    assert cbr(cits[1], 47, ["47", "E", "2", "b"]).target == "cbr1999:40C"
    # cited from an item without sub-items: the (a)/(b) of the item above it
    t = s("罰張仍為罰張如果打出的牌張已按上述（a）或（b）情況被接受，則未打出的罰張仍保持為罰張")
    cits = find_references(t)
    assert [(c.text, c.span) for c in cits] == [("上述（a）", span_of(t, "上述（a）")),
                                                 ("（b）", span_of(t, "（b）"))]
    assert [cbr(c, 52, ["52", "B", "2"]).target for c in cits] == ["cbr1999:52B1a",
                                                                   "cbr1999:52B1b"]
    # without a citing item there is nothing to be relative to: never guess
    r = cbr(cits[0], 52, ["52", "B"])
    assert (r.status, r.target) == ("unresolved", None)


def test_clause_range_resolves_to_the_law_with_members() -> None:
    t = s("不得收回的牌張凡不屬上述A至E各款所規定的情況，牌張一經打出，均不得收回")
    (c,) = find_references(t)
    assert (c.text, c.span) == ("上述A至E各款", span_of(t, "上述A至E各款"))
    r = cbr(c, 47, ["47", "F"])
    assert (r.status, r.target, r.coarser, r.wanted) == ("resolved", "cbr1999:47", True, "47A-E")
    assert r.members == [f"cbr1999:47{x}" for x in "ABCDE"]
    (c,) = find_references("除符合本条规则A到E项的规定者外，牌张一经")
    assert laws(c, 47, ["47", "F"]).members == [f"laws1997:47{x}" for x in "ABCDE"]


# --------------------------------------------------------------------------- not references

@pytest.mark.parametrize("text", [
    s("必須改正在第十二墩，藏牌即使已經成立，但在四手牌均收回牌套前發現，必須改正"),
    s("如果明手為第4家打牌，則可認為其所指的是該花色中贏取該墩的最小牌張"),
    "闲家起牌天听摸第1张牌自摸, 或胡各家打出其第一张牌",
    s("跟牌的規定在一墩牌中，各賽員能夠跟牌時，必須跟牌。對所有規則條款而言，跟牌的義務最為優先。"),
    "因疏忽而暴露的一张９或９以下的牌张",
    "第六章 打 牌\n第一部分 程序",
])
def test_not_references(text: str) -> None:
    assert find_references(text) == []


def test_headings_are_not_references() -> None:
    assert found(s("第41條打牌的開始\n\n牌麵向下首引在一個實質叫牌")) == []
    assert found("规则44 打牌的进程和程序\nA．对一个牌墩的攻牌") == []
    assert found(s("第三節 不足叫牌第條：不足叫牌．不足叫牌被接受")) == []


# --------------------------------------------------------------------------- damaged text (002)

LOST = [
    (s("則視同未曾發生違例，叫牌繼續進行（第條款此時不適用，但需參閱以下（）項）"),
     ["第条款", "以下（）项"]),
    (s("（參閱第條款，當強制性不叫損害非違規方時參閱第條，并可應用第條引牌判罰）"),
     ["第条款", "第条", "第条"]),
    (s("（當強制性不叫損害非違規方時參閱條款，并可應用第條引牌判罰）"), ["条款", "第条"]),
    (s("但違規方可能受到第條、條、條的判罰"), ["第条", "条", "条"]),
    (s("越序叫牌應予取消（參閱本條款），然後由原依序叫牌者叫牌"), ["本条款"]),
    (s("一般判罰明手違反了上述款、中的任何一種限製時，都應受到規則第條的判罰"),
     ["上述款", "规则第条"]),
    ("参阅第條款", ["第條款"]),                       # unconverted Traditional, still found
]


@pytest.mark.parametrize("text,refs", LOST)
def test_lost_references(text: str, refs: list[str]) -> None:
    cits = find_references(text)
    assert [c.text for c in cits] == refs
    start = 0
    for c in cits:
        assert c.lost and c.span == span_of(text, c.text, start)
        start = c.span[1]
        r = cbr(c, 27, ["27", "B", "1"])
        assert (r.status, r.target, r.law) == ("lost", None, None)


def test_lost_is_never_linked() -> None:
    t = s("（參閱第條款，當強制性不叫損害非違規方時參閱第條，并可應用第條引牌判罰）")
    refs = resolve_all(t, work="cbr1999", law=27, path=["27", "B"], exists=lambda _: True)
    assert refs and all(r.status == "lost" for r in refs)
    assert annotate(t, refs, lambda r: f"#{r.target}") == t
    html = annotate(t, refs, lambda r: f"#{r.target}", style="html")
    assert "<a " not in html and html.count('class="xref xref-lost"') == 3


# --------------------------------------------------------------------------- annotate

def test_annotate_links_resolved_only() -> None:
    t = s("如果明手違反了上述A款2的規定，應受到第90條的判罰（參閱第47條E款2）")
    refs = resolve_all(t, work="cbr1999", law=43, path=["43", "B", "3"], exists=CBR.__contains__)
    assert [r.status for r in refs] == ["resolved", "external", "resolved"]
    md = annotate(t, refs, lambda r: f"/{r.target}")
    assert md == t.replace("上述A款2", "[上述A款2](/cbr1999:43A2)").replace(
        "第47条E款2", "[第47条E款2](/cbr1999:47E2)")
    html = annotate(t, refs, lambda r: f"/{r.target}?a&b", style="html")
    assert '<a class="xref" href="/cbr1999:43A2?a&amp;b">上述A款2</a>' in html
    assert '<span class="xref xref-external">第90条</span>' in html
    # href may decline a link
    assert annotate(t, refs, lambda r: None) == t
    # overlapping spans: the earlier one wins, nothing is lost
    over = [Ref("上述A款2", refs[0].span, "x", "resolved"),
            Ref("A款", (refs[0].span[0] + 2, refs[0].span[0] + 4), "y", "resolved")]
    assert annotate(t, over, lambda r: r.target).count("](") == 1


def test_ref_json_round_trip() -> None:
    r = Ref("上述A至E各款", (3, 10), "cbr1999:47", "resolved", coarser=True, wanted="47A-E",
            law=47, members=["cbr1999:47A"])
    assert Ref.from_json(r.to_json()) == r
    assert Ref("第64条", (0, 4), "cbr1999:64", "resolved", law=64).to_json() == {
        "text": "第64条", "span": [0, 4], "target": "cbr1999:64", "status": "resolved", "law": 64}


# --------------------------------------------------------------------------- mahjong

def terms(text: str, self_id: str | None) -> list[tuple[str, str | None]]:
    out = []
    for r in find_term_references(text, self_id):
        assert text[r.span[0]:r.span[1]] == r.text and r.status == "resolved"
        out.append((r.text, r.target))
    return out


def test_mahjong_pointer_words() -> None:
    t = "五副配得或摸得之坎子(包含暗杠)组成, 不计门清.对对胡; 如为自摸, 加计不求."
    assert terms(t, "twmj16:patterns.18") == [
        ("暗杠", "twmj16:concealed-kan"), ("门清", "twmj16:patterns.3"),
        ("对对胡", "twmj16:patterns.8"), ("不求", "twmj16:patterns.4")]
    t = "於杠尾补牌而成胡, 加计自摸1台. 另规定同自摸."
    assert terms(t, "twmj16:patterns.24") == [("自摸", "twmj16:patterns.23")] * 2
    t = "庄家於配牌补花後即胡牌, 是为天胡, 不计门清一摸三. 庄家天胡不论靠张与否."
    assert terms(t, "twmj16:patterns.33") == [("门清一摸三", "twmj16:patterns.4")]
    t = "是为地胡, 不计天听, 门清, 如自摸则加计不求.自摸2台."
    assert terms(t, "twmj16:patterns.34") == [
        ("天听", "twmj16:patterns.31"), ("门清", "twmj16:patterns.3"),
        ("不求.自摸", "twmj16:patterns.4")]
    t = "手牌皆已吃碰外露, 仅剩一牌单钓胡铳, 是谓全求. 加计独听1台, 共3台."
    assert terms(t, "twmj16:patterns.5") == [("独听", "twmj16:patterns.11")]
    t = "全为字牌, 不计对对胡(因必然并存)."
    assert terms(t, "twmj16:patterns.13") == [("对对胡", "twmj16:patterns.8"),
                                               ("必然并存", "twmj16:counting")]


def test_mahjong_penalty_terms() -> None:
    t = ("本家得立即抢花补牌并胡牌, 视同被抢花者放铳, 计七抢一8台1底(暗牌不计毋须翻开), "
         "涉庄连拉台数照算, 本盘终止")
    assert terms(t, "twmj16:patterns.30.1") == [("放铳", "twmj16:deal-in")]
    t = "错碰杠: 未补牌前即时纠正依喊碰未碰处罚. ; 已进行补牌时处理如下:"
    assert terms(t, None) == [("喊碰未碰", "twmj16:pon-called-not-made")]
    t = ("海底牌不得弃摸. 眼牌违规视同相公, 违规二次应就其底注与台数其包赔三家, 庄连拉照算. "
         "未听牌而眼牌者计违规一次, 再次违规则包赔.")
    assert terms(t, "twmj16:open-watch") == [("相公", "twmj16:dead-hand"),
                                             ("包赔", "twmj16:full-liability"),
                                             ("包赔", "twmj16:full-liability")]
    t = "得胡铳者已伸手摸牌时, 视为过水不胡, 轮序在後的胡铳者优先."
    assert terms(t, None) == [("过水", "twmj16:pass-win")]
    t = "当有人杠上开花或因杠底补牌(含补花.开杠)原牌打出而放铳时, 如有错误应由错暗杠者代位赔付."
    assert terms(t, None) == [("补花", "twmj16:flower-replacement"),
                              ("代位赔付", "twmj16:substitute-payment")]
    t = "如庄家忘了抓门牌, 他人补花後庄家抓了门牌如恰为花牌, 应禁止补牌并判相公."
    assert terms(t, "twmj16:flower-replacement") == [("相公", "twmj16:dead-hand")]


def test_mahjong_negatives() -> None:
    # the clause's own heading and its references to itself
    assert terms("门清1台 : 胡牌前无吃、碰、明杠, 允许暗杠.", "twmj16:patterns.3") == []
    t = ("相公 : 缺张、逾张、错吃碰杠、偷牌等经举发或自承, 是为相公. 相公仅得依序摸牌(得自杠,补花)"
         "并择牌打出, 不得吃碰.抢花或胡牌.")
    assert terms(t, "twmj16:dead-hand") == []
    t = "天听如未眼牌, 胡牌後如发现曾过水未胡, 不计天听, 胡牌仍有效."
    assert terms(t, "twmj16:patterns.31") == [("眼牌", "twmj16:open-watch"),
                                              ("过水", "twmj16:pass-win")]
    # a defining phrase is not a reference, even without self_id
    assert terms("得胡牌而未胡牌, 是为过水, 其後不得胡牌", None) == []
    # 人胡 inside 他人胡牌 is not pattern 35; plain running text is not linked
    assert terms("他人胡牌时应付胡牌者1台.", None) == []
    assert terms("闲家配牌补花後即宣布听牌, 是为天听", None) == []
    assert terms("一手牌17张(不含花牌、杠牌逾张)组成5副完成的顺子", None) == []
    # heading lines of a section
    assert terms("l 眼牌 : 听牌後得起身游走观看各家暗牌", None) == []


def test_mahjong_terms_table() -> None:
    allowed = {f"twmj16:patterns.{n}" for n in range(1, 37)} | {
        f"twmj16:{x}" for x in (
            "terms winning-form counting win draw chi pon pon-called-not-made concealed-kan "
            "exposed-kan hand-value ready deal-in pass-win pass-win-release exhaustive-draw "
            "dead-hand open-watch false-win full-liability substitute-payment "
            "flower-replacement").split()}
    table = load_terms()
    assert len({t.term for t in table}) == len(table)
    assert {t.target for t in table} <= allowed
    assert {f"twmj16:patterns.{n}" for n in range(1, 37)} <= {t.target for t in table}
    raw = TERMS_PATH.read_text(encoding="utf-8")
    assert not re.search(r"https?://", raw)


def test_mahjong_exists_filter() -> None:
    refs = find_term_references("眼牌违规视同相公", None, exists=lambda i: i != "twmj16:dead-hand")
    assert [(r.text, r.status, r.target) for r in refs] == [
        ("眼牌", "resolved", "twmj16:open-watch"), ("相公", "unresolved", None)]


# --------------------------------------------------------------------------- properties

REAL = [t for t, *_ in ABSOLUTE] + [t for t, _ in LOST] + [
    s("不得收回的牌張凡不屬上述A至E各款所規定的情況，牌張一經打出，均不得收回"),
    "明手违反本条规则A1和A2项中的任何一条限制",
    "如果根据本条规则C、D或E项的规定而收回的牌",
    "五副配得或摸得之坎子(包含暗杠)组成, 不计门清.对对胡; 如为自摸, 加计不求.",
    "本家已持7花牌而他人摸得第8支花牌并欲补牌时, 视同被抢花者放铳, 计七抢一8台1底",
]
ALPHABET = ("第条款规则本上述面的以下至到各项事参阅见应用按或和及、，。：:（）()[]"
            "ABCEHabchz0123456789０４５ＣＥｂ□十二墩家张不计加同视判相公门清自摸过水包赔 \n")


def _check(text: str) -> None:
    cits = find_references(text)
    last = 0
    for c in cits:
        a, b = c.span
        assert 0 <= a < b <= len(text) and a >= last and text[a:b] == c.text
        last = b
        for law, path in ((45, ["45", "C", "4", "b"]), (None, []), (52, ["52", "B", "2"])):
            r = resolve(c, work="cbr1999", law=law, path=path, exists=CBR.__contains__)
            assert r.span == c.span and r.text == c.text
            assert r.status in ("resolved", "external", "lost", "unresolved")
            assert (r.target is not None) == (r.status == "resolved")
            if r.status == "resolved":
                assert r.target in CBR
            if c.lost:
                assert r.status == "lost"
    refs = find_term_references(text, "twmj16:patterns.3")
    for r in refs:
        assert text[r.span[0]:r.span[1]] == r.text
    all_refs = resolve_all(text, work="cbr1999", law=47, path=["47", "E"],
                           exists=CBR.__contains__) + refs
    md = annotate(text, all_refs, lambda r: "#")
    assert re.sub(r"\[([^\]]*)\]\(#\)", r"\1", md) == text or "[" in text or "]" in text


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=ALPHABET, max_size=60) | st.text(max_size=40))
def test_random_text_never_raises(text: str) -> None:
    _check(text)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(REAL), st.lists(st.tuples(st.integers(0, 200), st.integers(0, 3),
                                                 st.sampled_from(ALPHABET)), max_size=6))
def test_mutated_real_sentences_never_raise(text: str, edits: list[tuple[int, int, str]]) -> None:
    for pos, kind, ch in edits:
        pos %= len(text) + 1
        if kind == 0:
            text = text[:pos] + ch + text[pos:]
        elif kind == 1:
            text = text[:pos] + text[pos + 1:]
        elif kind == 2:
            text = text[:pos] + ch + text[pos + 1:]
        else:
            text = text[:pos] + "\n" + text[pos:]
    _check(text)


def test_sources_smoke() -> None:
    """Every source text: spans are exact and nothing raises; the counts stay sane."""
    src = Path(__file__).resolve().parent.parent / "kb" / "sources"
    for f in sorted(src.glob("00[0-4]_*.txt")):
        text = f.read_text(encoding="utf-8")
        _check(text)


def test_record_refs_dispatches_on_work() -> None:
    from kb.core.records import Record
    from kb.ingest.xref import record_refs
    bridge = Record(id="cbr1999:43B1", work="cbr1999", citation="43B1", level="item",
                    parent="cbr1999:43B", order=1, law=43, path=["43", "B", "1"],
                    text_hans=s("一般判罰明手違反了上述A款1、2中的任何一種限製時，都應受到第90條的判罰"))
    assert [r.to_json()["target"] for r in record_refs(bridge, CBR.__contains__)] == [
        "cbr1999:43A1", "cbr1999:43A2", None]
    mj = Record(id="twmj16:patterns.33", work="twmj16", citation="计台名堂 33", level="item",
                parent="twmj16:patterns", order=33,
                text_hans="庄家於配牌补花後即胡牌, 是为天胡, 不计门清一摸三.")
    assert [r.target for r in record_refs(mj, lambda _: True)] == ["twmj16:patterns.4"]


# --------------------------------------------------------------------------- marked losses (ingest)

MARKED = [
    # the ingest stage marks each lost digit/letter of witness 002 with □
    ("如该不足叫牌及替代的叫牌无可置疑地不是约定叫牌，则视同未曾发生违例，叫牌继续进行"
     "（第□条□款此时不适用，但需参阅以下（□）项）。", ["第□条□款", "以下（□）项"]),
    ("必须永远不叫（当强制性不叫损害非违规方时参阅□条□款，并可应用第□条引牌判罚）。",
     ["□条□款", "第□条"]),
    ("否则，越序叫牌应予取消（参阅本条□款），然后由原依序叫牌者叫牌。违规者在轮他叫牌时可以作出"
     "任何合法叫牌，但违规方可能受到第□条、□条、□条的判罚。",
     ["本条□款", "第□条", "□条", "□条"]),
    ("违规者在轮到其上家叫牌时越序实质叫牌（或对同伴的叫牌越序的约定性不叫，此时应用本条（□））。",
     ["本条（□）"]),
    ("一般判罚明手违反了上述□款、中的任何一种限制时，都应受到规则第□条的判罚。",
     ["上述□款", "规则第□条"]),
]


@pytest.mark.parametrize("text,refs", MARKED)
def test_marked_lost_references(text: str, refs: list[str]) -> None:
    cits = find_references(text)
    assert [c.text for c in cits] == refs
    out = resolve_all(text, work="cbr1999", law=29, path=["29", "B"], exists=lambda _: True)
    assert all(r.status == "lost" and r.target is None for r in out)
    assert annotate(text, out, lambda r: "#x") == text


def test_partial_loss_is_lost_but_keeps_the_law() -> None:
    (c,) = find_references("参阅第45条□款")
    r = cbr(c, 47)
    assert (c.text, r.status, r.target, r.law) == ("第45条□款", "lost", None, 45)


# --------------------------------------------------------------------------- mahjong list items

def test_mahjong_item_references() -> None:
    from kb.ingest.xref.mahjong import find_item_references
    t = ("所补之牌已插入手牌尚未打牌前发现：如可确定哪张牌则同（1）；如无法确定哪张牌则由他人任抽一牌"
         "置回杠上，错杠者判相公")
    (r,) = find_item_references(t, "twmj16:wrong-kan.3.2")
    assert (r.text, r.span, r.target) == ("（1）", span_of(t, "（1）"), "twmj16:wrong-kan.3.1")
    t = "如舍牌已入海有人吃碰，除判相公外，仍应强制依方式（1）复原改打"
    (r,) = find_item_references(t, "twmj16:wrong-exposed-discard.2")
    assert (r.text, r.target) == ("方式（1）", "twmj16:wrong-exposed-discard.1")
    t = "牌墙摸序末八张以内之暗杠若检出错误，除适用前项之代位赔付外，若为荒局检出错误，应依牌面包赔三家。"
    (r,) = find_item_references(t, "twmj16:wrong-kan.1.2")
    assert (r.text, r.target) == ("前项", "twmj16:wrong-kan.1.1")
    # not inside a numbered item, or pointing at itself: nothing
    assert find_item_references(t, "twmj16:wrong-kan") == []
    assert find_item_references(t, "twmj16:wrong-kan.1.1") == []
    assert find_item_references("则同（2）", "twmj16:wrong-kan.3.2") == []


# --------------------------------------------------------------------------- the real records

def test_on_the_built_records(linked_records) -> None:
    """Over every record the ingest stage builds: spans exact, nothing unresolved."""
    from kb.ingest.xref import record_refs
    records = linked_records
    ids = {r.id for r in records}
    by_id = {r.id: r for r in records}
    statuses: dict[str, int] = {}
    for rec in records:
        for ref in rec.refs:
            assert rec.text_hans[ref["span"][0]:ref["span"][1]] == ref["text"]
            assert ref["target"] is None or ref["target"] in ids
            assert ref["target"] != rec.id
            statuses[ref["status"]] = statuses.get(ref["status"], 0) + 1
            if "□" in ref["text"]:
                assert ref["status"] == "lost"
        # every lost mark of witness 002 next to 条/款/（） is inside a reference
        # (超过□线, the lost 7 of "more than seven", is no reference)
        spans = [r["span"] for r in rec.refs]
        for m in re.finditer(r"□(?=[条款）、])|(?<=[第条])□", rec.text_hans):
            assert any(a <= m.start() < b for a, b in spans), (rec.id, rec.text_hans)
    assert statuses.get("unresolved", 0) == 0
    restored = [r for rec in records for r in rec.refs if "restored" in r]
    # witness 002's 51 lost references in Laws 27-40: restored (sure or likely) or still lost
    assert len(restored) + statuses["lost"] == 51
    # checked against the 1997 text: sure only where a found 1997 sentence has the number (Laws 27
    # and 31 in Portuguese, Law 32 in Swedish, quoted in the authority); the rest are conjectures
    # (likely), which never link
    sure = [r for r in restored if r["restored"]["confidence"] == "sure"]
    assert (len(sure), len(restored) - len(sure), statuses["lost"]) == (17, 27, 7)
    assert all('"' in r["restored"]["authority"] and r["status"] in ("resolved", "external") for r in sure)
    assert not any(r["target"] for r in restored if r["restored"]["confidence"] == "likely")
    assert statuses["resolved"] > 150 and statuses["external"] > 20
    assert [r.target for r in record_refs(by_id["cbr1999:52B1c"], ids.__contains__)] == [
        "cbr1999:52B1a", "cbr1999:52B1b"]


def test_no_import_cycles_in_the_ingest_and_xref_stages() -> None:
    """kb.ingest.xref (models <- bridge, mahjong, annotate <- package) and kb.ingest.adapters (model <- adapters
    <- package) import one way: no module reaches itself through the others."""
    import ast

    root = Path(__file__).resolve().parent.parent / "kb"
    ingest = root / "ingest"
    mine = [*ingest.glob("xref/*.py"), *ingest.glob("adapters/*.py"), *ingest.glob("segment/*.py"),
            *(ingest / f for f in ("collate.py", "link.py", "normalise.py", "lint.py")), root / "core" / "records.py"]

    def name(path: Path) -> str:
        parts = path.relative_to(root.parent).with_suffix("").parts
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    modules = {name(p): p for p in mine}
    graph: dict[str, set[str]] = {}
    for mod, path in modules.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    deps.add(full if full in modules else node.module)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
        graph[mod] = {d for d in deps if d in modules and d != mod}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(d == goal or (d not in seen and not seen.add(d) and reaches(d, goal, seen))
                   for d in graph[start])

    assert {m for m in graph if reaches(m, m, set())} == set()
    assert "kb.ingest.xref.models" in graph and "kb.ingest.adapters.model" in graph
