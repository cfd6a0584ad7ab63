"""Chance inputs: dealt cards, reshuffled discards and hand ranks, checked against what
`pending_chance` asked for (part of `decide`)."""

from __future__ import annotations

from services.games.cardtext import VALID_CARDS, Card, is_card
from services.games.errors import InvalidAction, NotAllowedNow
from services.games.poker.chance import NeedCards, NeedRanks, NeedReshuffle
from services.games.poker.chance import pending_chance as _pending
from services.games.poker.commands import DealCards, ReshuffleDiscards, SupplyHandRanks
from services.games.poker.events import CardsDealt, DiscardsReshuffled, Event, HandsRanked
from services.games.poker.seating import current_hand
from services.games.poker.state import TableState


def deal(state: TableState, c: DealCards) -> list[Event]:
    request = _pending(state)
    if not isinstance(request, NeedCards):
        raise NotAllowedNow(f"no cards are needed now (waiting for {_waiting_for(state)})")
    targets = request.targets
    deals = c.deals
    if len(targets) == 1 and len(deals) == 1 and deals[0][0] == targets[0][0]:
        # One target (a draw's replacements, a board deal): the checks below without the
        # dictionaries, in the same order.
        target, cards = deals[0]
        if len(cards) != targets[0][1]:
            raise InvalidAction(f"{_name(target)} needs {targets[0][1]} card(s), got {len(cards)}")
        _check_dealt(state, c, [*c.burned, *cards], request)
        burned = c.burned if target is None else ()
        return [CardsDealt(target, tuple(cards), request.face_up, burned)]
    expected = dict(targets)
    given = dict(deals)
    if given.keys() != expected.keys() or len(given) != len(deals):
        raise InvalidAction(f"cards are needed for {_targets(request)}, got {_targets_of(c)}")
    dealt = list(c.burned)
    for target, cards in deals:
        if len(cards) != expected[target]:
            raise InvalidAction(
                f"{_name(target)} needs {expected[target]} card(s), got {len(cards)}"
            )
        dealt += cards
    _check_dealt(state, c, dealt, request)
    face_up = request.face_up
    return [
        CardsDealt(target, tuple(given[target]), face_up, c.burned if target is None else ())
        for target, _ in targets
    ]


def _check_dealt(state: TableState, c: DealCards, dealt: list[Card], request: NeedCards) -> None:
    """The burn count, then every card well formed and not yet seen in this hand."""
    if len(c.burned) != request.burn:
        raise InvalidAction(f"burn {request.burn} card(s) first, got {len(c.burned)}")
    hand = current_hand(state)
    unique = set(dealt)
    if len(unique) != len(dealt) or not unique.isdisjoint(hand.out) or not unique <= VALID_CARDS:
        # Something is wrong: find the first offending card, in dealing order, to name it.
        seen: set[Card] = set()
        for card in dealt:
            if not is_card(card):
                raise InvalidAction(f"{card!r} is not a card (rank 2-9TJQKA then suit cdhs)")
            if card in hand.out or card in seen:
                raise InvalidAction(f"card {card} was already dealt in hand {hand.number}")
            seen.add(card)


def reshuffle(state: TableState, c: ReshuffleDiscards) -> list[Event]:
    request = _pending(state)
    if not isinstance(request, NeedReshuffle):
        raise NotAllowedNow("no reshuffle is needed now")
    if sorted(c.cards) != sorted(request.discards):
        raise InvalidAction(
            f"reshuffle exactly the {len(request.discards)} discards requested, "
            "not the current player's discards"
        )
    return [DiscardsReshuffled(tuple(c.cards))]


def supply_ranks(state: TableState, c: SupplyHandRanks) -> list[Event]:
    request = _pending(state)
    if not isinstance(request, NeedRanks):
        raise NotAllowedNow("no showdown is waiting for hand ranks")
    wanted = {r.seat for r in request.requests if r.seat is not None}
    given = {seat for seat, _ in c.ranks}
    if wanted != given:
        raise InvalidAction(f"ranks are needed for seats {sorted(wanted)}, got {sorted(given)}")
    needs_board = any(r.seat is None for r in request.requests)
    if needs_board and c.board is None:
        raise InvalidAction("the board's rank is needed too (for declare-board)")
    return [HandsRanked(tuple(c.ranks), c.board)]


def _waiting_for(state: TableState) -> str:
    request = _pending(state)
    if request is None:
        hand = state.hand
        return f"seat {hand.to_act}" if hand and hand.to_act is not None else "players"
    return type(request).__name__


def _name(target: int | None) -> str:
    return "the board" if target is None else f"seat {target}"


def _targets(request: NeedCards) -> str:
    return ", ".join(f"{_name(t)} ({n})" for t, n in request.targets)


def _targets_of(c: DealCards) -> str:
    return ", ".join(_name(t) for t, _ in c.deals) or "nothing"
