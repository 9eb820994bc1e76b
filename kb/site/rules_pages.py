"""The rules pages of the site: the catalogue of encoded rulings, the mahjong 台 calculator and the
bridge ruling helper (both answer through /api/rules when served by ``kb serve``)."""
from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from typing import Any

from kb.rules.bridge.registry import RULINGS
from kb.rules.catalogue import entries
from kb.rules.mahjong.browser import engine_data, wordings
from kb.rules.mahjong.notation import SITUATIONS
from kb.rules.mahjong.settlement import ASSUMED_DEALER, SILENT, WIND_NAMES, WINNER_SEAT
from kb.rules.mahjong.tiles import FLOWERS, TILES, tile_name

INDEX, MAHJONG, BRIDGE = "rules/index.md", "rules/mahjong.md", "rules/bridge.md"
# the calculator's toggles: a situation's line word (notation.SITUATIONS) and its name as a pattern
SITUATION_NAMES = {"杠上": "杠上开花", "海底": "海底捞月", "抢杠": "抢杠胡", "配牌": "配牌花胡"}
_Z = {"E": "1z", "S": "2z", "W": "3z", "N": "4z", "P": "5z", "F": "6z", "C": "7z"}


def _attr(value: Any) -> str:
    return html.escape(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False), quote=True)


def _hrefs(r: Any, page: str, ids: list[str]) -> dict[str, list[str]]:
    """Record id → [URL relative to the page as served, the clause's citation in this edition]."""
    out = {}
    for rid in ids:
        href = r.layout.href(page, rid)
        if href is not None:
            url = "../" + href.replace(".md#", "/#").replace(".md", "/")   # docs path → URL from rules/x/
            out[rid] = [url, r.t(r.layout.by_id[rid].citation)]
    return out


def catalogue_page(r: Any) -> str:
    """Every encoded ruling, by what it answers: its laws, worked examples and clauses (linked), with
    its command and input fields for those who script it (the anchor is the command's)."""
    out = [f"# {r.t('规则计算与裁定目录')}\n",
           r.t("下列每项裁定都按所引条款自动计算，所附算例在每次构建时逐一核验。算例中的“近似情形”是看似适用、"
               "其实不适用该条的情形，用来标明规则的边界；“命令行”一栏供在电脑上用 kb 命令计算的读者参考。") + "\n",
           f"- [{r.t('麻将计台器')}](mahjong.md) · [{r.t('桥牌裁定助手')}](bridge.md)\n"]
    if "rules_entries" not in r.layout.memo:         # the same for both editions: run the examples once
        r.layout.memo["rules_entries"] = entries()
    for e in r.layout.memo["rules_entries"]:
        cites = " ".join(f"⟦{c}⟧" for c in e.clauses)
        laws = "、".join(str(n) for n in e.laws())
        anchor = "-".join(e.command.split())
        out.append(f"## {r.t(e.summary)} {{ #{anchor} }}\n\n"
                   + (f"{r.t('涉及第')} {laws} {r.t('条')}。" if laws else "")
                   + f"{r.t('算例')} {e.examples} {r.t('个')}（{r.t('其中近似情形')} {e.near_misses}）。\n\n"
                   + r.clause_links(f"{r.t('条款')}：{cites}", INDEX) + "\n\n"
                   + f"{r.t('命令行')}：`{e.command}`，{r.t('输入字段')}：`{r.t(' '.join(e.fields))}`\n{{: .kb-footnote }}\n")
    out.append(r.t("命令行用 `kb rules list` 可得同一目录（`--json` 输出机读格式）。") + "\n{: .kb-footnote }\n")
    return "\n".join(out)


def mahjong_page(r: Any) -> str:
    """The 台 calculator: tiles picked by tapping, answered by /api/rules/mahjong/score."""
    ids = [f"twmj16:patterns.{n}" for n in range(1, 37)] + ["twmj16:patterns.30.1", "twmj16:patterns.30.2",
                                                          "twmj16:counting", "twmj16:deal-in", "twmj16:streak-marker"]
    ids += [m for text in SILENT for m in re.findall(r"twmj16:[a-z0-9.\-]+", text)]   # linked where they are named
    hrefs = _hrefs(r, MAHJONG, ids)
    situations = "".join(f'<button type="button" class="kb-kind kb-sit" data-sit="{w}" aria-pressed="false">'
                         f"{r.t(SITUATION_NAMES.get(w, w))}</button>" for w in SITUATIONS)
    tiles = "".join(f'<button type="button" class="kb-tile" data-code="{_Z.get(t, t)}">{r.t(tile_name(t))}</button>'
                    for t in TILES)
    flowers = "".join(f'<button type="button" class="kb-tile kb-flower" data-code="{r.t(tile_name(f))}">'
                      f"{r.t(tile_name(f))}</button>" for f in FLOWERS)
    # data-kind: the meld's word in the scorer's notation (data-word: as the edition writes it, 槓 in Traditional)
    kinds = "".join(f'<button type="button" class="kb-kind" data-kind="{k}" data-word="{r.t(k)}">{r.t(label)}</button>'
                    for k, label in (("", "暗牌"), ("吃", "吃"), ("碰", "碰"), ("杠", "明杠"), ("暗杠", "暗杠"),
                                     ("花", "花牌")))
    winds = "".join(f'<option value="{w}">{r.t(w)}</option>' for w in "东南西北")
    hows = "".join(f'<option value="{v}">{r.t(label)}</option>'
                   for v, label in (("自摸", "自摸"), ("下家", "下家放铳"), ("对家", "对家放铳"), ("上家", "上家放铳")))
    # not chosen (""): the settlement takes the dealer the line's 门风 implies, else 下家, and says so (assumed)
    dealers = f'<option value="">{r.t("未选")}</option>' + \
        "".join(f'<option value="{v}">{r.t(v)}</option>' for v in ("下家", "对家", "上家", "本家"))
    msgs = {"total": r.t("合计"), "excluded": r.t("不另计"), "form": r.t("牌型"), "error": r.t("无法计台"),
            "pay": r.t("结算（每家付给胡牌者）"), "silent": r.t("条文未定之处"),
            "count": r.t("已有 {n}/17 张（杠按 3 张计，不含花牌）"), "concealed": r.t("暗牌"),
            "flowers": r.t("花牌"), "winning": r.t("胡"), "over": r.t("{t}已有 {n} 张（每种牌只有 4 张）"),
            "basis": r.t("依据"), "empty": r.t("点选上方的牌张，手牌就显示在这里"),
            "more": r.t("多了 {n} 张"), "short": r.t("还差 {n} 张"), "used": r.t("所算的手牌与情形"), "dealer": r.t("庄家"), "seat": r.t("胡牌者门风"),
            "round": r.t("圈风"), "streak": r.t("连庄"),
            "none": r.t("无"), "pays": r.t("付"), "seePay": r.t("各家所付见下方结算")}
    melds = {k: r.t(v) for k, v in (("chi", "吃"), ("pon", "碰"), ("kan", "明杠"), ("ankan", "暗杠"))}
    # the winner's 门风 follows from who deals (settlement.WINNER_SEAT): shown, not chosen
    seats = {d: r.t(f"{WIND_NAMES[n - 1]}（开门序第 {n} 家）") for d, n in WINNER_SEAT.items()}
    n = WINNER_SEAT[ASSUMED_DEALER]
    seats[""] = r.t(f"{WIND_NAMES[n - 1]}（未选庄家：按{ASSUMED_DEALER}为庄）")
    return f"""# {r.t('麻将计台器')}

{r.t('点选牌张组成一手胡牌（暗牌含胡牌那张，最后点的一张即为胡牌），需要时先点“吃、碰、明杠、暗杠、花牌”再点牌；选定胡法与庄家，即得台数与每家付给胡牌者的底与台。也可以直接输入一行写法，如')} `123m456p789s5566z6z 碰111s`（{r.t('数字+m 万、p 筒、s 索、z 字：1z–7z 为东南西北白发中')}）。

<link rel="stylesheet" href="../../assets/rules.css">
<div id="kb-mj" class="kb-calc" markdown="0" data-api="/api/rules/mahjong/settle?script={r.script}" data-hrefs="{_attr(hrefs)}"
     data-msgs="{_attr(msgs)}" data-melds="{_attr(melds)}" data-engine="{_attr(engine_data(r.script))}"
     data-wordings="{_attr(wordings(r.script))}">
<div class="kb-flags">
<label>{r.t('胡法')} <select data-pay="how">{hows}</select></label>
<label>{r.t('庄家')} <select data-pay="dealer">{dealers}</select></label>
<label>{r.t('连庄')} <input type="number" min="0" max="99" value="0" data-flag="连"></label>
<span class="kb-seat-label">{r.t('门风')} <output class="kb-seat" data-seats="{_attr(seats)}"></output></span>
<label>{r.t('圈风')} <select data-flag="圈风">{winds}</select></label>
</div>
<details class="kb-situations"><summary>{r.t('特殊情形')}：<span class="kb-sit-shown">{r.t('无')}</span></summary>
<div class="kb-kinds" role="group">{situations}</div></details>
<div class="kb-kinds" role="group">{kinds}</div>
<div class="kb-tiles" role="group">{tiles}</div>
<div class="kb-tiles kb-flowers" role="group">{flowers}</div>
<label class="kb-line-label" for="kb-mj-line">{r.t('手牌（一行写法）')}</label>
<input id="kb-mj-line" class="kb-line" type="text" autocomplete="off" maxlength="400" inputmode="text">
<div class="kb-tray">
<p class="kb-hand-view" aria-live="polite"></p>
<div class="kb-actions">
<button type="button" class="md-button" data-act="back">{r.t('退一张')}</button>
<button type="button" class="md-button" data-act="clear">{r.t('清除')}</button>
<button type="button" class="md-button md-button--primary" data-act="go">{r.t('计台')}</button>
</div>
</div>
<div class="kb-out" role="status" aria-live="polite"></div>
</div>
<script src="../../assets/mahjong.js"></script>
<script src="../../assets/calculator.js"></script>
"""


def bridge_page(r: Any) -> str:
    """The ruling helper: pick a question, edit its JSON, answered by /api/rules/bridge/{command}.

    Each question's worked examples (run at build time) are on the page with their answers, so a
    static host or a phone offline, which have no API, still answers them."""
    from kb.rules.bridge.examples import check_examples
    from kb.rules.bridge.registry import BY_NAME
    if "bridge_examples" not in r.layout.memo:
        r.layout.memo["bridge_examples"] = check_examples()
    worked: dict[str, list[dict[str, Any]]] = {ru.command: [] for ru in RULINGS}
    for ex in r.layout.memo["bridge_examples"]:
        ruling = BY_NAME[ex["function"]]
        worked[ruling.command].append(      # the explanation as the API's ?script=hant gives it
            {"title": r.t(ex["title"]), "input": ex["input"],
             # the situation in words, as the law pages state it, above the ruling it leads to
             "situation": r.t(ruling.situation(ex["input"])),
             "explanation": r.rule_text(ex["result"]["explanation"]),
             "clauses": ex["result"]["clauses"]})
    # the form that asks for each field of a question, and the guide to its JSON: the ruling's declaration
    # (kb/rules/bridge/declare.py), each field's words in the edition's script
    forms = {ru.command: [_translated(r, f) for f in ru.form([ex["input"] for ex in r.layout.memo["bridge_examples"]
                                                              if ex["function"] == ru.name])] for ru in RULINGS}
    ids = sorted({c for ru in RULINGS for c in ru.clauses}
                 | {c for exs in worked.values() for ex in exs for c in ex["clauses"]})
    hrefs = _hrefs(r, BRIDGE, ids)
    options = question_options(r)
    msgs = {"offline": r.t("本站是静态网页（或现在离线），没有裁定服务：下面每个情形的裁定都已预先按规则算好，"
                           "点一个即可查看。"),
            "unknown": r.t("这一输入不是下面的情形之一，而现在连不上裁定服务，无法计算。请点下面最接近的情形。"),
            "error": r.t("无法裁定"), "basis": r.t("依据"), "situation": r.t("情形"), "worked": r.t("选一个最接近的情形（裁定已按规则算好）"),
            "unset": r.t("（未说明）"), "choose": r.t("（请选择）"), "yes": r.t("是"), "no": r.t("否"),
            "optional": r.t("可不填"), "addEvent": r.t("添加一件事"), "remove": r.t("删去这件事"),
            "seat": r.t("哪一家"), "action": r.t("做了什么"), "trick": r.t("第几墩")}
    return f"""# {r.t('桥牌裁定助手')}

{r.t('先选择问题。裁定用文字说明情况，并列出所据条款。')}

<link rel="stylesheet" href="../../assets/rules.css">
<div id="kb-br" class="kb-calc" markdown="0" data-api="/api/rules/bridge/" data-script="{r.script}" data-hrefs="{_attr(hrefs)}"
     data-msgs="{_attr(msgs)}" data-worked="{_attr(worked)}" data-form="{_attr(forms)}">
<label class="kb-line-label" for="kb-br-q">{r.t('问题')}</label>
<select id="kb-br-q" class="kb-select">{options}</select>
<div class="kb-br-input">
<p class="kb-used">{r.t('按实际情况填写下面各项，再按“裁定”；也可以先点下面最接近的情形，再修改。')}</p>
<div class="kb-br-form"></div>
<details class="kb-br-json"><summary>{r.t('高级：以 JSON 输入（供程序使用）')}</summary>
<label class="kb-line-label" for="kb-br-in">{r.t('输入（与上面各项同步）')}</label>
<textarea id="kb-br-in" class="kb-json" rows="6" spellcheck="false"></textarea>
<details class="kb-fields"><summary>{r.t('各字段的意思与写法（方括号内的可省略）')}</summary><dl></dl></details>
</details>
<div class="kb-actions"><button type="button" class="md-button md-button--primary" data-act="go">{r.t('裁定')}</button></div>
</div>
<div class="kb-out" role="status" aria-live="polite"></div>
<p class="kb-pay-head">{msgs["worked"]}</p>
<ul class="kb-worked"></ul>
</div>
<script src="../../assets/calculator.js"></script>
"""


def question_options(r: Any) -> str:
    """The helper's questions in the book's order of their leading clauses, under the book's own
    section headings (不足叫牌, 越序叫牌 … 声称和承认: the heading in force at that clause)."""
    lead = {ru.command: r.layout.by_id[ru.clauses[0]] for ru in RULINGS}
    section: dict[tuple[str, int], str] = {}
    for work in {rec.work for rec in lead.values()}:
        current = ""
        for law in r.layout.laws(work):
            if law.heading:
                current = re.sub(r"^第[一二三四五六七八九十]+[章节部分]+\s*", "", law.heading[-1])
            section[(work, law.law)] = current
    groups: dict[str, list[str]] = {}
    for ru in sorted(RULINGS, key=lambda ru: lead[ru.command].order):
        groups.setdefault(section[(lead[ru.command].work, lead[ru.command].law)], []).append(
            f'<option value="{ru.command}">{html.escape(r.t(ru.summary))}</option>')
    return "".join(f'<optgroup label="{html.escape(r.t(label))}">{"".join(opts)}</optgroup>'
                   for label, opts in groups.items())


def _translated(r: Any, field: dict[str, Any]) -> dict[str, Any]:
    """A form field with its words in the edition's script."""
    out = dict(field, label=r.t(field["label"]))
    for key in ("hint", "json"):
        if key in out:
            out[key] = r.t(out[key])
    for key in ("choices", "seats", "actions"):
        if key in out:
            out[key] = [[code, r.t(words)] for code, words in out[key]]
    return out


def write_pages(write: Callable[[str, str], None], r: Any) -> dict[str, list[Any]]:
    """Write the three pages of one edition; return their nav entry."""
    write(INDEX, catalogue_page(r))
    write(MAHJONG, mahjong_page(r))
    write(BRIDGE, bridge_page(r))
    return {r.t("规则计算"): [{r.t("规则计算与裁定目录"): INDEX}, {r.t("麻将计台器"): MAHJONG}, {r.t("桥牌裁定助手"): BRIDGE}]}
