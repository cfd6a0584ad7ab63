"""What a high-card table needs from outside next, one request at a time: the last round's
shuffle revealed; the next round's start (both seats in, each able to ante); its shuffle
committed before any card; the two cards. A function of the state alone."""

from __future__ import annotations

from services.games.contract import (
    ChanceRequest,
    CloseShuffle,
    DeckSpec,
    DrawCards,
    OpenShuffle,
    StartRound,
)
from services.games.highcard.state import HighCardState

DECK = "deck"  # each round's one shuffle: a standard deck


def can_start(state: HighCardState) -> bool:
    ante = state.config.ante
    return all(
        s is not None and not s.sitting_out and not s.leaving and s.stack >= ante
        for s in state.seats
    )


def pending_chance(state: HighCardState) -> ChanceRequest | None:
    current = state.round
    if current is None:
        if state.decks:  # a finished round's shuffle: reveal it
            return CloseShuffle(state.decks[0].round, DECK)
        return StartRound(state.rounds + 1) if can_start(state) else None
    if state.deck_of(current.number) is None:
        return OpenShuffle(current.number, DECK, DeckSpec())
    if not current.dealt:
        return DrawCards(current.number, DECK, 2, purpose="hole", recipient="seat 0, seat 1")
    return None  # the players turn their cards over
