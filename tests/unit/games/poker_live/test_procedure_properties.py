"""Random report and irregularity sequences never create or lose chips, never deal a card twice."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.games.cards import standard_deck
from services.games.poker.live.procedures import (
    BOARD,
    BURN,
    Bet,
    CloseRound,
    Command,
    Fold,
    LiveHand,
    ReportCard,
    ReportError,
    Street,
    chips_total,
    handle,
    new_hand,
)

DECK = standard_deck()
SEATS = (1, 2, 3, 4)


def _snapshot(hand: LiveHand) -> str:
    return repr(hand)  # every field, containers included


def check_cards(hand: LiveHand) -> None:
    placed = [*hand.board, *hand.burns, *hand.out_of_play]
    for cards in hand.holes.values():
        placed.extend(cards)
    assert len(placed) == len(set(placed)), "a card is in two places"
    assert not set(placed) & hand.deck, "a card in play is still in the deck"
    assert set(placed) | hand.deck == set(DECK)


def command(data: st.DataObject, hand: LiveHand) -> Command:
    kind = data.draw(st.sampled_from(["card", "card", "card", "bet", "fold", "close"]))
    if kind == "card":
        # Mostly cards from the deck (what a dealer reports), sometimes any card.
        pool = sorted(hand.deck, key=lambda c: c.index) if data.draw(st.booleans()) else DECK
        card = data.draw(st.sampled_from(pool))
        recipients: list[int | str] = [BOARD, BOARD, BURN, *SEATS]
        recipient = data.draw(st.sampled_from(recipients))
        return ReportCard(card, data.draw(st.integers(0, 9)) == 0, recipient)
    seat = data.draw(st.sampled_from(SEATS))
    if kind == "bet":
        return Bet(seat, data.draw(st.integers(1, 30)))
    return Fold(seat) if kind == "fold" else CloseRound()


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_sequences_keep_chips_and_cards(data: st.DataObject) -> None:
    stacks = {s: data.draw(st.integers(5, 200)) for s in SEATS}
    hand = new_hand(SEATS, stacks, {1: 1, 2: 2})
    total = chips_total(hand)
    for _ in range(data.draw(st.integers(1, 80))):
        if hand.street is Street.DONE:
            break
        # Deal the hole cards in order most of the time, so the later streets are reached.
        if (
            hand.street is Street.DEAL
            and hand.replacement_for is None
            and data.draw(st.integers(0, 4))
        ):
            seat = SEATS[hand.hole_dealt % len(SEATS)]
            card = min(hand.deck, key=lambda c: c.index)
            cmd: Command = ReportCard(card, data.draw(st.integers(0, 19)) == 0, seat)
        else:
            cmd = command(data, hand)
        before = _snapshot(hand)
        try:
            hand, _ = handle(hand, cmd)
        except ReportError:
            assert _snapshot(hand) == before, "a refused report changed the hand"
        assert chips_total(hand) == total
        assert all(v >= 0 for v in hand.stacks.values())
        check_cards(hand)
