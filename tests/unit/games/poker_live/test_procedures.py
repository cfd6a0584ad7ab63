"""Scenario tests of the live-dealer procedures, on both sides of each boundary."""

from __future__ import annotations

import pytest

from services.games.cards import Card, parse_card
from services.games.poker.live.procedures import (
    BOARD,
    BURN,
    Bet,
    CloseRound,
    Command,
    Due,
    Event,
    Expose,
    Fold,
    LiveHand,
    ReportCard,
    ReportError,
    Street,
    chips_total,
    handle,
    new_hand,
    next_card,
)

SEATS = (1, 2, 3)
STACKS = {1: 100, 2: 100, 3: 100}
BLINDS = {1: 1, 2: 2}


def c(text: str) -> Card:
    return parse_card(text)


def down(card: str, to: int | str) -> ReportCard:
    return ReportCard(c(card), False, to)


def up(card: str, to: int | str) -> ReportCard:
    return ReportCard(c(card), True, to)


def run(hand: LiveHand, *commands: Command) -> tuple[LiveHand, list[Event]]:
    events: list[Event] = []
    for command in commands:
        hand, happened = handle(hand, command)
        events.extend(happened)
    return hand, events


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


DEAL = [
    down(x, s)
    for x, s in zip(["2c", "3c", "4c", "5c", "6c", "7c"], [1, 2, 3, 1, 2, 3], strict=True)
]


def dealt() -> LiveHand:
    hand, _ = run(new_hand(SEATS, STACKS, BLINDS), *DEAL)
    assert hand.street is Street.PREFLOP and hand.betting_open
    return hand


def preflop_done() -> LiveHand:
    hand, _ = run(dealt(), Bet(3, 2), Bet(1, 1), CloseRound())
    return hand


def on_flop() -> LiveHand:
    hand, _ = run(
        preflop_done(), down("Kd", BURN), up("Ah", BOARD), up("Ad", BOARD), up("As", BOARD)
    )
    assert hand.street is Street.FLOP and hand.betting_open
    return hand


@pytest.mark.parametrize("exposed_at", [0, 1])
def test_first_or_second_hole_card_exposed_is_a_misdeal(exposed_at: int) -> None:
    hand = new_hand(SEATS, STACKS, BLINDS)
    reports = [
        *DEAL[:exposed_at],
        ReportCard(DEAL[exposed_at].card, True, DEAL[exposed_at].recipient),
    ]
    hand, events = run(hand, *reports)
    assert events[-1].kind == "misdeal"
    which = "first" if exposed_at == 0 else "second"
    assert events[-1].explanation == (
        f"Misdeal: the {which} hole card was exposed; the hand will be redealt."
    )
    assert set(events[-1].cards) == {r.card for r in reports}  # gathered and reshuffled
    assert hand.street is Street.DEAL and hand.redeals == 1 and len(hand.deck) == 52
    assert hand.committed == {1: 1, 2: 2, 3: 0}  # the blinds stay posted for the redeal
    assert chips_total(hand) == 300


def test_third_hole_card_exposed_is_replaced_and_burned() -> None:
    hand = new_hand(SEATS, STACKS, BLINDS)
    hand, events = run(hand, DEAL[0], DEAL[1], up("4c", 3), *DEAL[3:])
    assert "misdeal" not in kinds(events)
    assert hand.replacement_for == 3 and hand.burns == [c("4c")]
    with pytest.raises(ReportError):
        handle(hand, down("9h", 1))  # the replacement is seat 3's
    hand, events = run(hand, down("9h", 3))
    assert hand.holes[3] == [c("7c"), c("9h")] and hand.street is Street.PREFLOP
    # The exposed card was the first burn: the flop comes without another burn.
    hand, _ = run(hand, Bet(3, 2), Bet(1, 1), CloseRound())
    with pytest.raises(ReportError, match="already on the table"):
        handle(hand, down("Kd", BURN))
    hand, _ = run(hand, up("Ah", BOARD), up("Ad", BOARD), up("As", BOARD))
    assert hand.board == [c("Ah"), c("Ad"), c("As")] and hand.burns == [c("4c")]


def test_two_exposed_hole_cards_are_a_misdeal() -> None:
    hand = new_hand(SEATS, STACKS, BLINDS)
    hand, events = run(hand, DEAL[0], DEAL[1], up("4c", 3), up("5c", 1))
    assert events[-1].explanation.startswith("Misdeal: more than one hole card was exposed")
    assert hand.redeals == 1 and hand.street is Street.DEAL


def test_one_extra_card_to_the_first_player_is_the_burn() -> None:
    hand, events = run(dealt(), down("Kd", 1))
    assert events[-1].kind == "extra_card_burned" and hand.burns == [c("Kd")]
    assert hand.holes[1] == [c("2c"), c("5c")]
    hand, _ = run(
        hand, Bet(3, 2), Bet(1, 1), CloseRound(), up("Ah", BOARD), up("Ad", BOARD), up("As", BOARD)
    )
    assert hand.street is Street.FLOP and hand.burns == [c("Kd")]


def test_two_extra_cards_are_a_misdeal_returning_the_bets() -> None:
    hand, _ = run(dealt())
    hand, events = run(hand, down("Kd", 1), down("Qd", 1))
    assert events[-1].explanation == (
        "Misdeal: the first player was dealt more than one extra card; the hand will be redealt."
    )
    assert hand.stacks == {1: 99, 2: 98, 3: 100} and hand.committed == {1: 1, 2: 2, 3: 0}


def test_flop_with_too_many_cards_is_redealt_without_a_burn() -> None:
    hand, events = run(on_flop(), up("Ac", BOARD))
    assert events[-1].kind == "flop_redealt"
    assert set(events[-1].cards) == {c("Ah"), c("Ad"), c("As"), c("Ac")}  # back in the deck
    assert hand.board == [] and hand.burns == [c("Kd")]  # the burn stays
    assert {c("Ah"), c("Ad"), c("As"), c("Ac")} <= hand.deck
    with pytest.raises(ReportError, match="without a burn"):
        handle(hand, down("Qd", BURN))
    hand, _ = run(hand, up("Ac", BOARD), up("Ah", BOARD), up("Qh", BOARD))
    assert hand.street is Street.FLOP and hand.burns == [c("Kd")]


def test_a_fourth_card_on_a_flop_nobody_could_act_on_is_too_many_cards() -> None:
    # Every player all in: the flop's round closes with no action, then a fourth card.
    hand, events = run(on_flop(), CloseRound(), up("Ac", BOARD))
    assert events[-1].kind == "flop_redealt"
    assert hand.board == [] and hand.burns == [c("Kd")]
    assert {c("Ah"), c("Ad"), c("As"), c("Ac")} <= hand.deck
    hand, _ = run(hand, up("Ac", BOARD), up("Ah", BOARD), up("Qh", BOARD))
    assert hand.street is Street.FLOP and hand.burns == [c("Kd")]


def test_a_board_card_without_a_burn_after_flop_action_is_refused() -> None:
    # The other side: the flop was checked around, so the next card is the turn, burn first.
    hand, _ = run(on_flop(), Bet(1, 5), Bet(2, 5), Bet(3, 5), CloseRound())
    with pytest.raises(ReportError, match="burn a card") as refused:
        handle(hand, up("Ac", BOARD))
    assert refused.value.precondition


def test_premature_flop_is_mixed_back_and_redealt_without_a_burn() -> None:
    hand, events = run(dealt(), Bet(3, 2), down("Kd", BURN), up("Ah", BOARD))
    assert events[-1].kind == "flop_redealt" and events[-1].cards == (c("Ah"),)
    assert c("Ah") in hand.deck and hand.burns == [c("Kd")] and hand.board == []
    hand, _ = run(hand, Bet(1, 1), CloseRound(), up("Ah", BOARD), up("Qh", BOARD), up("Jh", BOARD))
    assert hand.street is Street.FLOP and hand.burns == [c("Kd")]
    assert chips_total(hand) == 300


def test_premature_turn_is_out_of_play_then_reshuffled_for_the_river() -> None:
    hand, events = run(on_flop(), Bet(1, 5), down("Qd", BURN), up("Th", BOARD))
    assert events[-1].kind == "card_out_of_play" and hand.out_of_play == [c("Th")]
    hand, _ = run(hand, Fold(2), Bet(3, 5), CloseRound())
    assert hand.out_of_play == [c("Th")]  # still out of play for the turn
    hand, events = run(hand, down("Jd", BURN), up("9h", BOARD))  # what would be the river
    assert hand.street is Street.TURN and hand.board[-1] == c("9h")
    hand, events = run(hand, CloseRound())
    assert events[-1].kind == "deck_reshuffled" and events[-1].cards == (c("Th"),)
    assert c("Th") in hand.deck and not ({c("Kd"), c("Qd"), c("Jd")} & hand.deck)
    with pytest.raises(ReportError):
        handle(hand, down("8d", BURN))
    hand, events = run(hand, up("Th", BOARD), CloseRound())
    assert hand.board == [c("Ah"), c("Ad"), c("As"), c("9h"), c("Th")]
    assert hand.burns == [c("Kd"), c("Qd"), c("Jd")]
    assert hand.street is Street.DONE and chips_total(hand) == 300
    assert dict(events[-1].chips) == {1: 8, 3: 8}  # pot 16 split between the two left


def test_premature_river_is_reshuffled_once_the_turn_betting_ends() -> None:
    hand, _ = run(
        on_flop(),
        CloseRound(),
        down("Qd", BURN),
        up("9h", BOARD),
        Bet(1, 4),
        down("Jd", BURN),
        up("Th", BOARD),
    )
    assert hand.out_of_play == [c("Th")] and hand.street is Street.TURN
    hand, events = run(hand, Bet(2, 4), Bet(3, 4), CloseRound())
    assert events[-1].kind == "deck_reshuffled" and c("Th") in hand.deck
    hand, _ = run(hand, up("2d", BOARD), CloseRound())
    assert hand.board[-1] == c("2d") and hand.burns == [c("Kd"), c("Qd"), c("Jd")]
    assert chips_total(hand) == 300


def test_reports_that_cannot_be_accepted_change_nothing() -> None:
    hand = dealt()
    for bad in (down("2c", BOARD), down("5c", 2), ReportCard(c("Kd"), False, 9)):
        with pytest.raises(ReportError):
            handle(hand, bad)
    with pytest.raises(ReportError, match="betting"):
        handle(preflop_done(), Bet(1, 1))
    folded, _ = run(hand, Fold(3))
    with pytest.raises(ReportError, match="folded"):
        handle(folded, down("Kd", 3))
    with pytest.raises(ReportError, match="no board card"):
        handle(new_hand(SEATS, STACKS, BLINDS), down("Kd", BOARD))


def test_misdeal_returns_every_chip_put_in_but_the_blinds() -> None:
    hand, _ = run(dealt(), Bet(3, 7), Bet(1, 6), down("Kd", 1))
    assert hand.stacks == {1: 93, 2: 98, 3: 93}
    hand, events = run(hand, down("Qd", 1))
    assert events[-1].kind == "misdeal" and dict(events[-1].chips) == {1: 6, 3: 7}
    assert hand.committed == {1: 1, 2: 2, 3: 0} and hand.stacks == {1: 99, 2: 98, 3: 100}
    # The redeal is dealt from a whole deck, same blinds.
    hand, _ = run(hand, *DEAL)
    assert hand.street is Street.PREFLOP and hand.redeals == 1


# --- a face-down hole card exposed later in the deal: by its place in the dealing order ------


def test_the_second_card_dealt_exposed_later_in_the_deal_is_a_misdeal() -> None:
    hand = new_hand(SEATS, STACKS, BLINDS)
    hand, events = run(hand, *DEAL[:4], Expose(c("3c")))  # 3c: the second card dealt
    assert kinds(events)[-1] == "misdeal"
    assert hand.redeals == 1 and hand.hole_dealt == 0


def test_the_third_card_dealt_exposed_later_in_the_deal_is_replaced_and_burned() -> None:
    hand = new_hand(SEATS, STACKS, BLINDS)
    hand, events = run(hand, *DEAL[:4], Expose(c("4c")), *DEAL[4:])
    assert kinds(events)[-1] == "exposed_card_burned"
    assert hand.burns == [c("4c")] and hand.replacement_for == 3


def test_an_exposure_of_a_card_nobody_holds_or_after_the_deal_is_refused() -> None:
    hand = new_hand(SEATS, STACKS, BLINDS)
    hand, _ = run(hand, *DEAL[:2])
    with pytest.raises(ReportError, match="has not been dealt") as caught:
        handle(hand, Expose(c("Ah")))
    assert not caught.value.precondition
    done, _ = run(hand, *DEAL[2:])
    with pytest.raises(ReportError, match="during the deal") as late:
        handle(done, Expose(c("2c")))
    assert late.value.precondition


# --- the card due next ------------------------------------------------------------------------


def test_the_card_due_next_follows_the_deal_the_burns_and_the_streets() -> None:
    hand = new_hand(SEATS, STACKS, BLINDS)
    assert next_card(hand) == Due(1, False, "seat 1's 1st hole card, face down")
    hand, _ = run(hand, *DEAL[:4])
    assert next_card(hand) == Due(2, False, "seat 2's 2nd hole card, face down")
    hand, _ = run(hand, *DEAL[4:])
    assert next_card(hand) is None  # the pre-flop betting
    hand, _ = run(hand, Bet(3, 2), Bet(1, 1), CloseRound())
    assert next_card(hand) == Due(BURN, False, "the burn card before the flop")
    hand, _ = run(hand, down("Kd", BURN), up("Ah", BOARD))
    assert next_card(hand) == Due(BOARD, True, "the flop's 2nd card, face up")
    hand, _ = run(hand, up("Ad", BOARD), up("As", BOARD), CloseRound())
    assert next_card(hand) == Due(BURN, False, "the burn card before the turn")
    hand, _ = run(hand, down("Qd", BURN))
    assert next_card(hand) == Due(BOARD, True, "the turn, face up")
    hand, _ = run(hand, up("Th", BOARD), CloseRound(), down("9d", BURN), up("9h", BOARD))
    assert next_card(hand) is None  # the river's betting, then no card


def test_the_card_due_after_a_procedure_is_the_procedures() -> None:
    hand, _ = run(new_hand(SEATS, STACKS, BLINDS), *DEAL[:2], up("4c", 3))
    hand, _ = run(hand, *DEAL[3:])
    assert next_card(hand) == Due(3, False, "seat 3's replacement for its exposed card, face down")
    hand, _ = run(on_flop(), up("Ac", BOARD))  # a flop with too many cards: no burn
    assert next_card(hand) == Due(BOARD, True, "the flop's 1st card, face up")
    hand, _ = run(on_flop(), Bet(1, 5), down("Qd", BURN), up("Th", BOARD))  # premature turn
    assert next_card(hand) is None  # the flop's betting goes on
    hand, _ = run(hand, Bet(2, 5), Bet(3, 5), CloseRound())
    assert next_card(hand) == Due(BURN, False, "the burn card before the turn")
