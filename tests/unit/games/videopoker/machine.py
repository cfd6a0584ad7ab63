"""A small shell for the rules' tests: it answers `pending_chance` the way the table shell
will, with the dealer's own derivation (services.shuffles.derivation) for every shuffle and a
two-account ledger (the machine's escrow and the house) that moves each key once.

`decks` pins a shuffle's dealing order by name ("deal", "split", "line-2"): a test deck, the
way pokerkit tests deal named cards; every other shuffle is derived from a seed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from services.games import contract as c
from services.games.cards import parse_card
from services.games.videopoker import RULES, Deal, Hold, MachineConfig, MachineState
from services.games.videopoker.events import Event
from services.games.videopoker.state import STANDARD_DECK
from services.shuffles.derivation import commitment, derive_order


@dataclass
class Dealt:
    order: list[str]
    position: int = 0
    spec: tuple[str, ...] = ()


@dataclass
class Machine:
    config: MachineConfig = field(default_factory=MachineConfig)
    seed: bytes = b"machine-tests"
    decks: dict[str, Sequence[str]] = field(default_factory=dict)
    player: str = "alice"
    state: MachineState = field(init=False)
    events: list[Event] = field(default_factory=list)
    escrow: int = 0
    house: int = 0
    moved: dict[str, int] = field(default_factory=dict)
    shuffles: dict[tuple[int, str], Dealt] = field(default_factory=dict)
    requests: list[c.ChanceRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.state = RULES.initial_state(self.config)

    def do(self, command: c.Command) -> list[Event]:
        events = list(RULES.decide(self.state, command))
        for event in events:
            self.state = RULES.apply(self.state, event)
        self.events.extend(events)
        return events

    def sit(self, stack: int = 1000) -> None:
        self.escrow += stack  # the shell reserves the buy-in in the machine's escrow
        self.do(c.SitDown(0, self.player, stack))

    def deal(self, lines: int, coins: int, paytable: str = "jacks-9-6") -> int:
        self.do(c.Move(0, Deal(lines, coins, paytable), by=self.player))
        self.run()
        assert self.state.round is not None
        return self.state.round.number

    def hold(self, *positions: int) -> None:
        assert self.state.round is not None
        self.do(c.Move(0, Hold(self.state.round.number, positions), by=self.player))
        self.run()

    def run(self) -> None:
        """Answer every pending request until the machine waits for its player."""
        while (request := RULES.pending_chance(self.state)) is not None:
            self.requests.append(request)
            self.do(self.answer(request))

    def shuffle_id(self, number: int, name: str) -> str:
        return f"machine-1/{number}/{name}"

    def answer(self, request: c.ChanceRequest) -> c.Command:
        if isinstance(request, c.OpenShuffle):
            sid = self.shuffle_id(request.round, request.name)
            seed = hashlib.sha256(self.seed + sid.encode()).digest()
            spec = request.deck.cards or STANDARD_DECK
            if request.name in self.decks:
                order = list(self.decks[request.name])
            else:
                derived = derive_order(seed, sid, (), 0, [parse_card(t) for t in spec])
                order = [str(card) for card in derived]
            self.shuffles[(request.round, request.name)] = Dealt(order, 0, request.deck.cards)
            return c.ShuffleOpened(request.round, request.name, sid, commitment(sid, seed).hex())
        if isinstance(request, c.DrawCards):
            dealt = self.shuffles[(request.round, request.name)]
            cards = dealt.order[dealt.position : dealt.position + request.count]
            dealt.position += request.count
            return c.CardsDrawn(request.round, request.name, tuple(cards))
        if isinstance(request, c.Transfer):
            if request.key not in self.moved:
                self.moved[request.key] = request.amount
                sign = 1 if request.destination is c.Party.HOUSE else -1
                self.house += sign * request.amount
                self.escrow -= sign * request.amount
            return c.TransferDone(request.key)
        if isinstance(request, c.CloseShuffle):
            sid = self.shuffle_id(request.round, request.name)
            seed = hashlib.sha256(self.seed + sid.encode()).digest()
            # What the table shell records of a reveal (services/table/reveals.py).
            reveal = json.dumps(
                {
                    "shuffle_id": sid,
                    "commitment_hex": commitment(sid, seed).hex(),
                    "revealed_seed_hex": seed.hex(),
                    "contributions": [],
                }
            )
            return c.ShuffleClosed(request.round, request.name, reveal)
        raise AssertionError(f"video poker asked for {request!r}")
