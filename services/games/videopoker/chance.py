"""`pending_chance`: what the shell must fetch next for the round in play.

The order is the round's protocol, and a function of the state alone, so a shell that
restarts (or a second instance) asks for exactly what is still missing:

1. the bet, escrow -> house, before any card (`{round}/bet`);
2. the deal deck (one standard deck) and, with the Split Card feature, the split ticket deck
   (services.games.videopoker.split), both committed before any card is dealt;
3. the five cards, then the split ticket;
4. each line's draw deck: the 47 undealt cards, committed before the player holds;
5. (the player holds)
6. with the feature, when the split card was not dealt and the lines draw: the deal deck's
   sixth card, the undealt split card;
7. each line's replacement cards from its own deck;
8. the win, house -> escrow (`{round}/win`), when there is one;
9. every deck closed, so its reveal is in the round's record.

A voided round (only before the deal) still completes the bet transfer, then refunds it
(`{round}/refund`) and closes what it opened.
"""

from __future__ import annotations

from services.games.contract import (
    ChanceRequest,
    CloseShuffle,
    DeckSpec,
    DrawCards,
    OpenShuffle,
    Party,
    Transfer,
)
from services.games.videopoker.paytables import PAYTABLES
from services.games.videopoker.split import HAND_SIZE, ticket_deck
from services.games.videopoker.state import DEAL, SPLIT, MachineState, Round, line_deck


def deck_spec(current: Round, name: str) -> DeckSpec:
    """What shuffle `name` of `current` orders."""
    if name == DEAL:
        return DeckSpec()
    if name == SPLIT:
        return DeckSpec(cards=ticket_deck(PAYTABLES[current.paytable].split.in_deal).cards)
    return DeckSpec(cards=current.undealt)


def deck_names(current: Round) -> tuple[str, ...]:
    """Every shuffle the round uses, in the order it opens them."""
    first = (DEAL, SPLIT) if current.split_feature else (DEAL,)
    return first + tuple(line_deck(line) for line in range(1, current.lines + 1))


def needs_stub_split(current: Round) -> bool:
    """Whether the lines may draw the undealt split card, so it must be located."""
    return current.split_feature and not current.split_dealt and current.drawn_count > 0


def ready_to_hold(current: Round) -> bool:
    return (
        not current.voided
        and current.hold is None
        and bool(current.dealt)
        and (bool(current.ticket) or not current.split_feature)
        and all(current.deck(name) is not None for name in deck_names(current))
    )


def bet_key(number: int) -> str:
    return f"{number}/bet"


def win_key(number: int) -> str:
    return f"{number}/win"


def refund_key(number: int) -> str:
    return f"{number}/refund"


def _closing(current: Round) -> ChanceRequest | None:
    for deck in current.decks:
        if not deck.closed:
            return CloseShuffle(current.number, deck.name)
    return None


def pending_chance(state: MachineState) -> ChanceRequest | None:
    current = state.round
    if current is None:
        return None
    number = current.number
    if not current.bet_taken:
        return Transfer(bet_key(number), Party.ESCROW, Party.HOUSE, current.bet)
    if current.voided:
        if not current.refunded:
            return Transfer(refund_key(number), Party.HOUSE, Party.ESCROW, current.bet)
        return _closing(current)
    for name in deck_names(current)[: 2 if current.split_feature else 1]:
        if current.deck(name) is None:
            return OpenShuffle(number, name, deck_spec(current, name))
    if not current.dealt:
        return DrawCards(number, DEAL, HAND_SIZE, "hole", "hand")
    if current.split_feature and not current.ticket:
        return DrawCards(number, SPLIT, 1, "hole", "split ticket")
    for name in deck_names(current):
        if current.deck(name) is None:
            return OpenShuffle(number, name, deck_spec(current, name))
    if current.hold is None:
        return None
    if needs_stub_split(current) and not current.stub_base:
        return DrawCards(number, DEAL, 1, "hole", "split card")
    if len(current.draws) < current.lines:
        line = len(current.draws) + 1
        return DrawCards(number, line_deck(line), current.drawn_count, "draw", f"line {line}")
    if current.win and not current.win_paid:
        return Transfer(win_key(number), Party.HOUSE, Party.ESCROW, current.win)
    return _closing(current)


def pending_chances(state: MachineState) -> tuple[ChanceRequest, ...]:
    """Every request the shell may fetch at once: `pending_chance`'s next requests as long as
    none of them depends on an answer before it (the line decks on the dealt cards, the win
    on the draws). Their answers are decided in this order, each being then exactly what
    `pending_chance` asks for, so a shell may fetch them concurrently (or in one dealer call)
    and append every answer's events together. A 10-line round with the Split Card feature
    takes 8 such steps instead of 38 requests one after the other."""
    first = pending_chance(state)
    current = state.round
    if first is None or current is None or isinstance(first, Transfer):
        return () if first is None else (first,)
    number = current.number
    if isinstance(first, OpenShuffle):
        openable = deck_names(current)
        if not current.dealt:
            openable = openable[: 2 if current.split_feature else 1]
        return tuple(
            OpenShuffle(number, name, deck_spec(current, name))
            for name in openable
            if current.deck(name) is None
        )
    if isinstance(first, CloseShuffle):
        return tuple(CloseShuffle(number, deck.name) for deck in current.decks if not deck.closed)
    assert isinstance(first, DrawCards)
    if first.name == DEAL and not current.dealt:
        if current.split_feature:
            return (first, DrawCards(number, SPLIT, 1, "hole", "split ticket"))
        return (first,)
    if current.hold is None:  # the split ticket, after a resumed deal
        return (first,)
    lines = tuple(
        DrawCards(number, line_deck(line), current.drawn_count, "draw", f"line {line}")
        for line in range(len(current.draws) + 1, current.lines + 1)
    )
    return (first, *lines) if first.name == DEAL else lines
