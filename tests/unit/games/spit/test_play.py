"""Playing onto the middle piles, moving into spaces, races, and refused moves."""

from __future__ import annotations

import pytest

from services.games import contract as c
from services.games.errors import InvalidAction, NotAllowedNow, RuleViolation
from services.games.spit import RULES, Expected, MoveToSpace, PlayCard, Slap, SpitConfig, execute
from services.games.spit import events as ev
from services.games.spit.state import SpitState
from tests.unit.games.spit.support import position

# Seat 0 has a 7h on pile 0, 2c on 1, an empty space at 2, Ks over two face-down cards on 3,
# Ad over one on 4; seat 1 holds high cards that fit nothing here.
ANN = ["7h", "2c", "", "3d,4d,Ks", "9s,Ad"]
BOB = ["Jc", "Jd", "Js", "Jh", "5c"]
MIDDLE = ["8c", "Ac"]


def start(places: list[str] = ANN, middle: list[str] = MIDDLE, **kw: object) -> SpitState:
    return position((places, BOB), middle, spit=(["Tc", "Td"], ["Th", "Ts"]), **kw)  # type: ignore[arg-type]


def play(state: SpitState, seat: int, move: object, expected: object = None) -> SpitState:
    return execute(state, c.Move(seat, move, precondition=expected))[0]


def test_a_card_one_rank_higher_or_lower_goes_on_a_middle_pile() -> None:
    state = start()
    events = RULES.decide(state, c.Move(0, PlayCard(0, 0, "7h")))  # 7h on 8c
    assert events[0] == ev.CardPlayed(0, 0, 0, "7h")
    after = play(state, 0, PlayCard(0, 0))
    assert after.game is not None and after.game.deal.middle[0].top == "7h"


def test_ranks_wrap_an_ace_goes_on_a_king_and_a_two_on_an_ace() -> None:
    state = start()
    assert RULES.decide(state, c.Move(0, PlayCard(1, 1)))[0] == ev.CardPlayed(0, 1, 1, "2c")
    kings = start(middle=["Kc", "5h"])
    assert RULES.decide(kings, c.Move(0, PlayCard(4, 0)))[0] == ev.CardPlayed(0, 4, 0, "Ad")


def test_suit_and_colour_do_not_matter() -> None:
    state = start(middle=["8h", "Ac"])  # red on red
    assert RULES.decide(state, c.Move(0, PlayCard(0, 0)))[0] == ev.CardPlayed(0, 0, 0, "7h")


def test_alternating_colours_needs_red_on_black_and_black_on_red() -> None:
    config = SpitConfig(alternating_colours=True)
    state = start(middle=["8h", "Ac"], config=config)
    with pytest.raises(
        InvalidAction, match=r"7h does not go on 8h \(one rank up or down, the other"
    ):
        RULES.decide(state, c.Move(0, PlayCard(0, 0)))
    black = start(middle=["8c", "Ac"], config=config)
    assert RULES.decide(black, c.Move(0, PlayCard(0, 0)))[0] == ev.CardPlayed(0, 0, 0, "7h")
    assert PlayCard(1, 1, "2c") not in RULES.legal_moves(black, 0)  # 2c on Ac: both black


def test_either_player_may_play_on_either_pile() -> None:
    state = start(middle=["Qd", "4h"])
    assert PlayCard(0, 0, "Jc") in RULES.legal_moves(state, 1)
    assert RULES.decide(state, c.Move(1, PlayCard(4, 1)))[0] == ev.CardPlayed(1, 4, 1, "5c")


def test_a_face_down_card_that_becomes_a_top_turns_up_by_itself() -> None:
    state = start(middle=["Qc", "Ac"])
    events = RULES.decide(state, c.Move(0, PlayCard(3, 0)))
    assert events[:2] == [ev.CardPlayed(0, 3, 0, "Ks"), ev.CardTurnedUp(0, 3, "4d")]


def test_a_face_up_card_moves_into_an_empty_space_and_the_card_under_it_turns_up() -> None:
    state = start()
    events = RULES.decide(state, c.Move(0, MoveToSpace(3, 2)))
    assert events[:2] == [ev.CardMoved(0, 3, 2, "Ks"), ev.CardTurnedUp(0, 3, "4d")]


def test_moving_a_piles_only_card_into_a_space_is_refused_it_changes_nothing() -> None:
    with pytest.raises(InvalidAction, match="only card of pile 0"):
        RULES.decide(start(), c.Move(0, MoveToSpace(0, 2)))
    assert MoveToSpace(0, 2) not in RULES.legal_moves(start(), 0)


def test_both_racing_onto_the_same_pile_the_first_accepted_wins_and_the_loser_is_rechecked() -> (
    None
):
    # Both see 8c on pile 0: ann plays her 7h, bob his 9d.
    state = position((ANN, ["9d", *BOB[1:]]), MIDDLE, spit=(["Tc"], ["Th"]))
    seen = Expected(deal=1, top="8c")
    first = play(state, 0, PlayCard(0, 0), seen)  # accepted first: pile 0 is now 7h
    with pytest.raises(NotAllowedNow, match="middle pile 0 is now 7h, not 8c: 9d does not go on"):
        RULES.decide(first, c.Move(1, PlayCard(0, 0), precondition=seen))
    # A loser whose card still fits on the new top is accepted there, marked as a race.
    still = position((ANN, ["6d", *BOB[1:]]), ["8c,7c", "Ac"], spit=(["Tc"], ["Th"]))
    events = RULES.decide(still, c.Move(1, PlayCard(0, 0), precondition=seen))
    assert events[0] == ev.CardPlayed(1, 0, 0, "6d", raced=True)


def test_the_refused_loser_is_told_the_new_top_cards() -> None:
    state = play(start(), 0, PlayCard(0, 0), Expected(1, "8c"))
    with pytest.raises(NotAllowedNow) as refused:
        RULES.decide(state, c.Move(0, PlayCard(4, 0), precondition=Expected(1, "8c")))
    assert "middle piles: 0 7h, 1 Ac" in refused.value.message


@pytest.mark.parametrize(
    ("move", "kind", "message"),
    [
        (PlayCard(2, 0), InvalidAction, "your place 2 has no face-up card"),
        (PlayCard(0, 0, "Ks"), InvalidAction, "Ks is not on top of your place 0: 7h is"),
        (PlayCard(1, 0), InvalidAction, "2c does not go on 8c"),
        (PlayCard(5, 0), InvalidAction, "there is no place 5: your places are 0-4, never more"),
        (PlayCard(0, 2), InvalidAction, "there is no middle pile 2"),
        (MoveToSpace(3, 5), InvalidAction, "there is no pile 5: your places are 0-4, never more"),
        (MoveToSpace(3, 0), InvalidAction, "your pile 0 is not an empty space"),
        (MoveToSpace(2, 0), InvalidAction, "your pile 2 is empty"),
        (Slap(0), NotAllowedNow, "deal 1 is being played"),
    ],
)
def test_bad_moves_are_refused_with_the_reason_and_the_top_cards_and_change_nothing(
    move: object, kind: type[RuleViolation], message: str
) -> None:
    state = start()
    with pytest.raises(kind) as refused:
        RULES.decide(state, c.Move(0, move))
    assert message in refused.value.message
    if isinstance(move, PlayCard | MoveToSpace):
        assert "middle piles: 0 8c, 1 Ac; your places: 7h 2c - Ks Ad" in refused.value.message
    assert state == start()


def test_a_move_for_another_seat_is_refused() -> None:
    with pytest.raises(RuleViolation, match="seat 0 is ann's, not bob's"):
        RULES.decide(start(), c.Move(0, PlayCard(0, 0), by="bob"))


def test_legal_moves_lists_every_play_and_every_useful_space_move() -> None:
    moves = set(RULES.legal_moves(start(), 0))
    assert moves == {
        PlayCard(0, 0, "7h"),
        PlayCard(1, 1, "2c"),
        PlayCard(3, 1, "Ks"),
        MoveToSpace(3, 2),
        MoveToSpace(4, 2),
    }
    assert RULES.legal_moves(start(), 1) == ()  # no jack or five fits 8c or Ac
    assert RULES.to_act(start()) == {0, 1}  # no turns: both may act
