"""Test helpers: a shuffled stub, a random legal player, tables and a scripted-hand driver."""

from __future__ import annotations

import random
from collections.abc import Iterator

from services.games import (
    Act,
    Action,
    LegalActions,
    SitDown,
    TableConfig,
    TableState,
    apply_all,
    decide,
    new_table,
)
from services.games.cardtext import FULL_DECK, Card
from services.games.events import Event, TableOpened


class ShuffledStub:
    """A dealer's stub for simulations: shuffled by a seeded rng, refilled on reshuffle."""

    def __init__(self, rng: random.Random, cards: tuple[Card, ...] = FULL_DECK) -> None:
        self.rng = rng
        self.cards = list(cards)
        rng.shuffle(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return self

    def __next__(self) -> Card:
        return self.cards.pop()

    def put_back(self, cards: tuple[Card, ...]) -> None:
        self.cards.extend(cards)
        self.rng.shuffle(self.cards)


class PinnedStub(ShuffledStub):
    """Cards in exactly the given order (top first)."""

    def __init__(self, cards: list[Card]) -> None:
        self.rng = random.Random(0)
        self.cards = list(reversed(cards))


def random_policy(rng: random.Random):
    def choose(state: TableState, legal: LegalActions) -> Act:
        action = rng.choice(sorted(legal.actions))
        amount = None
        cards: tuple[Card, ...] = ()
        if action in (Action.BET, Action.RAISE):
            amount = rng.randint(legal.min_to, legal.max_to)
        if action in (Action.DISCARD, Action.OPEN_DISCARD):
            n = rng.randint(legal.min_discards, legal.max_discards)
            cards = tuple(rng.sample(legal.discardable, n))
        return Act(legal.seat, action, amount, cards)

    return choose


def seated_table(config: TableConfig, stacks: list[int | None]) -> tuple[TableState, list[Event]]:
    state = new_table(config)
    log: list[Event] = [TableOpened(config)]
    for seat, stack in enumerate(stacks):
        if stack is not None:
            events = decide(state, SitDown(seat, f"p{seat}", stack))
            log += events
            state = apply_all(state, events)
    return state, log


def run(
    state: TableState, command, log: list[Event] | None = None
) -> tuple[TableState, list[Event]]:
    events = decide(state, command)
    if log is not None:
        log.extend(events)
    return apply_all(state, events), events
