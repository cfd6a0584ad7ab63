"""What the table must fetch for Spit next (`pending_chance`): the start of a game, the
dealer's shuffles and cards for a deal, Speed's side stacks rebuilt from the middle, and the
reveal of every shuffle once the game is over.

Every shuffle is the dealer's, committed before its first card: the first deal of a Spit or
Speed game shuffles one 52-card deck ("deck"); each later Spit deal shuffles each player's own
cards ("seat-0", "seat-1": a multiset `DeckSpec`); Bicycle's Spit shuffles one deck per
player; Speed rebuilds a side stack by shuffling the middle pile's cards ("restock-2-pile-0").
A shuffle's name is part of the dealer's shuffle id, so it is letters, digits and '-' only;
the cards' recipients ("seat 0", "stack 1") only label them in the dealer's record.
A shuffle's round is its deal. Shuffles are revealed when the game is over, not after each
deal: a deal's never-turned-up cards go back into their holder's next shuffle, so revealing a
deal's order early would tell the opponent what the holder's face-down cards are.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.games.contract import (
    ChanceRequest,
    CloseShuffle,
    DeckSpec,
    DrawCards,
    OpenShuffle,
    StartRound,
)
from services.games.spit.config import Variation
from services.games.spit.state import Deal, Phase, SpitState

SEAT_CARDS = {Variation.SPIT: 26, Variation.BICYCLE: 52, Variation.SPEED: 20}
SIDE_STACK = 6  # Speed


@dataclass(frozen=True, slots=True)
class PlannedShuffle:
    name: str
    deck: DeckSpec
    draws: tuple[tuple[str, int], ...]  # (recipient, count) in dealing order


def seat_name(seat: int) -> str:
    return f"seat {seat}"


def shuffle_name(seat: int) -> str:
    """The shuffle of one player's own cards (a redeal; Bicycle's Spit: their deck)."""
    return f"seat-{seat}"


def stack_name(stack: int) -> str:
    return f"stack {stack}"


def deal_plan(state: SpitState, deal: Deal) -> tuple[PlannedShuffle, ...]:
    """The shuffles a deal in the DEALING phase needs, in order."""
    variation = state.config.variation
    if variation is Variation.BICYCLE:
        return tuple(
            PlannedShuffle(shuffle_name(s), DeckSpec(copies=1), ((seat_name(s), 52),))
            for s in (0, 1)
        )
    if deal.decks:  # a Spit redeal: each player's own cards
        return tuple(
            PlannedShuffle(
                shuffle_name(s),
                DeckSpec(cards=deal.decks[s]),
                ((seat_name(s), len(deal.decks[s])),),
            )
            for s in (0, 1)
        )
    draws = tuple((seat_name(s), SEAT_CARDS[variation]) for s in (0, 1))
    if variation is Variation.SPEED:
        draws += tuple((stack_name(i), SIDE_STACK) for i in (0, 1))
    return (PlannedShuffle("deck", DeckSpec(copies=1), draws),)


def restock_plan(deal: Deal) -> tuple[PlannedShuffle, ...]:
    """Speed: the shuffles rebuilding the side stacks from the gathered middle cards."""
    return tuple(
        PlannedShuffle(
            f"restock-{deal.restocks}-pile-{i}",
            DeckSpec(cards=tuple(sorted(cards))),
            ((stack_name(i), len(cards)),),
        )
        for i, cards in enumerate(deal.gathered)
        if cards
    )


def _draw(deal: Deal, shuffle: PlannedShuffle, recipient: str, count: int) -> DrawCards:
    # Every card is dealt face down (the dealer's "down"): a layout's top cards turn up, and
    # everything else stays hidden, by the rules, not by the deal; `recipient` says whose.
    return DrawCards(deal.number, shuffle.name, count, purpose="down", recipient=recipient)


def next_request(deal: Deal, plan: tuple[PlannedShuffle, ...]) -> OpenShuffle | DrawCards | None:
    """The first shuffle of `plan` not opened yet, else its first recipient not dealt yet."""
    for shuffle in plan:
        if shuffle.name not in deal.shuffles:
            return OpenShuffle(deal.number, shuffle.name, shuffle.deck)
        for recipient, count in shuffle.draws:
            if recipient not in deal.dealt:
                return _draw(deal, shuffle, recipient, count)
    return None


def next_restock_request(deal: Deal) -> OpenShuffle | DrawCards | None:
    """A gathered pile's shuffle, then its one draw (done once the side stack is dealt)."""
    for shuffle in restock_plan(deal):
        if shuffle.name not in deal.shuffles:
            return OpenShuffle(deal.number, shuffle.name, shuffle.deck)
        recipient, count = shuffle.draws[0]
        return _draw(deal, shuffle, recipient, count)
    return None


def can_start_game(state: SpitState) -> bool:
    stake = state.config.stake
    return all(
        seat is not None and not seat.sitting_out and seat.stack >= stake for seat in state.seats
    )


def pending_chance(state: SpitState) -> ChanceRequest | None:
    game = state.game
    if game is None or game.over:
        if game is not None:
            for shuffle in game.shuffles:
                if shuffle.reveal is None:
                    return CloseShuffle(shuffle.round, shuffle.name)
        return StartRound(state.deals + 1) if can_start_game(state) else None
    deal = game.deal
    if deal.phase is Phase.DEALING:
        return next_request(deal, deal_plan(state, deal))
    if deal.phase is Phase.PLAYING and deal.gathered:
        return next_restock_request(deal)
    return None
