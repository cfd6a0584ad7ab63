"""A hand history exported from a table that gives the odd chips all to the first winner from
the button's left (`OddChips.ALL_TO_FIRST_FROM_BUTTON_LEFT`) replays in pokerkit to the
table's own stacks, even when a three-way split leaves two odd chips; under the default rule
(one each) pokerkit's replay ends elsewhere by those chips."""

from __future__ import annotations

import pytest
from pokerkit import HandHistory

from services.games.poker import TEXAS_HOLDEM, OddChips, TableConfig
from services.games.poker import events as ev
from services.table.games.poker_history import to_phh
from tests.unit.games.poker.support import Scenario


def three_way_split(odd_chips: OddChips) -> tuple[list[object], TableConfig]:
    config = TableConfig(game=TEXAS_HOLDEM, seats=4, odd_chips=odd_chips)
    hole = {0: "2c 3d", 1: "4c 5d", 2: "2d 3c", 3: "2h 3h"}
    s = Scenario(config, [100] * 4, hole=hole, boards=["As Ks Qs", "Js", "Ts"]).start()
    s.act(3, "call"), s.act(0, "call"), s.act(1, "call"), s.act(2, "raise", 6)
    s.act(3, "call"), s.act(0, "call"), s.act(1, "fold")
    for _ in range(3):
        for seat in (2, 3, 0):
            s.act(seat, "check")
    s.show_all()
    start = next(i for i, e in enumerate(s.log) if isinstance(e, ev.HandStarted))
    return list(s.log[start:]), config


def replayed_and_recorded(odd_chips: OddChips) -> tuple[list[int], list[int]]:
    events, config = three_way_split(odd_chips)
    phh = to_phh(config, {}, events, "t1")
    *_, state = HandHistory.loads(phh)
    recorded = next(line for line in phh.splitlines() if line.startswith("finishing_stacks"))
    return list(state.stacks), [int(x) for x in recorded.split("[")[1].rstrip("]").split(",")]


def test_with_all_to_first_the_exported_hand_replays_to_the_tables_stacks() -> None:
    replayed, recorded = replayed_and_recorded(OddChips.ALL_TO_FIRST_FROM_BUTTON_LEFT)
    # pokerkit's order starts left of the button: seats 1 (folded), 2, 3, then the button 0
    assert recorded == [98, 102, 100, 100]
    assert replayed == recorded


@pytest.mark.filterwarnings("ignore")
def test_with_one_each_the_two_odd_chips_land_elsewhere_in_pokerkit() -> None:
    replayed, recorded = replayed_and_recorded(OddChips.ONE_EACH_FROM_BUTTON_LEFT)
    assert recorded == [98, 101, 101, 100]
    assert replayed == [98, 102, 100, 100]
