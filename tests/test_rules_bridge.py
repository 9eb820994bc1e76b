"""Bridge rules as code (cbr1999 Laws 44, 46, 50–51, 61–64), case by case against the clause text."""
from __future__ import annotations

import inspect
import io
import json
import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.core.errors import KbError
from kb.rules.bridge.cards import RANKS, SEATS, SUITS
from kb.rules.bridge.cli import main
from kb.rules.bridge.dummy import designate
from kb.rules.bridge.examples import EXAMPLES_PATH, check_examples
from kb.rules.bridge.penalty import penalty_card_kind, penalty_card_obligations
from kb.rules.bridge.play import legal_cards, trick_winner
from kb.rules.bridge.registry import BY_COMMAND, CLAUSES, FUNCTIONS, call
from kb.rules.bridge.revoke import is_revoke, revoke_adjustment, revoke_established


def cl(*ids: str) -> list[str]:
    return [f"cbr1999:{i}" for i in ids]


# ---------------------------------------------------------------- notation

@pytest.mark.parametrize("card", ["10H", "TH", "th", "10♥", "♥10", "T♡"])
def test_card_spellings(card):
    assert legal_cards([card, "AS"], "H").cards == ("TH",)


# ---------------------------------------------------------------- Law 44

def test_44A_leader_may_lead_any_card():
    # 44A「引牌者可从其手中引出任何牌张」
    r = legal_cards(["2C", "AS", "7H", "KH"])
    assert r.cards == ("AS", "KH", "7H", "2C")
    assert r.clauses == tuple(cl("44A")) and not r.must_follow


def test_44C_must_follow_suit():
    # 44C「各赛员能够跟牌时，必须跟牌。对所有规则条款而言，跟牌的义务最为优先」
    r = legal_cards(["AS", "KH", "7H", "2C"], "H")
    assert r.cards == ("KH", "7H") and r.must_follow
    assert "cbr1999:44C" in r.clauses and "必须跟红心" in r.explanation


def test_44D_void_may_play_any_card():
    # 44D「如果不能跟牌时，赛员可打出任何牌张」
    r = legal_cards(["AS", "2C"], "H")
    assert r.cards == ("AS", "2C") and r.clauses == tuple(cl("44D"))


def test_44E_highest_trump_wins():
    # 44E「一墩牌中，如含有将牌，则由打出最大将牌者赢得此墩」
    r = trick_winner("W", ["AC", "3S", "KC", "9S"], "S")
    assert (r.winner, r.winning_card, r.trumped) == ("S", "9S", True)
    assert "cbr1999:44E" in r.clauses


def test_44E_low_trump_beats_ace_of_led_suit():
    # 44E「如含有将牌，则由打出最大将牌者赢得此墩」
    r = trick_winner("N", ["5S", "KS", "2H", "AS"], "H")
    assert r.winner == "S" and r.winning_card == "2H"


def test_44F_highest_of_suit_led_without_trump():
    # 44F「如不含将牌，则由打出引牌花色中最大牌者赢得此墩」
    r = trick_winner("W", ["QD", "AD", "3S", "KD"], "NT")
    assert (r.winner, r.winning_card, r.trumped) == ("N", "AD", False)
    assert "cbr1999:44F" in r.clauses


def test_44F_discarded_ace_does_not_win():
    # 44F「由打出引牌花色中最大牌者赢得此墩」— a discard of another suit never wins
    r = trick_winner("E", ["JC", "AH", "QC", "2C"], "S")
    assert r.winner == "W"


def test_44F_trump_suit_in_nt_is_no_trump():
    # 44F: in no trumps every trick is won in the suit led
    assert trick_winner("N", ["2D", "AS", "AH", "AC"], None).winner == "N"


def test_44G_winner_leads_next():
    # 44G「由赢墩者对下一墩进行引牌」
    r = trick_winner("E", ["JC", "AH", "QC", "2C"], "S")
    assert r.next_leader == r.winner == "W"
    assert r.clauses[-1] == "cbr1999:44G" and "由西家引下一墩" in r.explanation


@given(st.permutations([r + s for s in SUITS for r in RANKS]), st.sampled_from(SEATS),
       st.sampled_from(["S", "H", "D", "C", "NT"]), st.randoms(use_true_random=False))
@settings(max_examples=150, deadline=None)
def test_property_random_legal_trick(deck, leader, trump, rnd):
    # 44B「引牌后，其余各赛员依次打一张牌，4张打出的牌即构成一墩」; 44C/44D legal plays
    hands = [deck[i * 13:(i + 1) * 13] for i in range(4)]
    trick = [rnd.choice(hands[0])]
    for hand in hands[1:]:
        trick.append(rnd.choice(legal_cards(hand, trick[0][-1]).cards))
    r = trick_winner(leader, trick, trump)
    assert r.winner in SEATS and r.next_leader == r.winner
    assert r.winning_card in trick
    winner_card = trick[SEATS.index(r.winner) - SEATS.index(leader)]
    assert winner_card == r.winning_card


# ---------------------------------------------------------------- Law 46

DUMMY = ["AS", "QS", "5S", "KH"]


def test_46B1_high_is_highest_of_suit():
    # 46B1「说“大”……应认为其所指的是该门花色中最大的牌张」
    r = designate("大", DUMMY, current_trick_cards=["4S"])
    assert r.card == "AS" and r.rule == "46B1"


def test_46B1_high_fourth_hand_is_lowest_winner():
    # 46B1「如果明手为第4家打牌，则可认为其所指的是该花色中赢取该墩的最小牌张」
    r = designate("大", DUMMY, dummy_plays_fourth=True, current_trick_cards=["4S", "JS", "2S"])
    assert r.card == "QS"
    assert r.clauses == tuple(cl("46B", "46B1"))


def test_46B1_high_fourth_hand_no_winner_falls_back_to_highest():
    # 46B1「该门花色中最大的牌张」— when no card of the suit can win (the trick is ruffed)
    r = designate("高", DUMMY, current_trick_cards=["4S", "AH", "2S"], trump="H")
    assert r.card == "AS"


def test_46B1_high_fourth_hand_counts_trumps():
    # 46B1 fourth hand, suit named: 「红心大」 when void in the led suit and hearts are trumps
    r = designate("红心大", ["KH", "3H", "2D"], current_trick_cards=["4C", "TH", "2C"], trump="H")
    assert r.card == "KH"
    r = designate("大红心", ["KH", "QH", "2D"], current_trick_cards=["4C", "JH", "2C"],
                  trump="H")
    assert r.card == "QH"


def test_46B1_low_is_lowest():
    # 46B1「如果庄家说“小”……该门花色中最小的牌张」
    assert designate("小", DUMMY, led_suit="S").card == "5S"
    assert designate("打小的", DUMMY, led_suit="S").card == "5S"
    assert designate("low", DUMMY, led_suit="S").card == "5S"


def test_46B1_high_when_leading_without_suit_is_incomplete():
    # 46A「应清楚地说出所要打出牌张的花色及牌点」— "大" on lead names no suit
    r = designate("大", DUMMY)
    assert r.card is None and r.declarer_must_designate and "cbr1999:46A" in r.clauses


@pytest.mark.parametrize("call", ["梅花", "草花", "C", "♣", "打梅花"])
def test_46B2_suit_only_is_lowest(call):
    # 46B2「如果庄家指定了花色，但未指定牌点，则应认为其所指的是该门花色中最小的牌张」
    r = designate(call, ["AS", "KC", "8C", "4C"])
    assert r.card == "4C" and r.rule == "46B2" and r.legal is True


def test_46B2_suit_only_but_must_follow_is_flagged():
    # 46B2 gives the card; 44C「跟牌的义务最为优先」makes it illegal here
    r = designate("黑桃", ["AS", "5S", "KH"], led_suit="H")
    assert r.card == "5S" and r.legal is False and "cbr1999:44C" in r.clauses


def test_46B3a_rank_on_lead_uses_previous_winning_suit():
    # 46B3(a)「如果明手在上一墩赢牌的花色中有指定的牌点，则认为其所指定的是该花色」
    r = designate("Q", ["QS", "QH", "3H", "QD"], previous_trick_winning_suit="H")
    assert r.card == "QH" and r.rule == "46B3a"


def test_46B3a_not_held_in_that_suit_goes_to_46B3b():
    # 46B3(b)「但如有两张或更多的符合条件又可合法打出的牌张，则庄家必须指定要打哪一牌张」
    r = designate("Q", ["QS", "3H", "QD"], previous_trick_winning_suit="H")
    assert r.card is None and r.declarer_must_designate and r.rule == "46B3b"
    assert r.candidates == ("QS", "QD")


def test_46B3b_only_legal_card_of_rank():
    # 46B3(b)「明手如仅有一张牌符合条件又可合法打出的牌张，则必须打出该张牌」
    r = designate("Q", ["QS", "QH", "3H", "QD"], led_suit="H")
    assert r.card == "QH" and r.rule == "46B3b"


def test_46B3b_two_legal_cards_declarer_designates():
    # 46B3(b)「如有两张或更多的符合条件又可合法打出的牌张，则庄家必须指定要打哪一牌张」
    r = designate("10", ["TS", "TH", "3H"], led_suit="C")
    assert r.card is None and r.declarer_must_designate and r.candidates == ("TS", "TH")


def test_46B3b_rank_held_only_illegally_is_void():
    # 46B3(b)「可合法打出」+ 46B4 — dummy's only Q cannot follow suit
    r = designate("Q", ["QS", "3H"], led_suit="H")
    assert r.void and r.card is None and r.candidates == ("3H",)


def test_46B4_card_not_in_dummy():
    # 46B4「如果明手无庄家所指定的牌张，则指定无效，庄家可重新指定打任何合法牌张」
    r = designate("黑桃J", DUMMY, led_suit="S")
    assert r.void and r.rule == "46B4" and r.candidates == ("AS", "QS", "5S")
    r = designate("小", ["AS", "KH"], led_suit="C")
    assert r.void and r.candidates == ("AS", "KH")


def test_46A_full_designation():
    # 46A「应清楚地说出所要打出牌张的花色及牌点」
    for said in ("黑桃Q", "QS", "SQ", "♠Q", "打黑桃Q"):
        r = designate(said, DUMMY, led_suit="S")
        assert r.card == "QS" and r.rule == "46A" and r.legal


@pytest.mark.parametrize("call", ["随便", "随便打", "隨便", "任意"])
def test_46B5_any_card_defender_designates(call):
    # 46B5「未指定花色及牌点（例如说“随便”……），则任一防家可指定明手的打牌」
    r = designate(call, DUMMY, led_suit="H")
    assert r.designated_by == "defender" and r.card is None and r.candidates == ("KH",)
    assert r.clauses == tuple(cl("46B", "46B5"))


# ---------------------------------------------------------------- Law 50

def test_50B_small_inadvertent_is_minor():
    # 50B「因疏忽而暴露的一张9或9以下的牌张……即成为轻罚张」
    assert penalty_card_kind("9H", True).kind == "minor"
    assert penalty_card_kind("2C", True, 1).clauses == tuple(cl("50B"))


def test_50B_honour_is_major():
    # 50B「暴露的任何大牌……即成为重罚张」
    assert penalty_card_kind("TH", True).kind == "major"
    assert penalty_card_kind("AS", True).kind == "major"


def test_50B_deliberate_is_major():
    # 50B「审慎地打出的任何牌张（例如越序引牌，或改正藏牌等），即成为重罚张」
    assert penalty_card_kind("3D", False).kind == "major"


def test_50B_two_or_more_all_major():
    # 50B「一防家如有两张或更多的罚张时，所有罚张均成为重罚张」
    assert penalty_card_kind("3D", True, 2).kind == "major"


def test_50C_minor_bars_small_cards_of_suit():
    # 50C「在他打出该罚张前，不得打出这个花色中9或9以下的任何小牌（但他有权打出任何大牌）」
    r = penalty_card_obligations(["7H"], "offender", inadvertent=True, hand=["KH", "5H", "2H", "AS"],
                                 led_suit="H")
    assert r.kind == "minor" and r.legal_cards == ("KH", "7H") and r.barred == ("5H", "2H")
    assert "cbr1999:50C" in r.clauses


def test_50C_minor_when_leading():
    # 50C — the same bar applies to a lead; other suits are free
    r = penalty_card_obligations(["7H"], "offender", kind="minor", hand=["KH", "5H", "AS"])
    assert r.legal_cards == ("AS", "KH", "7H") and r.must_play == ()


def test_50C_minor_does_not_restrict_partner():
    # 50C「违规者的同伴不受引牌判罚的限制」
    r = penalty_card_obligations(["7H"], "partner_lead", inadvertent=True, hand=["AH", "QC"])
    assert r.legal_cards == ("AH", "QC") and not r.must_wait_for_declarer
    assert "非法信息" in r.explanation


def test_50D1_major_first_legal_opportunity():
    # 50D1「重罚张必须于第一次合法机会打出，不论是引牌、跟牌、垫牌还是将吃」
    r = penalty_card_obligations(["KH"], "offender", kind="major", hand=["3H", "AS"], led_suit="D")
    assert r.must_play == ("KH",) and r.legal_cards == ("KH",)
    r = penalty_card_obligations(["KH"], "offender", kind="major", hand=["3H", "AS"])
    assert r.must_play == ("KH",)
    r = penalty_card_obligations(["KH"], "offender", kind="major", hand=["3H", "AS"], led_suit="H")
    assert r.must_play == ("KH",)


def test_50D1_following_suit_takes_precedence():
    # 50D1「跟牌……都比打出重罚张更为优先，但此罚张仍须暴露在桌上，并于下一次合法机会打出」
    r = penalty_card_obligations(["KH"], "offender", kind="major", hand=["3H", "AS", "4S"], led_suit="S")
    assert r.must_play == () and r.legal_cards == ("AS", "4S") and r.remaining == ("KH",)
    assert "cbr1999:44C" in r.clauses


def test_50D2_partner_waits_for_declarer():
    # 50D2「如果其同伴有一重罚张，在庄家尚未对下述罚则作出选择前，不得引牌」
    r = penalty_card_obligations(["KH"], "partner_lead", kind="major")
    assert r.must_wait_for_declarer and r.declarer_options == ("require", "forbid", "none")


def test_50D2a_require_suit_withdraws_card():
    # 50D2(a)「庄家可要求该防家引出罚张花色……如庄家做了此项选择，该牌张不再成为罚张，应收回」
    r = penalty_card_obligations(["KH"], "partner_lead", kind="major", hand=["AH", "QC"], declarer_option="require")
    assert r.lead_required == "H" and r.legal_cards == ("AH",) and r.withdrawn == ("KH",) and r.remaining == ()


def test_50D2a_forbid_lasts_while_partner_retains_lead():
    # 50D2(a)「或者禁止其引出罚张花色，在其保持引牌权时此禁止一直有效」
    r = penalty_card_obligations(["KH"], "partner_lead", kind="major", hand=["AH", "5H", "QC"],
                                 declarer_option="forbid")
    assert r.lead_forbidden == ("H",) and r.legal_cards == ("QC",) and r.withdrawn == ("KH",)
    assert "保持引牌权时此禁止一直有效" in r.explanation


def test_50D2a_required_suit_void_law_59():
    # 50D2(a) footnote「如果该赛员不能执行该要求，参阅第59条」; 59「可打出其他任何合法牌张」
    r = penalty_card_obligations(["KH"], "partner_lead", kind="major", hand=["AS", "QC"], declarer_option="require")
    assert r.legal_cards == ("AS", "QC") and "cbr1999:59" in r.clauses


def test_50D2b_no_restriction_card_stays():
    # 50D2(b)「该防家可引出任何牌张；罚张仍然保持为罚张」
    r = penalty_card_obligations(["KH"], "partner_lead", kind="major", hand=["AH", "QC"], declarer_option="none")
    assert r.legal_cards == ("AH", "QC") and r.remaining == ("KH",) and r.withdrawn == ()


# ---------------------------------------------------------------- Law 51

def test_51A_declarer_designates_among_penalty_cards():
    # 51A「如果某防家有两张或更多的罚张可以合法打出，庄家可指定打出哪一张」
    r = penalty_card_obligations(["KH", "3H"], "offender", hand=["9H", "AS"], led_suit="H")
    assert r.kind == "major" and r.must_play == ("KH", "3H") and r.declarer_designates
    assert "cbr1999:51A" in r.clauses


def test_51A_only_one_penalty_card_legal():
    # 50D1 + 44C: of ♥K and ♠3, only the spade can follow a spade lead
    r = penalty_card_obligations(["KH", "3S"], "offender", hand=["9S", "AD"], led_suit="S")
    assert r.must_play == ("3S",) and not r.declarer_designates


def test_51B1a_require_same_suit():
    # 51B1(a)「该花色的牌张均不再成为罚张，应收回；该防家对该墩牌可打出任何合法牌张」
    r = penalty_card_obligations(["KH", "3H"], "partner_lead", hand=["AH", "5C"], declarer_option="require")
    assert r.lead_required == "H" and r.withdrawn == ("KH", "3H") and r.remaining == ()
    assert "cbr1999:51B1a" in r.clauses


def test_51B1b_forbid_same_suit():
    # 51B1(b)「如果庄家禁止引出罚张花色，该防家可收回该花色全部罚张」
    r = penalty_card_obligations(["KH", "3H"], "partner_lead", hand=["AH", "5C"], declarer_option="forbid")
    assert r.lead_forbidden == ("H",) and r.withdrawn == ("KH", "3H") and r.legal_cards == ("5C",)
    assert "cbr1999:51B1b" in r.clauses


def test_51B2a_require_one_of_several_suits():
    # 51B2(a)「庄家可要求该防家的同伴引出任一有罚张的花色（但应用本条B款1（a））」
    r = penalty_card_obligations(["KH", "4S"], "partner_lead", hand=["AS", "5C"], declarer_option="require",
                                 suits=["S"])
    assert r.lead_required == "S" and r.withdrawn == ("4S",) and r.remaining == ("KH",)
    assert {"cbr1999:51B2a", "cbr1999:51B1a"} <= set(r.clauses)


def test_51B2b_forbid_several_suits():
    # 51B2(b)「庄家可禁止……引出某一种或几种有罚张的花色；而该防家可以收回庄家所禁引每种花色中的所有罚张」
    r = penalty_card_obligations(["KH", "4S", "2D"], "partner_lead", hand=["AH", "TD", "5C"],
                                 declarer_option="forbid", suits=["D", "H"])
    assert r.lead_forbidden == ("H", "D") and r.withdrawn == ("KH", "2D") and r.remaining == ("4S",)
    assert r.legal_cards == ("5C",)


# ---------------------------------------------------------------- Laws 61–63

def test_61A_revoke_definition():
    # 61A「未按第44条的规定跟牌……均构成藏牌」
    assert is_revoke(["AS", "7S", "2H"], "H", "AS").revoke
    assert not is_revoke(["AS", "7S"], "H", "AS").revoke          # void: 44D
    assert not is_revoke(["AS", "2H"], "H", "2H").revoke          # followed
    assert not is_revoke(["AS", "2H"], None, "AS").revoke         # a lead: 44A


def test_62A_not_established_must_be_corrected():
    # 62A「藏牌未成立前，如果有赛员发现自己藏牌，则必须立即改正」
    r = revoke_established(3, "N", [{"seat": "E", "action": "lead", "trick": 4}])
    assert not r.established and r.must_correct and "cbr1999:62A" in r.clauses


def test_62B1_defender_card_becomes_penalty_card():
    # 62B1「该牌张如是从防家未暴露的手中打出的，成为罚张」
    r = revoke_established(4, "W", [{"seat": "N", "action": "play", "trick": 4}], declarer="S")
    assert r.offender_role == "defender" and "cbr1999:62B1" in r.clauses and "成为罚张" in r.explanation


def test_62B2_declarer_card_replaced_without_penalty():
    # 62B2「该牌张如是从庄家手中或明手打出……均可更换，不判罚」
    r = revoke_established(4, "S", [], declarer="S")
    assert r.offender_role == "declarer" and "cbr1999:62B2" in r.clauses


def test_62D1_twelfth_trick_corrected_even_if_established():
    # 62D1「在第十二墩，藏牌即使已经成立，但在四手牌均收回牌套前发现，必须改正」
    r = revoke_established(12, "E", [{"seat": "W", "action": "lead", "trick": 13}])
    assert r.established and r.must_correct and not r.penalty_applies
    assert "cbr1999:62D1" in r.clauses and "cbr1999:62D2" in r.clauses


def test_62D1_after_hands_returned_not_corrected():
    # 62D1「在四手牌均收回牌套前发现」— afterwards 63C applies
    r = revoke_established(12, "E", [{"seat": "W", "action": "lead", "trick": 13}], hands_returned=True)
    assert r.established and not r.must_correct and "cbr1999:63C" in r.clauses


def test_63A1_offending_side_plays_to_next_trick():
    # 63A1「当违规者或其同伴引出或打出了下一墩的牌张时（不论是否合法，藏牌成立）」
    events = [{"seat": "S", "action": "play", "trick": 5}, {"seat": "W", "action": "play", "trick": 5},
              {"seat": "N", "action": "lead", "trick": 6}, {"seat": "E", "action": "play", "trick": 6}]
    r = revoke_established(5, "E", events)
    assert r.established and r.established_by == 3 and "cbr1999:63A1" in r.clauses
    assert not r.must_correct and "cbr1999:63C" in r.clauses


def test_63A1_partner_play_to_revoke_trick_does_not_establish():
    # 63A1「下一墩的牌张」— a play to the revoke trick itself does not count
    r = revoke_established(5, "E", [{"seat": "W", "action": "play", "trick": 5}])
    assert not r.established


def test_63A1_dummy_play_establishes_declarer_revoke():
    # 63A1「违规者或其同伴」— dummy is declarer's partner
    r = revoke_established(7, "S", [{"seat": "N", "action": "lead", "trick": 8}], declarer="S")
    assert r.established


def test_63A2_naming_a_card():
    # 63A2「当违规者或其同伴说出或指明了下一墩要引出或打出的牌张时」
    r = revoke_established(7, "S", [{"seat": "N", "action": "name", "trick": 8}], declarer="S")
    assert r.established and "cbr1999:63A2" in r.clauses


@pytest.mark.parametrize("action", ["claim", "concede", "acquiesce"])
def test_63A3_claim_or_concession(action):
    # 63A3「用口说或摊牌的方式……作出了或默认了他对所能赢得的牌墩数的声称或承认时」
    r = revoke_established(9, "W", [{"seat": "E", "action": action}])
    assert r.established and "cbr1999:63A3" in r.clauses


def test_63A3_claim_by_non_offending_side():
    # 63A3「违规方任一成员」— the other side's claim does not establish
    assert not revoke_established(9, "W", [{"seat": "N", "action": "claim"}]).established


def test_63B_illegal_inquiry():
    # 63B「当违反了第61条B款时，藏牌者必须替换为合法牌张，并按藏牌成立应用第64条处罚」
    r = revoke_established(6, "E", [], illegal_inquiry=True)
    assert r.established and r.must_correct and r.penalty_applies
    assert set(cl("61B", "63B")) <= set(r.clauses)


# ---------------------------------------------------------------- Law 64

def adj(**kw):
    base = {"revoke_trick": 5, "revoke_trick_winner": "E", "offender": "E", "later_tricks_won": []}
    return revoke_adjustment(**{**base, **kw})


def test_64A1_revoke_trick_plus_one_later():
    # 64A1「将藏牌墩及违规方在藏牌以后的任一赢墩一并转给非违规方」
    r = adj(later_tricks_won=[7, 9, 11])
    assert r.tricks_transferred == 2 and r.rule == "64A1" and r.transferred_to == "NS"
    assert r.clauses == tuple(cl("64A1", "64C"))


def test_64A1_no_later_trick_one_transferred():
    # 64A1「藏牌墩及……任一赢墩」— with no later trick only the revoke trick moves
    assert adj().tricks_transferred == 1


def test_64A1_legal_card_flag_adds_nothing():
    # 64A1 has no additional trick; the extra trick is 64A2's only
    assert adj(later_tricks_won=[7, 9], offender_won_later_with_legal_card=True).tricks_transferred == 2


def test_64A2_partner_won_revoke_trick():
    # 64A2「违规者未赢得藏牌墩时，如果违规方赢得藏牌墩或任何藏牌以后的牌墩……将一墩牌转给非违规方」
    r = adj(revoke_trick_winner="W", later_tricks_won=[8, 10])
    assert r.tricks_transferred == 1 and r.rule == "64A2"


def test_64A2_later_trick_only():
    # 64A2「或任何藏牌以后的牌墩」
    assert adj(revoke_trick_winner="N", later_tricks_won=[8]).tricks_transferred == 1


def test_64A2_additional_trick_with_legal_card():
    # 64A2「若违规者用其在藏牌时可合法打出的一个牌张，在藏牌以后赢墩时，该墩也须转给非违规方」
    r = adj(revoke_trick_winner="S", later_tricks_won=[8, 11], offender_won_later_with_legal_card=True)
    assert r.tricks_transferred == 2 and r.rule == "64A2"


def test_64A2_never_more_than_tricks_won():
    # 64A2: the transferred tricks are tricks won by the offending side — one won, one moved
    r = adj(revoke_trick_winner="S", later_tricks_won=[8], offender_won_later_with_legal_card=True)
    assert r.tricks_transferred == 1 and r.cap == 1


def test_64B1_no_tricks_won():
    # 64B1「如果违规方既未赢得藏牌墩，亦未赢得藏牌以后的牌墩」
    r = adj(revoke_trick_winner="S")
    assert r.tricks_transferred == 0 and r.rule == "64B1"


def test_64B2_second_revoke_same_suit():
    # 64B2「同一赛员在同一花色中所发生的第二次藏牌」
    r = adj(later_tricks_won=[6], second_revoke_same_suit=True)
    assert r.tricks_transferred == 0 and r.exceptions == ("64B2",)


def test_64B3_faced_card_and_dummy():
    # 64B3「如果藏牌是未打出暴露在桌面上的任何牌张，或属于攤牌一家手中的牌张所造成的，包括明手的牌张」
    assert adj(later_tricks_won=[6], faced_card=True).rule == "64B3"
    r = adj(revoke_trick_winner="N", offender="N", declarer="S", later_tricks_won=[6])
    assert r.tricks_transferred == 0 and r.rule == "64B3"


def test_64B4_after_next_deal_call():
    # 64B4「如果非违规方的任一赛员对下一副牌叫牌后，才指出的藏牌」
    assert adj(later_tricks_won=[6], after_next_deal_call=True).rule == "64B4"


def test_64B5_after_round_end():
    # 64B5「在一轮结束后，才指出的藏牌」
    assert adj(later_tricks_won=[6], after_round_end=True).rule == "64B5"


def test_64B6_twelfth_trick():
    # 64B6「在第十二墩的藏牌」
    r = adj(revoke_trick=12, later_tricks_won=[13])
    assert r.tricks_transferred == 0 and r.rule == "64B6"


def test_64C_always_cited():
    # 64C「包括所有不受判罚的藏牌，裁判如果认为……判罚不足以补偿非违规方所遭受的损害时，则应判给调整分」
    for r in (adj(), adj(revoke_trick_winner="S"), adj(revoke_trick=12)):
        assert "cbr1999:64C" in r.clauses and "调整分" in r.explanation


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("func, args, field", [
    (legal_cards, (["1S"],), "hand[0]"),
    (legal_cards, (["ZZ", "AS"],), "hand[0]"),
    (legal_cards, (["AS", "as"],), "hand[1]"),
    (legal_cards, ("AS KS",), "hand"),
    (legal_cards, (["AS"], "X"), "led_suit"),
    (trick_winner, ("X", ["2S", "3S", "4S", "5S"]), "leader"),
    (trick_winner, ("N", ["2S", "3S", "4S", "5S", "6S"]), "cards_in_order"),
    (trick_winner, ("N", ["2S", "3S", "4S"]), "cards_in_order"),
    (trick_winner, ("N", ["2S", "3S", "4S", "2S"]), "cards_in_order[3]"),
    (trick_winner, ("N", ["2S", "3S", "4S", "5S"], "Z"), "trump"),
    (penalty_card_kind, ("7H", "yes"), "inadvertent"),
    (penalty_card_kind, ("7H", True, 0), "count_of_penalty_cards"),
    (penalty_card_obligations, (["7H"], "offender"), "inadvertent"),
    (penalty_card_obligations, (["7H"], "someone", True), "turn"),
    (penalty_card_obligations, (["KH"], "offender", None, "minor", []), "kind"),
    (penalty_card_obligations, (["KH", "3H"], "offender", None, "minor", []), "kind"),
    (penalty_card_obligations, (["7H"], "offender", False, "minor", []), "kind"),
    (penalty_card_obligations, (["KH"], "offender", True), "hand"),
    (penalty_card_obligations, (["KH"], "offender", True, None, ["KH"]), "hand"),
    (penalty_card_obligations, (["KH", "4S"], "partner_lead", None, None, None, None, "forbid"), "suits"),
    (penalty_card_obligations, (["KH", "4S"], "partner_lead", None, None, None, None, "require", ["H", "S"]),
     "suits"),
    (penalty_card_obligations, (["KH"], "partner_lead", None, "major", None, None, "require", ["D"]),
     "suits[0]"),
    (penalty_card_obligations, (["KH"], "partner_lead", None, "major", None, None, "maybe"), "declarer_option"),
    (revoke_established, ("5", "E", []), "revoke_trick"),
    (revoke_established, (13, "E", []), "revoke_trick"),
    (revoke_established, (5, "Q", []), "offender"),
    (revoke_established, (5, "E", {}), "events"),
    (revoke_established, (5, "E", [{"seat": "W", "action": "jump", "trick": 6}]), "events[0].action"),
    (revoke_established, (5, "E", [{"seat": "W", "action": "play"}]), "events[0].trick"),
    (revoke_established, (5, "E", [{"seat": "W", "action": "lead", "trick": 5}]), "events[0].trick"),
    (revoke_established, (5, "E", [{"seat": "W", "action": "play", "trick": 4}]), "events[0].trick"),
    (revoke_adjustment, (5, "E", "E", [5]), "later_tricks_won[0]"),
    (revoke_adjustment, (5, "E", "E", [7, 7]), "later_tricks_won"),
    (revoke_adjustment, (5, "E", "E", "7"), "later_tricks_won"),
    (revoke_adjustment, (5, "S", "E", [], True), "offender_won_later_with_legal_card"),
    (revoke_adjustment, (5, "E", "E", [], False, 1), "second_revoke_same_suit"),
    (designate, ("大", ["AS", "AS"]), "dummy_cards[1]"),
    (designate, ("大", ["AS", "KS"], None, True, ["2S"]), "current_trick_cards"),
    (designate, ("大", ["AS", "KS"], None, False, ["2S", "3S", "4S"]), "dummy_plays_fourth"),
    (designate, ("大", ["AS", "KS"], None, None, ["2S", "3S", "4S", "5S"]), "current_trick_cards"),
    (designate, ("大", ["AS", "KS"], None, None, ["AS", "3S"]), "current_trick_cards"),
    (designate, ("大", ["AS", "KS"], "H", None, ["2S"]), "led_suit"),
    (designate, ("飞一下", ["AS"]), "call"),
    (designate, (7, ["AS"]), "call"),
    (is_revoke, (["AS"], "H", "KS"), "card"),
    (is_revoke, (["AS", "KH"], "H", "AS", ["QD"]), "required_cards[0]"),
    (is_revoke, (["AS", "KH"], None, "AS", None, "Z"), "required_suit"),
])
def test_bad_input_names_the_field(func, args, field):
    with pytest.raises(KbError) as info:
        func(*args)
    message = str(info.value)
    assert message.startswith(field + ":") and "\n" not in message


# ---------------------------------------------------------------- examples

def test_shipped_examples_pass_and_cover_the_laws():
    done = check_examples()
    laws = Counter(int(re.match(r"\d+", e["clause"].split(":")[1]).group()) for e in done)
    for law in (44, 46, 50, 51, 63, 64):
        assert laws[law] >= 3, law
    assert laws[61] >= 1 and laws[62] >= 1
    for e in done:
        assert e["result"]["clauses"] and e["result"]["explanation"]
        assert set(e["result"]["clauses"]) <= set(CLAUSES[e["function"]]), e["title"]


def _write(tmp_path, examples):
    path = tmp_path / "examples.json"
    path.write_text(json.dumps(examples, ensure_ascii=False), encoding="utf-8")
    return path


def test_wrong_example_fails_the_build(tmp_path):
    examples = json.loads(EXAMPLES_PATH.read_text(encoding="utf-8"))
    victim = next(e for e in examples if e["function"] == "revoke_adjustment")
    victim["expect"]["tricks_transferred"] = 7
    with pytest.raises(KbError, match=f"「{victim['title']}」.*tricks_transferred"):
        check_examples(_write(tmp_path, examples))


@pytest.mark.parametrize("mutate, match", [
    (lambda e: e.update(function="nope"), "function"),
    (lambda e: e.update(clause="64A1"), "clause"),
    (lambda e: e.update(clause="cbr1999:45A"), "clause"),
    (lambda e: e["expect"].update(no_such_field=1), "no_such_field"),
    (lambda e: e["input"].update(bogus=1), "bogus"),
    (lambda e: e["input"].update(offender="X"), "offender"),
    (lambda e: e.pop("expect"), "expect"),
])
def test_malformed_example_fails(tmp_path, mutate, match):
    ex = {"title": "测试", "clause": "cbr1999:64A1", "function": "revoke_adjustment",
          "input": {"revoke_trick": 5, "revoke_trick_winner": "E", "offender": "E", "later_tricks_won": [7]},
          "expect": {"tricks_transferred": 2}}
    check_examples(_write(tmp_path, [dict(ex)]))
    mutate(ex)
    with pytest.raises(KbError, match=match):
        check_examples(_write(tmp_path, [ex]))


_ATOMS = st.sampled_from([None, True, 0, 5, 13, -1, 2.5, "", "N", "X", "H", "NT", "AS", "7H", "大", "Q",
                          "offender", "partner_lead", "forbid", "major", "play", {}])
_VALUES = st.one_of(_ATOMS, st.lists(_ATOMS, max_size=5),
                    st.lists(st.dictionaries(st.sampled_from(["seat", "action", "trick"]), _ATOMS), max_size=3))


@given(st.sampled_from(sorted(FUNCTIONS)), st.data())
@settings(max_examples=300, deadline=None)
def test_property_garbage_input_raises_only_kberror(name, data):
    # bad input of any shape is a one-line KbError, never another exception
    params = inspect.signature(FUNCTIONS[name]).parameters
    args = {p: data.draw(_VALUES) for p in params if data.draw(st.booleans()) or
            params[p].default is inspect.Parameter.empty}
    try:
        json.dumps(call(name, args).to_dict())
    except KbError as exc:
        assert "\n" not in str(exc)


def test_every_cited_clause_is_in_the_outline():
    # the ids must resolve to records of the work (outline: kb/data/outline/cbr1999.tsv)
    from pathlib import Path
    outline = Path(__file__).parents[1] / "kb" / "data" / "outline" / "cbr1999.tsv"
    known = {line.split("\t")[0] for line in outline.read_text(encoding="utf-8").splitlines()
             if line and not line.startswith(("#", "="))}
    cited = {c.split(":")[1] for ids in CLAUSES.values() for c in ids}
    assert cited <= known, sorted(cited - known)


def test_every_function_registered():
    assert set(FUNCTIONS) == set(CLAUSES)


# ---------------------------------------------------------------- command line

def _run(capsys, monkeypatch, argv, data):
    monkeypatch.setattr("sys.stdin", io.StringIO(data if isinstance(data, str) else json.dumps(data)))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_text_output(capsys, monkeypatch):
    code, out, err = _run(capsys, monkeypatch, ["trick-winner", "-"],
                          {"leader": "N", "cards_in_order": ["5S", "KS", "2H", "AS"], "trump": "H"})
    assert code == 0 and "南家赢得此墩" in out and "cbr1999:44E" in out and not err


def test_cli_json_output_and_bridge_prefix(capsys, monkeypatch, tmp_path):
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"revoke_trick": 5, "revoke_trick_winner": "E", "offender": "E",
                                "later_tricks_won": [7]}), encoding="utf-8")
    code, out, _ = _run(capsys, monkeypatch, ["bridge", "revoke-adjustment", str(path), "--json"], "")
    assert code == 0 and json.loads(out)["tricks_transferred"] == 2


@pytest.mark.parametrize("argv, data", [
    (["penalty-card-kind", "-"], {"card": "7H", "inadvertent": True}),
    (["penalty-card-obligations", "-"], {"penalty_cards": ["KH"], "turn": "partner_lead", "kind": "major"}),
    (["designate", "-"], {"call": "随便", "dummy_cards": ["AS"]}),
    (["revoke-established", "-"], {"revoke_trick": 5, "offender": "E", "events": []}),
    (["is-revoke", "-"], {"hand": ["AS", "2H"], "led_suit": "H", "card": "AS"}),
    (["legal-cards", "-"], {"hand": ["AS", "2H"], "led_suit": "H"}),
    (["insufficient-bid", "-"], {"bid": "1H", "previous_bid": "1S"}),
    (["call-out-of-rotation", "-"], {"offender": "S", "turn": "N", "call": "1NT"}),
    (["lead-out-of-turn", "-"], {"leader": "E", "correct_leader": "W", "declarer": "S", "card": "KH"}),
    (["premature-play", "-"], {"offender": "W", "card": "9S", "led_suit": "H"}),
    (["simultaneous-play", "-"], {"kind": "two_players"}),
    (["defective-trick", "-"], {"trick": 3, "fault": "omitted", "discovered_after_next_trick": False,
                                "led_suit": "H", "hand": ["2H"]}),
])
def test_cli_each_subcommand(capsys, monkeypatch, argv, data):
    code, out, err = _run(capsys, monkeypatch, argv + ["--json"], data)
    assert code == 0 and json.loads(out)["clauses"] and not err


@pytest.mark.parametrize("argv, data, field", [
    (["trick-winner", "-"], "{not json", "stdin"),
    (["trick-winner", "-"], "[1, 2]", "stdin"),
    (["trick-winner", "-"], {"leader": "N", "cards_in_order": ["5S", "KS", "2H", "AS", "3C"]}, "cards_in_order"),
    (["trick-winner", "-"], {"leader": "N"}, "input.cards_in_order"),
    (["trick-winner", "-"], {"cards_in_order": ["5S", "KS", "2H", "AS"]}, "input.leader"),
    (["designate", "-"], {"call": "大", "dummy_cards": ["AS"], "bogus": 1}, "input.bogus"),
    (["penalty-card-kind", "-"], {"card": "7H", "inadvertent": "no"}, "inadvertent"),
    (["trick-winner", "/nonexistent/x.json"], "", "/nonexistent/x.json"),
    (["trick-winner", "-"], "[" * 100000, "stdin"),
    (["trick-winner", "-"], '{"leader": ' + "9" * 5000 + "}", "stdin"),
    (["revoke-established", "-"], {"revoke_trick": 12, "offender": "E", "events": [
        {"seat": "W", "action": "lead", "trick": 13}, {"seat": "N", "action": "lead", "trick": 13}]}, "events[1]"),
])
def test_cli_bad_input_exit_2(capsys, monkeypatch, argv, data, field):
    code, out, err = _run(capsys, monkeypatch, argv, data)
    assert code == 2 and not out
    assert field in err and "Traceback" not in err and err.count("\n") == 1


def test_cli_unknown_subcommand(capsys, monkeypatch):
    code, _, err = _run(capsys, monkeypatch, ["shuffle", "-"], "{}")
    assert code == 2 and "Traceback" not in err


@pytest.mark.parametrize("argv, data, field", [
    (["trick", "-"], {"leader": "N", "cards_in_order": ["5S", "KS", "2H", "AS"], "trump": "H"}, "winner"),
    (["trick", "-"], {"hand": ["AS", "2H"], "led_suit": "H"}, "must_follow"),
    (["revoke", "-"], {"hand": ["AS", "2H"], "led_suit": "H", "card": "AS"}, "revoke"),
    (["revoke", "-"], {"revoke_trick": 12, "offender": "E", "events": [], "illegal_inquiry": True}, "penalty_applies"),
    (["penalty-card", "-"], {"card": "7H", "inadvertent": True}, "kind"),
])
def test_cli_former_subcommands_still_run(capsys, monkeypatch, argv, data, field):
    code, out, err = _run(capsys, monkeypatch, argv + ["--json"], data)
    assert code == 0 and field in json.loads(out) and not err


def test_cli_former_subcommand_without_a_known_key(capsys, monkeypatch):
    code, out, err = _run(capsys, monkeypatch, ["revoke", "-"], {"leader": "N"})
    assert code == 2 and "revoke-established" in err and err.count("\n") == 1


# ---------------------------------------------------------------- seats in words; the help (issue #37 item 11)

@pytest.mark.parametrize("leader, winner", [("北", "南家"), ("东", "西家"), ("東", "西家"), ("東家", "西家"), ("e", "西家"),
                                            ("南家", "北家"), ("西", "东家")])
def test_cli_seats_in_words(capsys, monkeypatch, leader, winner):
    code, out, err = _run(capsys, monkeypatch, ["trick-winner", "-"],
                          {"leader": leader, "cards_in_order": ["5S", "KS", "2H", "AS"], "trump": "H"})
    assert code == 0 and f"{winner}赢得此墩" in out and not err


@pytest.mark.parametrize("seat", ["中", "北北", "家", "NE", ""])
def test_cli_a_seat_not_known_names_the_words_it_takes(capsys, monkeypatch, seat):
    code, out, err = _run(capsys, monkeypatch, ["trick-winner", "-"],
                          {"leader": seat, "cards_in_order": ["5S", "KS", "2H", "AS"]})
    assert code == 2 and not out and "leader" in err and "北、东、南、西" in err and err.count("\n") == 1


@pytest.mark.parametrize("command", list(BY_COMMAND))
def test_cli_command_help_lists_each_field_with_its_values(capsys, command):
    """kb bridge COMMAND --help: each field of the ruling's declaration, with every code it takes."""
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out.splitlines()
    ruling = BY_COMMAND[command]
    for f in ruling.inputs:
        at = next((i for i, x in enumerate(out) if x.strip().startswith(f"{f.name}：")), None)
        assert at is not None, (command, f.name, out)
        listed = f.choices()
        for code, _words in (listed if listed is not None and f.kind != "events" else []):
            assert (code or "null") in out[at + 1], (command, f.name, out[at + 1])


def test_cli_unknown_command_lists_the_commands_of_the_help(capsys, monkeypatch):
    assert main(["--help"]) == 0
    helped = capsys.readouterr().out
    code, out, err = _run(capsys, monkeypatch, ["foo", "-"], "{}")
    assert code == 2 and not out and err.count("\n") == 1 and "「foo」" in err
    listed = err.split("可用的子命令：")[1].split("（")[0].split("、")
    assert listed == list(BY_COMMAND) and all(f"  {c} " in helped for c in listed)
    assert not {"trick", "revoke", "penalty-card"} & set(listed)
