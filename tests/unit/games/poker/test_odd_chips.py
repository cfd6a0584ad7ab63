"""The chips a split pot leaves over, under each `OddChips` rule: one each to the winners from
the button's left (the default), or all to the first of them (pokerkit's rule). Each case is a
three-way tie that leaves two odd chips: in a main pot, in a side pot and in a high-low half."""

from __future__ import annotations

import pytest

from services.games.poker import HOLDEM_HILO, TEXAS_HOLDEM, OddChips, Structure, TableConfig
from services.games.poker.events import PotAwarded, Share
from tests.unit.games.poker.support import Scenario

ONE_EACH = OddChips.ONE_EACH_FROM_BUTTON_LEFT
ALL_TO_FIRST = OddChips.ALL_TO_FIRST_FROM_BUTTON_LEFT
ROYAL_BOARD = ["As Ks Qs", "Js", "Ts"]  # every hand still in plays the board: all tie


def awards(s: Scenario) -> list[PotAwarded]:
    return [e for e in s.log if isinstance(e, PotAwarded)]


def test_the_default_is_one_each_from_the_buttons_left() -> None:
    assert TableConfig(game=TEXAS_HOLDEM).odd_chips is ONE_EACH


@pytest.mark.parametrize(
    ("odd_chips", "shares"),
    [
        (ONE_EACH, (Share(2, 7), Share(3, 7), Share(0, 6))),
        (ALL_TO_FIRST, (Share(2, 8), Share(3, 6), Share(0, 6))),
    ],
)
def test_a_three_way_split_of_the_main_pot(odd_chips: OddChips, shares: tuple[Share]) -> None:
    config = TableConfig(game=TEXAS_HOLDEM, seats=4, odd_chips=odd_chips)
    hole = {0: "2c 3d", 1: "4c 5d", 2: "2d 3c", 3: "2h 3h"}
    s = Scenario(config, [100] * 4, hole=hole, boards=ROYAL_BOARD).start()
    # button 0, blinds 1 and 2: three players put in 6 each, the small blind folds its 2
    s.act(3, "call"), s.act(0, "call"), s.act(1, "call"), s.act(2, "raise", 6)
    s.act(3, "call"), s.act(0, "call"), s.act(1, "fold")
    for _ in range(3):
        for seat in (2, 3, 0):
            s.act(seat, "check")
    s.show_all()
    (pot,) = awards(s)
    assert pot.amount == 20  # 6 x 3 + 2 dead: 6 each and two chips over
    assert pot.shares == shares


@pytest.mark.parametrize(
    ("odd_chips", "side_shares"),
    [
        (ONE_EACH, (Share(2, 8), Share(4, 8), Share(0, 7))),
        (ALL_TO_FIRST, (Share(2, 9), Share(4, 7), Share(0, 7))),
    ],
)
def test_a_three_way_split_of_a_side_pot(odd_chips: OddChips, side_shares: tuple[Share]) -> None:
    config = TableConfig(game=TEXAS_HOLDEM, seats=5, odd_chips=odd_chips)
    hole = {0: "2c 3d", 1: "4c 5d", 2: "2d 3c", 3: "2h 3h", 4: "4h 5h"}
    s = Scenario(config, [100, 100, 100, 5, 100], hole=hole, boards=ROYAL_BOARD).start()
    # seat 3 is all in for 5 preflop and everyone calls: a main pot of 25 for four seats
    s.act(3, "all-in"), s.act(4, "call"), s.act(0, "call"), s.act(1, "call"), s.act(2, "call")
    # on the flop the small blind bets 2 and folds to a raise: a side pot of 7 x 3 + 2
    s.act(1, "bet", 2), s.act(2, "call"), s.act(4, "raise", 7), s.act(0, "call")
    s.act(1, "fold"), s.act(2, "call")
    for _ in range(2):
        for seat in (2, 4, 0):
            s.act(seat, "check")
    s.show_all()
    main, side = awards(s)
    assert (main.amount, main.eligible) == (25, (0, 2, 3, 4))
    # 25 among four leaves one chip over: to seat 2, first from the button's left, either way
    assert main.shares == (Share(2, 7), Share(3, 6), Share(4, 6), Share(0, 6))
    assert (side.amount, side.eligible) == (23, (0, 2, 4))
    assert side.shares == side_shares


@pytest.mark.parametrize(
    ("odd_chips", "high", "low"),
    [
        (ONE_EACH, (3, 3, 2), (3, 3, 2)),
        (ALL_TO_FIRST, (4, 2, 2), (4, 2, 2)),
    ],
)
def test_a_three_way_split_of_each_high_low_half(
    odd_chips: OddChips, high: tuple[int, int, int], low: tuple[int, int, int]
) -> None:
    config = TableConfig(
        game=HOLDEM_HILO, structure=Structure.NO_LIMIT, seats=4, odd_chips=odd_chips
    )
    hole = {0: "4h 5h", 1: "Kh Kd", 2: "4d 5d", 3: "4c 5c"}
    s = Scenario(config, [100] * 4, hole=hole, boards=["Ah 2d 3c", "Ks", "Qs"]).start()
    # three players put in 5 each and the small blind folds its 1: 16, two halves of 8
    s.act(3, "raise", 5), s.act(0, "call"), s.act(1, "fold"), s.act(2, "call")
    for _ in range(3):
        for seat in (2, 3, 0):
            s.act(seat, "check")
    s.show_all()
    (pot,) = awards(s)
    assert pot.amount == 16
    # every hand is the wheel: a five-high straight for the high half, A-2-3-4-5 for the low
    order = (2, 3, 0)
    highs = tuple(Share(seat, n, "high") for seat, n in zip(order, high, strict=True))
    lows = tuple(Share(seat, n, "low") for seat, n in zip(order, low, strict=True))
    assert pot.shares == highs + lows
