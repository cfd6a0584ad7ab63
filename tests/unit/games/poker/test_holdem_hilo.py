"""Hold'em high-low split, eight-or-better, as rules."""

from __future__ import annotations

from services.games.poker import HOLDEM_HILO, Structure, TableConfig
from services.games.poker.events import PotAwarded, Share
from tests.unit.games.poker.support import Scenario

HILO = TableConfig(game=HOLDEM_HILO, structure=Structure.NO_LIMIT, seats=6, ante=1)
THREE = [100, 100, 100, None, None, None]


def play_to_showdown(s: Scenario, raise_to: int = 4) -> list[PotAwarded]:
    s.act(0, "raise", raise_to), s.act(1, "call"), s.act(2, "call")
    for _ in range(3):
        for seat in (1, 2, 0):
            s.act(seat, "check")
    s.show_all()
    return [e for e in s.log if isinstance(e, PotAwarded)]


def test_tied_lows_quarter_the_pot_and_the_high_half_takes_the_odd_chip() -> None:
    s = Scenario(
        HILO,
        THREE,
        hole={0: "Qs Js", 1: "4c 5c", 2: "4d 5h"},
        boards=["As 2s 3h", "9s", "Kd"],
    ).start()
    (pot,) = play_to_showdown(s)
    # antes 3 + 3 x 4 = 15: high half 8 (odd chip) to the flush, low half 7 split 4/3
    assert pot.amount == 15
    assert pot.shares == (Share(0, 8, "high"), Share(1, 4, "low"), Share(2, 3, "low"))


def test_without_a_qualifying_low_the_high_hand_takes_the_whole_pot() -> None:
    s = Scenario(
        HILO, THREE, hole={0: "Ac Ad", 1: "4c 5c", 2: "3d 6h"}, boards=["Ks Qs 9h", "9d", "2c"]
    ).start()
    (pot,) = play_to_showdown(s)
    assert pot.shares == (Share(0, 15, "all"),)


def test_one_hand_can_scoop_both_halves() -> None:
    s = Scenario(
        HILO, THREE, hole={0: "4s 5s", 1: "Kc Kd", 2: "Qd Jh"}, boards=["As 2s 3s", "9d", "Th"]
    ).start()
    (pot,) = play_to_showdown(s)
    assert pot.shares == (Share(0, 8, "high"), Share(0, 7, "low"))


def test_the_low_uses_any_five_of_the_seven_cards_and_pairs_do_not_count() -> None:
    s = Scenario(
        HILO, THREE, hole={0: "Ac Ad", 1: "8c 9c", 2: "7d 2h"}, boards=["As 2s 3h", "4d", "Kh"]
    ).start()
    (pot,) = play_to_showdown(s)
    # seat 1: 8-4-3-2-A; seat 2: 7-4-3-2-A (its 2h pairs the board's deuce: unused) wins
    lows = [share for share in pot.shares if share.half == "low"]
    assert lows == [Share(2, 7, "low")]
