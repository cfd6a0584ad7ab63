"""Test support for Spit: a seeded stand-in for the dealer (the rules never shuffle), a table
that feeds the rules the way the shell will, a builder for positions in the middle of a deal,
and the independent checks the simulations run at every event."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from services.games import contract as c
from services.games.spit import RULES, SpitConfig, SpitEvent, SpitState, Variation, execute
from services.games.spit.cards import FULL_DECK, VALID_CARDS
from services.games.spit.reducer import leftovers
from services.games.spit.state import Deal, Game, Middle, Phase, Place, Seat, Side


class Dealer:
    """Answers the rules' chance requests as the dealer service would: a shuffle per name,
    seeded here (or pinned: `orders[name]` is the order a named shuffle deals in)."""

    def __init__(self, seed: int = 0, orders: dict[str, list[str]] | None = None) -> None:
        self.rng = random.Random(seed)
        self.orders = dict(orders or {})
        self.decks: dict[tuple[int, str], list[str]] = {}
        self.dealt: dict[tuple[int, str], list[str]] = {}

    def answer(self, request: c.ChanceRequest) -> c.Command:
        if isinstance(request, c.StartRound):
            return c.RoundStarts(request.round)
        assert isinstance(request, c.OpenShuffle | c.DrawCards | c.CloseShuffle), request
        key = (request.round, request.name)
        if isinstance(request, c.OpenShuffle):
            spec = request.deck
            cards = list(spec.cards) if spec.cards else list(FULL_DECK) * spec.copies
            pinned = self.orders.pop(request.name, None)
            if pinned is not None:
                assert Counter(pinned) == Counter(cards), f"pinned order is not {request.name}"
                cards = list(pinned)
            else:
                self.rng.shuffle(cards)
            self.decks[key] = cards
            self.dealt[key] = list(cards)
            digest = hashlib.sha256(" ".join(cards).encode()).hexdigest()
            return c.ShuffleOpened(request.round, request.name, f"{key[0]}/{key[1]}", digest)
        if isinstance(request, c.DrawCards):
            deck = self.decks[key]
            taken, self.decks[key] = (
                deck[: request.burn + request.count],
                deck[request.burn + request.count :],
            )
            return c.CardsDrawn(request.round, request.name, tuple(taken), request.burn)
        if isinstance(request, c.CloseShuffle):
            reveal = json.dumps({"order": self.dealt[key]})
            return c.ShuffleClosed(request.round, request.name, reveal)
        raise AssertionError(f"unexpected request {request!r}")


@dataclass
class Table:
    """The rules driven the way the shell drives them: decide, append, fold."""

    config: SpitConfig = field(default_factory=SpitConfig)
    dealer: Dealer = field(default_factory=Dealer)
    state: SpitState = field(init=False)
    events: list[SpitEvent] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.state = RULES.initial_state(self.config)

    def run(self, command: c.Command) -> list[SpitEvent]:
        self.state, events = execute(self.state, command)
        self.events.extend(events)
        return events

    def settle(self, next_game: bool = False) -> None:
        """Answer the dealer's requests until the game waits for the players (or, once a game
        is over, for the next game's start unless `next_game`)."""
        while (request := RULES.pending_chance(self.state)) is not None:
            if isinstance(request, c.StartRound) and self.state.game and not next_game:
                return
            self.run(self.dealer.answer(request))

    def seat_both(self, stack: int = 100) -> None:
        self.run(c.SitDown(0, "ann", stack))
        self.run(c.SitDown(1, "bob", stack))
        self.settle()

    def move(self, seat: int, move: object, precondition: object = None) -> list[SpitEvent]:
        return self.run(c.Move(seat, move, precondition=precondition))

    @property
    def deal(self) -> Deal:
        assert self.state.game is not None
        return self.state.game.deal


def layout_order(piles: int, places: list[list[str]], spit: list[str]) -> list[str]:
    """The order a player's cards must be dealt in to lay out `places` (bottom first) and
    `spit` (next first): the inverse of the patience deal in layout.py."""
    order: list[str] = []
    stacks = [list(p) for p in places]
    for row in range(piles):
        for pile in range(row, piles):
            if row < len(stacks[pile]):
                order.append(stacks[pile][row])
    return order + spit


def fill(cards: list[str], used: Iterable[str]) -> list[str]:
    """`cards` with each "*" replaced by an unused card, lowest first (deterministic)."""
    taken = set(used) | {card for card in cards if card != "*"}
    spare = iter(card for card in FULL_DECK if card not in taken)
    return [next(spare) if card == "*" else card for card in cards]


def position(
    places: tuple[list[str], list[str]],
    middle: list[str],
    spit: tuple[list[str], list[str]] = ([], []),
    config: SpitConfig | None = None,
    one_pile_starter: int | None = None,
    stacks: tuple[list[str], list[str]] = ([], []),
) -> SpitState:
    """A deal being played: each place is written "down,down,UP" bottom first ("" empty);
    `middle` gives each middle pile bottom first ("5c,6d")."""
    config = config or SpitConfig()

    def place(text: str) -> Place:
        cards = [card for card in text.split(",") if card]
        return Place(tuple(cards[:-1]), cards[-1]) if cards else Place()

    sides = tuple(
        Side(tuple(place(p) for p in places[s]), tuple(spit[s]), dealt=True, ready=True)
        for s in (0, 1)
    )
    piles: tuple[Middle, ...]
    if one_pile_starter is not None:
        piles = (Middle(tuple(middle[0].split(",")), one_pile_starter),)
    else:
        starters = (None, None) if config.variation is Variation.SPEED else (0, 1)
        piles = tuple(Middle(tuple(m.split(",")), starters[i]) for i, m in enumerate(middle))
    deal = Deal(
        number=1,
        phase=Phase.PLAYING,
        sides=(sides[0], sides[1]),
        middle=piles,
        stacks=(tuple(stacks[0]), tuple(stacks[1])) if config.variation is Variation.SPEED else (),
        one_pile=one_pile_starter is not None,
    )
    game = Game(number=1, stake=config.stake, deal=deal)
    return SpitState(
        config, (Seat("ann", 100 - config.stake), Seat("bob", 100 - config.stake)), game, 1, 1
    )


# --- invariants ------------------------------------------------------------------------------


def cards_held(state: SpitState) -> Counter[str]:
    """Every card the state holds: layouts, spit cards, middle, side stacks, gathered cards,
    and, between deals, what each player collected."""
    held: Counter[str] = Counter()
    game = state.game
    if game is None:
        return held
    deal = game.deal
    for seat, side in enumerate(deal.sides):
        if side.dealt:
            held.update(leftovers(side))
        elif deal.decks:
            held.update(deal.decks[seat])
    for pile in deal.middle:
        held.update(pile.cards)
    for stack in deal.stacks:
        held.update(stack)
    for cards in deal.gathered:
        held.update(cards)
    return held


def visible_cards(state: SpitState, viewer: int | None) -> set[str]:
    """What `viewer` may see, computed from the state on its own: the middle piles, every
    face-up top card (a Speed hand only by its owner)."""
    game = state.game
    if game is None:
        return set()
    deal = game.deal
    seen: set[str] = set()
    for pile in deal.middle:
        seen.update(pile.cards)
    for seat, side in enumerate(deal.sides):
        if state.config.variation is Variation.SPEED and viewer != seat:
            continue
        seen.update(p.up for p in side.places if p.up is not None)
    return seen


_FIELDS: dict[type, tuple[str, ...]] = {}


def cards_in(value: Any) -> list[str]:
    """Every card string anywhere inside a record (views, events, moves): walks tuples, lists
    and dataclasses."""
    found: list[str] = []
    todo = [value]
    while todo:
        item = todo.pop()
        kind = type(item)
        if kind is str:
            if item in VALID_CARDS:
                found.append(item)
        elif kind is tuple or kind is list:
            todo.extend(item)
        elif item is not None and not isinstance(item, int):
            names = _FIELDS.get(kind)
            if names is None:
                names = _FIELDS[kind] = tuple(getattr(kind, "__dataclass_fields__", ()))
            todo.extend(getattr(item, name) for name in names)
    return found
