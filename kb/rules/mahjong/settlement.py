"""Who pays whom for a win (twmj16): each payer pays 1 底 plus 台, the dealer's 台 only between dealer and others.

What the text settles, and where it is silent, is stated in every result (``silent``):

- A self-drawn win: the three others pay (patterns.29 八仙过海「三家赔付」, 30.2「视同自摸，三家赔付」).
- A win on a discard: the discarder pays alone (30.1「视同被抢花者放铳」with 30.2「被抢花者赔付」; the
  放铳 clause itself does not say who pays).
- Each payment is 1 底 + 台 (「计八仙过海8台1底」, 包赔/诈胡「依底注加牌面台数」); the text gives no
  money value for 1 底 or 1 台.
- 作庄 1台 and 连N拉N 2N台 run between the dealer and each counterpart only: 作庄「胡放皆加计」,
  连N拉N「庄家连N闲家一律拉N」; false-win.1 settles 庄连拉 with the dealer alone (「另与庄家单独计赔」).
- The winner's seat (门风, 开门序) follows from who deals: the dealer is 东 (开门序 1), his 下家 南.
  When who deals is not given, it follows from the winner's 门风 if that is given, else 下家 is
  assumed; either way the answer says so first (``assumed``), since 作庄 and 连庄 follow the dealer.
- 连庄示记: a shown count lower than the real one → the dealer collects at the shown count and pays at
  the real one; higher → the reverse (streak-marker). So the dealer collects min and pays max.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kb.core.errors import KbError
from kb.rules.mahjong.hand import MAX_STREAK, WORK
from kb.rules.mahjong.scoring import score

OTHERS = ("下家", "对家", "上家")
SEATS = ("本家",) + OTHERS
# The dealer is 开门序 1 (东); play runs to each one's 下家. So the winner's seat (开门序, 门风)
# follows from who deals: the dealer's 下家 is 2 (南), and the winner is the dealer's 下家 when
# the dealer is the winner's 上家.
WINNER_SEAT = {"本家": 1, "上家": 2, "对家": 3, "下家": 4}
WIND_NAMES = "东南西北"
DEALER_ITEMS = (9, 10)
ASSUMED_DEALER = "下家"          # who deals when neither the dealer nor the winner's 门风 is given


def cid(local: str) -> str:
    return f"{WORK}:{local}"


SETTLEMENT_CLAUSES = (cid("patterns.9"), cid("patterns.10"), cid("patterns.29"), cid("patterns.30.1"),
                      cid("patterns.30.2"), cid("deal-in"), cid("streak-marker"))

SILENT = (
    "条文以「底注加台数」计付，未规定一底与一台的金额（由比赛规程定）。",
    "放铳条只定义放铳，未明言由放铳者独付；本库据七抢一「视同被抢花者放铳」与「被抢花者赔付」推定放铳者独付。",
    "插花（内插、外插）之注另计，不在此内（twmj16:side-bets）。",
)


@dataclass(frozen=True)
class Payment:
    payer: str
    di: int
    tai: int
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"payer": self.payer, "to": "本家", "di": self.di, "tai": self.tai, "detail": self.detail}


def _seat(value: Any, field: str, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise KbError(f"{field}: 应为 {'、'.join(choices)} 之一，收到 {value!r}")
    return value


def _dealer(dealer: Any, hand: dict[str, Any]) -> tuple[str, str]:
    """Who deals, and the assumption made when ``dealer`` is not given (None): the dealer that the
    hand's 门风 (seat) implies, else 下家 (ASSUMED_DEALER); the assumption is "" when it is given."""
    if dealer is not None:
        return _seat(dealer, "dealer", SEATS), ""
    seat = hand.get("seat")
    by_seat = {n: d for d, n in WINNER_SEAT.items()}
    if type(seat) is int and seat in by_seat:
        deal = by_seat[seat]
        return deal, f"未给出庄家：由本家门风{WIND_NAMES[seat - 1]}推得{deal}为庄家。"
    return ASSUMED_DEALER, (f"未给出庄家：按{ASSUMED_DEALER}为庄家计（本家门风{WIND_NAMES[WINNER_SEAT[ASSUMED_DEALER] - 1]}）；"
                            "庄家若是别家，作庄与连庄的台数改由庄家收付。")


def settle(hand: Any, dealer: Any = None, discarder: Any = None, streak_shown: Any = None) -> dict[str, Any]:
    """Payments to the winner (本家). ``hand`` is a scored hand (JSON, as ``kb mahjong score``) without
    ``dealer``/``from_dealer``, which follow from ``dealer`` (本家/下家/对家/上家: who deals; when it
    is not given, the dealer the hand's 门风 implies, else 下家, and the answer says so: ``assumed``);
    ``discarder`` (下家/对家/上家) for a win on a discard, absent for a self-drawn win;
    ``streak_shown``: the 连庄示记 count shown, if it differs from ``dealer_streak``."""
    if not isinstance(hand, dict):
        raise KbError("hand: 应为手牌 JSON 对象")
    for key in ("dealer", "from_dealer"):
        if key in hand:
            raise KbError(f"hand.{key}: 结算时由 dealer 字段决定，请勿在手牌中给出")
    deal, assumed = _dealer(dealer, hand)
    self_drawn = hand.get("self_drawn") is True
    flower = hand.get("flower_win")
    rob = hand.get("rob_case", 1)
    if flower == "八仙过海":
        if discarder is not None:
            raise KbError("discarder: 八仙过海三家赔付（patterns.29），没有放铳者")
        self_drawn = True
    if discarder is None and not self_drawn and flower != "七抢一":
        raise KbError("discarder: 非自摸须给出放铳者（下家、对家或上家）")
    if discarder is not None and self_drawn and flower != "七抢一":
        raise KbError("discarder: 自摸时没有放铳者")
    payer_one = None if discarder is None else _seat(discarder, "discarder", OTHERS)
    if flower == "七抢一" and payer_one is None:
        raise KbError("discarder: 七抢一须给出被抢花者（下家、对家或上家）")
    streak = hand.get("dealer_streak", 0)
    shown = streak if streak_shown is None else streak_shown
    if isinstance(shown, bool) or not isinstance(shown, int) or not 0 <= shown <= MAX_STREAK:
        raise KbError(f"streak_shown: 应为 0–{MAX_STREAK} 的整数，收到 {shown!r}")
    seat = WINNER_SEAT[deal]
    if "seat" in hand and hand["seat"] != seat:
        given = hand["seat"]
        shown = f"{WIND_NAMES[given - 1]}（开门序 {given}）" if type(given) is int and 1 <= given <= 4 else repr(given)
        raise KbError(f"hand.seat: {deal}为庄家时，本家门风为{WIND_NAMES[seat - 1]}（开门序 {seat}），"
                      f"手牌却写{shown}")
    base_hand = {**hand, "dealer": deal == "本家", "seat": seat}
    result = score(base_hand)
    plain = sum(i["tai"] for i in result["items"] if not _dealer_item(i))
    clauses: list[str] = []          # 作庄 and 连庄 (patterns 9, 10) are added below where a payment counts them
    if flower == "七抢一":
        clauses.append(cid(f"patterns.30.{rob}"))
    elif flower == "八仙过海":
        clauses.append(cid("patterns.29"))
    if self_drawn and not (flower == "七抢一" and rob == 1):
        payers = list(OTHERS)
        how = "八仙过海，三家赔付" if flower == "八仙过海" else "自摸，三家各付"
    else:
        assert payer_one is not None
        payers = [payer_one]
        how = f"{payer_one}放铳，独付" if flower != "七抢一" else f"被抢花者{payer_one}赔付"
    split_flower = flower == "七抢一" and rob == 2 and self_drawn   # 30.2: 杠上开花 → 三家付牌面, 8台被抢花者单独付
    flower_tai = 8 if split_flower else 0
    payments = []
    for p in payers:
        dealer_side = deal == "本家" or deal == p
        n = min(streak, shown) if deal == "本家" else max(streak, shown)
        extra = (1 + 2 * n) if dealer_side else 0
        tai = plain - flower_tai + extra
        parts = [f"牌面 {plain - flower_tai} 台"]
        if dealer_side:
            parts.append("作庄 1 台" + (f" + 连{n}拉{n} {2 * n} 台" if n else ""))
        if split_flower and p == payer_one:
            tai += flower_tai
            parts.append(f"七抢一花牌 {flower_tai} 台（被抢花者单独计）")
        payments.append(Payment(p, 1, tai, " + ".join(parts)))
    dealer_paid = [p for p in payers if deal == "本家" or deal == p]
    n_paid = (min(streak, shown) if deal == "本家" else max(streak, shown)) if dealer_paid else 0
    clauses[:0] = ([cid("patterns.9")] if dealer_paid else []) + ([cid("patterns.10")] if n_paid else [])
    lines = "；".join(f"{x.payer}付 1 底 {x.tai} 台（{x.detail}）" for x in payments)
    who = "本家为庄家" if deal == "本家" else f"{deal}为庄家"
    text = assumed + f"{who}，{how}：{lines}。"
    if streak != shown:
        text += f"连庄示记 {shown} 与实际 {streak} 不符：庄家收以低者、付以高者（连庄示记）。"
        clauses.append(cid("streak-marker"))
    if payer_one is not None and flower != "七抢一":
        clauses.append(cid("deal-in"))
    return {"payments": [x.to_json() for x in payments], "total_tai": result["total"],
            "plain_tai": plain, "clauses": clauses, "explanation": text, "silent": list(SILENT),
            "assumed": [assumed] if assumed else [], "score": result}


def _dealer_item(item: dict[str, Any]) -> bool:
    return item["clause"] in (cid("patterns.9"), cid("patterns.10"))
