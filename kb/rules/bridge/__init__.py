"""Rules as code for 中国桥牌竞赛规则 (1999) (``cbr1999``): Laws 27–32, 44, 46, 50–51, 53–58, 61–64, 67.

Every ruling returns a result whose ``clauses`` lists the record ids it rests on and whose
``explanation`` states the situation and the ruling in Chinese; bad input raises KbError naming
the field. Each ruling is declared once, beside its function (its ``kb bridge`` command, clauses,
input fields and prose: :mod:`kb.rules.bridge.declare`), and :mod:`kb.rules.bridge.registry` lists
them; this package re-exports them for callers of the former module.
"""
from kb.rules.bridge.auction import call_out_of_rotation, insufficient_bid
from kb.rules.bridge.defective import defective_trick
from kb.rules.bridge.dummy import designate
from kb.rules.bridge.examples import EXAMPLES_PATH, check_examples
from kb.rules.bridge.lead import lead_out_of_turn
from kb.rules.bridge.penalty import penalty_card_kind, penalty_card_obligations
from kb.rules.bridge.play import legal_cards, trick_winner
from kb.rules.bridge.play_irregular import premature_play, simultaneous_play
from kb.rules.bridge.registry import CLAUSES, FUNCTIONS, RULINGS, call
from kb.rules.bridge.revoke import is_revoke, revoke_adjustment, revoke_established

__all__ = [
    "legal_cards", "trick_winner", "is_revoke", "revoke_established", "revoke_adjustment", "penalty_card_kind",
    "penalty_card_obligations", "designate", "insufficient_bid", "call_out_of_rotation", "lead_out_of_turn",
    "premature_play", "simultaneous_play", "defective_trick", "check_examples", "call", "FUNCTIONS",
    "CLAUSES", "RULINGS", "EXAMPLES_PATH",
]
