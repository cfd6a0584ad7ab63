"""Drive hands through the public API with supplied players, decks and ranker.

Used by simulations, benchmarks and the engine-only simulator: every chance request is
answered from the given deck (the caller shuffles; the engine never does) and the given
ranker, every decision by the given policy. Pure as long as its inputs are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

from services.games.cardtext import Card
from services.games.poker.chance import (
    NeedCards,
    NeedHandStart,
    NeedRanks,
    NeedReshuffle,
    deal_from,
    pending_chance,
    rank_hands,
    reshuffle,
)
from services.games.poker.commands import Act, Command, StartHand, TimeOut
from services.games.poker.events import Event
from services.games.poker.legal import LegalActions, legal_actions
from services.games.poker.rules import execute
from services.games.poker.state import TableState
from services.games.ranking import HandRanker

# A player's decision: an action, or letting the clock run out (TimeOut).
Policy = Callable[[TableState, LegalActions], Act | TimeOut]


class Stub(Protocol):
    """The undealt cards, owned by the caller (who shuffles them)."""

    def __next__(self) -> Card: ...

    def __iter__(self) -> Iterator[Card]: ...

    def put_back(self, cards: tuple[Card, ...]) -> None:
        """The dealer reshuffles these discards into the stub."""
        ...


@dataclass
class HandRun:
    state: TableState
    events: list[Event]
    decisions: int


def step(state: TableState, command: Command, log: list[Event]) -> TableState:
    state, events = execute(state, command)
    log.extend(events)
    return state


def play_hand(
    state: TableState,
    policy: Policy,
    deck: Stub,
    ranker: HandRanker,
    max_steps: int = 10_000,
) -> HandRun:
    """Start a hand and play it to the end; `deck` yields cards in dealing order."""
    log: list[Event] = []
    if not isinstance(pending_chance(state), NeedHandStart):
        raise ValueError("no hand can start")
    state = step(state, StartHand(), log)
    decisions = 0
    for _ in range(max_steps):
        hand = state.hand
        if hand is None:
            return HandRun(state, log, decisions)
        request = pending_chance(state)
        command: Command
        if request is None:  # the common case first: a player decides
            if hand.to_act is None:
                raise RuntimeError(f"hand {hand.number} is stuck: nothing pending, nobody to act")
            command = policy(state, legal_actions(state, hand.to_act))
            decisions += 1
        elif isinstance(request, NeedCards):
            command = deal_from(request, deck)
        elif isinstance(request, NeedReshuffle):
            command = reshuffle(request)
            deck.put_back(request.discards)
        elif isinstance(request, NeedRanks):
            command = rank_hands(state, ranker)
        else:
            raise RuntimeError(f"hand {hand.number} is stuck: {request} while a hand is on")
        state, events = execute(state, command)
        log += events
    raise RuntimeError(f"hand did not finish within {max_steps} steps")
