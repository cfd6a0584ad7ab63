"""Golden hands: recorded hold'em hands replayed through the public API with a pinned deck.

Each hand is a PHH record (the format pokerkit reads). Its deals become the dealer's test-deck
order, its actions become Act calls by the players' own clients; the table must reach the
stacks pokerkit computes for the record, and the table's exported PHH must replay in pokerkit
to the same stacks.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from pokerkit import HandHistory

from croupier.table.v1 import table_pb2
from services.shared import auth
from tests.integration.table.conftest import Platform, act, create_table, seat, view_of

A = table_pb2

# Tom Dwan vs Phil Ivey, Full Tilt Million Dollar Cash Game S4E12 (2009), as recorded in
# pokerkit's own test suite; Antonius's unknown cards are given as 2h2d (he folds preflop).
DWAN_IVEY = dedent(
    """\
    variant = "NT"
    ante_trimming_status = true
    antes = [500, 500, 500]
    blinds_or_straddles = [1000, 2000, 0]
    min_bet = 2000
    starting_stacks = [1125600, 2000000, 553500]
    actions = [
      "d dh p1 Ac2d", "d dh p2 2h2s", "d dh p3 7h6h",
      "p3 cbr 7000", "p1 cbr 23000", "p2 f", "p3 cc",
      "d db Jc3d5c",
      "p1 cbr 35000", "p3 cc",
      "d db 4h",
      "p1 cbr 90000", "p3 cbr 232600", "p1 cbr 1067100", "p3 cc",
      "p1 sm Ac2d", "p3 sm 7h6h",
      "d db Jh",
    ]
    players = ["Phil Ivey", "Patrik Antonius", "Tom Dwan"]
    """
)

# A four-handed hand that goes to a showdown with a fold on every street.
FOUR_HANDED = dedent(
    """\
    variant = "NT"
    ante_trimming_status = true
    antes = [0, 0, 0, 0]
    blinds_or_straddles = [50, 100, 0, 0]
    min_bet = 100
    starting_stacks = [10000, 8000, 12000, 9000]
    actions = [
      "d dh p1 KsKd", "d dh p2 9c9h", "d dh p3 AhQh", "d dh p4 7c2d",
      "p3 cbr 300", "p4 f", "p1 cbr 1100", "p2 cc", "p3 cc",
      "d db Qs9d4c",
      "p1 cbr 1500", "p2 cbr 4500", "p3 f", "p1 cc",
      "d db 2s",
      "p1 cc", "p2 cc",
      "d db Td",
      "p1 cc", "p2 cbr 2000", "p1 f",
    ]
    players = ["Kim", "Lee", "Park", "Choi"]
    """
)


# Heads-up: the button (p2) posts the small blind and acts first before the flop; pokerkit
# writes the blinds as [small, big] and swaps them heads-up.
HEADS_UP = dedent(
    """\
    variant = "NT"
    ante_trimming_status = true
    antes = [0, 0]
    blinds_or_straddles = [1, 2]
    min_bet = 2
    starting_stacks = [300, 250]
    actions = [
      "d dh p1 AhKh", "d dh p2 QcQd",
      "p2 cbr 6", "p1 cbr 20", "p2 cc",
      "d db Kd7s2c",
      "p1 cbr 25", "p2 cc",
      "d db 9h",
      "p1 cc", "p2 cc",
      "d db 3d",
      "p1 cbr 60", "p2 f",
    ]
    players = ["Big", "Button"]
    """
)


def deck_for(actions: list[str], players: int) -> list[str]:
    """The dealing order that makes the table deal exactly the recorded cards: hole cards
    one at a time from p1 (left of the button), a burn card before each board deal."""
    holes = [a.split()[3] for a in actions if a.startswith("d dh")]
    order = [holes[p][2 * i : 2 * i + 2] for i in range(2) for p in range(players)]
    used = set(order)
    boards = [a.split()[2] for a in actions if a.startswith("d db")]
    spare = iter(c for c in _all_cards() if c not in used and all(c not in b for b in boards))
    for board in boards:
        order.append(next(spare))
        order += [board[i : i + 2] for i in range(0, len(board), 2)]
    return order


def _all_cards() -> list[str]:
    return [r + s for r in "23456789TJQKA" for s in "cdhs"]


def pokerkit_stacks(phh: str) -> list[int]:
    *_, state = HandHistory.loads(phh)
    return list(state.stacks)


@pytest.mark.parametrize(
    "record", [DWAN_IVEY, FOUR_HANDED, HEADS_UP], ids=["dwan-ivey", "four-handed", "heads-up"]
)
def test_recorded_hand_reaches_the_recorded_stacks_and_exports_phh_pokerkit_replays(
    platform: Platform, record: str
) -> None:
    history = HandHistory.loads(record)
    n = len(history.starting_stacks)
    antes = list(history.antes)
    assert history.blinds_or_straddles is not None  # every record here has its blinds
    blinds = sorted(b for b in history.blinds_or_straddles if b)
    expected = pokerkit_stacks(record)
    # pokerkit's p1..pn are the seats left of the button; put the button on seat 0.
    seat_of = {p: (p + 1) % n for p in range(n)}
    table_id = create_table(
        platform,
        seats=n,
        small_blind=blinds[0],
        big_blind=blinds[1],
        ante=antes[0],
        min_buy_in=1,
        first_button=0,
        min_players_to_start=n,
    )
    platform.decks[f"{table_id}.hand-1"] = deck_for(list(history.actions), n)
    admin = platform.table("house", auth.Role.ADMIN)
    stubs = {}
    for p in range(n):
        stubs[p] = seat(
            platform, table_id, f"player{p + 1}", seat_of[p], history.starting_stacks[p]
        )
    view = view_of(admin, table_id)
    assert view.hand_number == 1
    for action in history.actions:
        words = action.split()
        if words[0] == "d":
            continue
        p = int(words[0][1:]) - 1
        own = view_of(stubs[p], table_id)
        legal = {a.action for a in own.legal_actions}
        if words[1] == "sm":
            if legal and own.hand_number == 1:  # an all-in showdown shows by itself
                act(stubs[p], table_id, 1, A.ACTION_SHOW if len(words) > 2 else A.ACTION_MUCK)
            continue
        assert own.to_act == seat_of[p], (action, own)
        if words[1] == "f":
            act(stubs[p], table_id, 1, A.ACTION_FOLD)
        elif words[1] == "cc":
            passive = A.ACTION_CHECK if A.ACTION_CHECK in legal else A.ACTION_CALL
            act(stubs[p], table_id, 1, passive)
        else:
            kind = A.ACTION_BET if A.ACTION_BET in legal else A.ACTION_RAISE
            act(stubs[p], table_id, 1, kind, amount=int(words[2]))
    exported = admin.GetHandHistory(
        table_pb2.GetHandHistoryRequest(table_id=table_id, hand_number=1)
    )
    result = exported.text.split("*** RESULT ***")[1]
    for p in range(n):
        assert f"seat {seat_of[p]} (player{p + 1}): {expected[p]}" in result, exported.text
    assert pokerkit_stacks(exported.phh) == expected, exported.phh
