"""Test helpers: a shuffled stub, a random legal player, tables and a scripted-hand driver."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence

from services.games.cardtext import FULL_DECK, Card
from services.games.poker import (
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
from services.games.poker.commands import Command
from services.games.poker.events import Event, TableOpened
from services.games.ranking import HandRanker


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


def random_policy(rng: random.Random) -> Callable[[TableState, LegalActions], Act]:
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


def seated_table(
    config: TableConfig, stacks: Sequence[int | None]
) -> tuple[TableState, list[Event]]:
    state = new_table(config)
    log: list[Event] = [TableOpened(config)]
    for seat, stack in enumerate(stacks):
        if stack is not None:
            events = decide(state, SitDown(seat, f"p{seat}", stack))
            log += events
            state = apply_all(state, events)
    return state, log


def run(
    state: TableState, command: Command, log: list[Event] | None = None
) -> tuple[TableState, list[Event]]:
    events = decide(state, command)
    if log is not None:
        log.extend(events)
    return apply_all(state, events), events


def seat_stacks(state: TableState, count: int) -> list[int]:
    """The stacks of seats 0 to count - 1, every one of them taken."""
    result = []
    for i in range(count):
        seat = state.seats[i]
        assert seat is not None
        result.append(seat.stack)
    return result


def cards(text: str) -> tuple[Card, ...]:
    compact = "".join(text.split())
    return tuple(compact[i : i + 2] for i in range(0, len(compact), 2))


class Scenario:
    """A hand with chosen cards: `hole` per seat, the `boards` in dealing order and each
    seat's replacement `draws`; everything else comes from unused filler cards. Reads as
    given (config, stacks, cards) / when (act) / then (events, state)."""

    def __init__(
        self,
        config: TableConfig,
        stacks: Sequence[int | None],
        hole: dict[int, str] | None = None,
        boards: list[str] | None = None,
        draws: dict[int, str] | None = None,
        ranker: HandRanker | None = None,
    ) -> None:
        from services.games.reference_ranking import ReferenceRanker

        self.hole = {s: cards(t) for s, t in (hole or {}).items()}
        self.boards = [cards(b) for b in (boards or [])]
        self.draws = {s: list(cards(t)) for s, t in (draws or {}).items()}
        reserved = {c for group in (*self.hole.values(), *self.boards) for c in group}
        reserved |= {c for group in self.draws.values() for c in group}
        self.filler = [c for c in FULL_DECK if c not in reserved]
        self.ranker: HandRanker = ranker or ReferenceRanker()
        self.state, self.log = seated_table(config, stacks)
        self.events: list[Event] = []

    def do(self, command: Command) -> list[Event]:
        self.state, self.events = run(self.state, command, self.log)
        return self.events

    def start(self) -> Scenario:
        from services.games.poker import StartHand

        self.do(StartHand())
        self.settle()
        return self

    def act(
        self, seat: int, action: str, amount: int | None = None, cards_: str = ""
    ) -> list[Event]:
        events = self.do(Act(seat, action, amount, cards(cards_)))
        return events + self.settle()

    def show_all(self) -> None:
        """Every seat asked at showdown shows, in showdown order."""
        while self.state.hand is not None and self.state.hand.to_act is not None:
            self.act(self.state.hand.to_act, "show")

    def _take(self, n: int) -> tuple[Card, ...]:
        taken = tuple(self.filler[:n])
        del self.filler[:n]
        return taken

    def settle(self) -> list[Event]:
        """Answer every pending chance request (cards, reshuffles, ranks) from the plan."""
        from services.games.poker import (
            DealCards,
            NeedCards,
            NeedRanks,
            NeedReshuffle,
            ReshuffleDiscards,
            pending_chance,
            rank_hands,
        )

        produced: list[Event] = []
        while True:
            request = pending_chance(self.state)
            command: Command
            if isinstance(request, NeedCards):
                deals = []
                for target, n in request.targets:
                    if target is None:
                        planned = self.boards.pop(0) if self.boards else self._take(n)
                    elif self.state.hand and self.state.phase().__class__.__name__ == "Draw":
                        plan = self.draws.get(target, [])
                        planned = tuple(plan[:n]) + self._take(max(0, n - len(plan)))
                        del plan[:n]
                    else:
                        planned = self.hole.get(target) or self._take(n)
                    deals.append((target, planned))
                command = DealCards(tuple(deals), self._take(request.burn))
            elif isinstance(request, NeedReshuffle):
                self.filler += list(request.discards)
                command = ReshuffleDiscards(request.discards)
            elif isinstance(request, NeedRanks):
                command = rank_hands(self.state, self.ranker)
            else:
                return produced
            produced += self.do(command)
