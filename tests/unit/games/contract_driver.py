"""Drive any game through the `GameRules` contract alone, as the table shell does: answer each
chance request from an in-memory dealer, ledger and ranker, and let a policy choose the moves.

Nothing here knows a game: it is the contract's own test double of the outside world, so a
test that passes through it shows the game needs nothing the contract does not say.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from services.games import contract as c
from services.games.cardtext import FULL_DECK, Card
from services.games.ranking import HandRanker, rank_with
from services.games.reference_ranking import ReferenceRanker

# A shuffle's cards for (round, name, deck): top of the deck first.
Shuffler = Callable[[int, str, c.DeckSpec], list[Card]]
# A participant's choice: a command (a Move or a TimeOut), given the state and who may act.
Chooser = Callable[[Any, int], c.Command]
ONE_DECK = c.DeckSpec()


def seeded_shuffler(seed: str) -> Shuffler:
    """Every shuffle ordered by its own rng, seeded from (seed, round, name)."""

    def shuffle(round_: int, name: str, deck: c.DeckSpec) -> list[Card]:
        cards = list(deck.cards) if deck.cards else list(FULL_DECK) * deck.copies
        random.Random(f"{seed}/{round_}/{name}").shuffle(cards)
        return cards

    return shuffle


@dataclass
class World:
    """The dealer, the ledger and the evaluator, as far as a game can tell."""

    shuffler: Shuffler
    ranker: HandRanker = field(default_factory=ReferenceRanker)
    decks: dict[tuple[int, str], list[Card]] = field(default_factory=dict)
    sealed: set[tuple[int, str]] = field(default_factory=set)
    closed: list[tuple[int, str]] = field(default_factory=list)
    transfers: list[c.Transfer] = field(default_factory=list)
    house: int = 0  # chips the house won (negative: paid out)

    def open(self, round_: int, name: str, deck: c.DeckSpec = ONE_DECK) -> None:
        self.decks.setdefault((round_, name), self.shuffler(round_, name, deck))

    def draw(self, round_: int, name: str, count: int) -> tuple[Card, ...]:
        deck = self.decks[(round_, name)]
        self.sealed.add((round_, name))
        taken = tuple(deck[:count])
        del deck[:count]
        return taken

    def put_back(self, round_: int, name: str, cards: Sequence[Card]) -> None:
        """The cards go under the undealt ones, and those are shuffled again."""
        deck = self.decks[(round_, name)]
        deck.extend(cards)
        random.Random(json.dumps([round_, name, len(deck)])).shuffle(deck)

    def answer(self, request: c.ChanceRequest) -> c.Command:
        if isinstance(request, c.OpenShuffle):
            self.open(request.round, request.name, request.deck)
            shuffle_id = f"{request.name}@{request.round}"
            return c.ShuffleOpened(request.round, request.name, shuffle_id, "c0")
        if isinstance(request, c.DrawCards):
            cards = self.draw(request.round, request.name, request.burn + request.count)
            return c.CardsDrawn(request.round, request.name, cards, request.burn)
        if isinstance(request, c.ReturnCards):
            self.put_back(request.round, request.name, request.cards)
            return c.CardsReturned(request.round, request.name, request.cards)
        if isinstance(request, c.CloseShuffle):
            self.closed.append((request.round, request.name))
            return c.ShuffleClosed(request.round, request.name, '{"revealed": true}')
        if isinstance(request, c.Transfer):
            self.transfers.append(request)
            sign = 1 if request.destination is c.Party.HOUSE else -1
            self.house += sign * request.amount
            return c.TransferDone(request.key)
        if isinstance(request, c.Evaluate):
            return c.Evaluated(tuple(rank_with(self.ranker, r) for r in request.requests))
        if isinstance(request, c.StartRound):
            return c.RoundStarts(request.round)
        raise AssertionError(request)


@dataclass
class Run:
    state: Any
    events: list[Any] = field(default_factory=list)
    requests: list[c.ChanceRequest] = field(default_factory=list)


def play(
    rules: c.GameRules[Any, Any, Any, Any, Any],
    state: Any,
    world: World,
    choose: Chooser,
    rounds: int,
    max_steps: int = 100_000,
    starts: Callable[[Any], int] | None = None,
) -> Run:
    """Answer chance and let `choose` move until `rounds` rounds have started and the table
    waits for nobody (or nothing more can happen). `starts` counts the rounds started so far
    (default: the StartRound requests answered)."""
    run = Run(state)
    started = 0
    for _ in range(max_steps):
        request = rules.pending_chance(run.state)
        if isinstance(request, c.StartRound):
            if started >= rounds:
                return run
            started += 1
        command: c.Command
        if request is not None:
            run.requests.append(request)
            command = world.answer(request)
        else:
            movers = sorted(rules.to_act(run.state))
            if not movers:
                return run
            command = choose(run.state, movers[0])
        step(rules, run, command)
    raise AssertionError(f"no end within {max_steps} steps")


def step(rules: c.GameRules[Any, Any, Any, Any, Any], run: Run, command: c.Command) -> list[Any]:
    events = list(rules.decide(run.state, command))
    for event in events:
        run.state = rules.apply(run.state, event)
    run.events += events
    return events


def replay(rules: c.GameRules[Any, Any, Any, Any, Any], config: Any, events: Sequence[Any]) -> Any:
    state = rules.initial_state(config)
    for event in events:
        state = rules.apply(state, event)
    return state
