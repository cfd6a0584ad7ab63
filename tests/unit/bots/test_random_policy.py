"""`random`: any legal action, sensible amounts, never a free fold."""

from __future__ import annotations

import random

from services.bots.policies import random_policy
from services.bots.view import Kind, Variant

from .views import checked_to, drawing, facing_bet, open_discarding


def test_random_never_folds_when_checking_is_free() -> None:
    rng = random.Random(1)
    view = checked_to(["7c", "2d"])
    kinds = {random_policy.choose(view, rng).kind for _ in range(300)}
    assert Kind.FOLD not in kinds
    assert kinds == {Kind.CHECK, Kind.BET}


def test_random_bets_stay_inside_the_legal_range() -> None:
    rng = random.Random(2)
    view = facing_bet(["Ah", "Kd"], to_call=20, pot=50)
    raises = [random_policy.choose(view, rng) for _ in range(300)]
    amounts = {a.amount for a in raises if a.kind is Kind.RAISE}
    assert amounts and all(40 <= amount <= 1000 for amount in amounts)
    assert len(amounts) > 2


def test_random_discards_respect_the_limit_and_never_the_forbidden_card() -> None:
    rng = random.Random(3)
    view = drawing(
        ["As", "Kd", "7c", "7h"], ["9s"], variant=Variant.SPIT, max_cards=2, forbidden=["9s"]
    )
    for _ in range(200):
        action = random_policy.choose(view, rng)
        assert action.kind is Kind.DISCARD
        assert len(action.cards) <= 2
        assert set(action.cards) <= set(view.hole)


def test_random_open_discard_exposes_one_of_its_own_cards() -> None:
    rng = random.Random(4)
    view = open_discarding(["As", "Kd", "Qc", "Jh", "9s", "2d"])
    action = random_policy.choose(view, rng)
    assert action.kind is Kind.OPEN_DISCARD and len(action.cards) == 1
    assert action.cards[0] in view.hole


def test_same_seed_same_choice() -> None:
    view = facing_bet(["Ah", "Kd"])
    assert random_policy.choose(view, random.Random(9)) == random_policy.choose(
        view, random.Random(9)
    )
