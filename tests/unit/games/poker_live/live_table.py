"""A live-dealer hold'em table driven through the poker rules' contract, as the table shell
drives it: chance answered (hand starts, ranks), the dealer's reports and the players' moves
sent as commands, every event folded in."""

from __future__ import annotations

from dataclasses import dataclass, field

from services.games import contract as c
from services.games import ranking
from services.games.poker import TEXAS_HOLDEM, TableConfig
from services.games.poker.definitions import ForcedBets, GameDefinition
from services.games.poker.events import Event
from services.games.poker.game_rules import RULES
from services.games.poker.live.reports import BOARD, BURN, SEAT, DealtCard, Irregularity
from services.games.poker.moves import PokerMove
from services.games.poker.table import PokerTable
from services.games.reference_ranking import ReferenceRanker

_RANKER = ReferenceRanker()


def live_config(seats: int = 3, game: GameDefinition = TEXAS_HOLDEM) -> TableConfig:
    if game.forced_bets is ForcedBets.ANTES:
        return TableConfig(game=game, seats=seats, ante=1, live_dealer=True)
    return TableConfig(game=game, seats=seats, small_blind=1, big_blind=2, live_dealer=True)


@dataclass
class LiveTable:
    state: PokerTable
    events: list[Event] = field(default_factory=list)

    def send(self, command: c.Command, answer: bool = True) -> list[Event]:
        events = list(RULES.decide(self.state, command))
        for event in events:
            self.state = RULES.apply(self.state, event)
        self.events += events
        if answer:
            self.answer_chance()
        return events

    def answer_chance(self) -> None:
        """Answer what the table asks the outside world for (never cards: the dealer
        reports those)."""
        while (request := RULES.pending_chance(self.state)) is not None:
            if isinstance(request, c.StartRound):
                answer: c.Command = c.RoundStarts(request.round)
            elif isinstance(request, c.Evaluate):
                ranks = tuple(ranking.rank_with(_RANKER, r) for r in request.requests)
                answer = c.Evaluated(ranks)
            elif isinstance(request, c.Transfer):
                answer = c.TransferDone(request.key)
            else:
                raise AssertionError(f"a live table asked for {request}")
            events = list(RULES.decide(self.state, answer))
            for event in events:
                self.state = RULES.apply(self.state, event)
            self.events += events

    # --- the dealer ------------------------------------------------------------------------

    def hole(self, card: str, seat: int, face_up: bool = False) -> list[Event]:
        return self.send(c.Report(DealtCard(card, SEAT, seat, face_up), by="dealer"))

    def board(self, card: str) -> list[Event]:
        return self.send(c.Report(DealtCard(card, BOARD), by="dealer"))

    def burn(self, card: str) -> list[Event]:
        return self.send(c.Report(DealtCard(card, BURN), by="dealer"))

    def misdeal(self, reason: str) -> list[Event]:
        return self.send(c.Report(Irregularity("misdeal", reason), by="dealer"))

    def deal_holes(self, cards: str) -> None:
        """Two face-down cards each, one at a time in dealing order (`cards` space-separated)."""
        order = self.order()
        for i, card in enumerate(cards.split()):
            self.hole(card, order[i % len(order)])

    def street(self, burn: str, cards: str) -> None:
        self.burn(burn)
        for card in cards.split():
            self.board(card)

    # --- the players ----------------------------------------------------------------------

    def act(self, action: str, amount: int | None = None) -> list[Event]:
        seat = self.to_act()
        return self.send(c.Move(seat, PokerMove(action, amount), by=f"p{seat}"))

    def discard(self, cards: str = "", action: str = "discard") -> list[Event]:
        """The seat to act discards `cards` (space-separated; none: stands pat)."""
        seat = self.to_act()
        move = PokerMove(action, None, tuple(cards.split()))
        return self.send(c.Move(seat, move, by=f"p{seat}"))

    def exposed(self, card: str, kind: str = "card_exposed") -> list[Event]:
        return self.send(c.Report(Irregularity(kind, "", card=card), by="dealer"))

    def to_act(self) -> int:
        (seat,) = RULES.to_act(self.state)
        return seat

    # --- what the table holds ---------------------------------------------------------------

    def order(self) -> tuple[int, ...]:
        hand = self.state.engine.hand
        assert hand is not None
        return tuple(p.seat for p in hand.clockwise_from(hand.button))

    def deal_round_robin(self, cards: str) -> None:
        """Face-down cards one at a time in dealing order (`cards` space-separated)."""
        order = self.order()
        for i, card in enumerate(cards.split()):
            self.hole(card, order[i % len(order)])

    def cards_of(self, seat: int) -> tuple[str, ...]:
        hand = self.state.engine.hand
        assert hand is not None
        return hand.player(seat).cards

    def chips(self) -> int:
        engine = self.state.engine
        behind = sum(s.stack for s in engine.seats if s is not None)
        return behind + (engine.hand.pot_total() if engine.hand else 0)

    def stacks(self) -> dict[int, int]:
        return {i: s.stack for i, s in enumerate(self.state.engine.seats) if s is not None}

    def committed(self) -> dict[int, int]:
        hand = self.state.engine.hand
        assert hand is not None
        return {p.seat: p.committed for p in hand.players}

    def kinds(self, events: list[Event] | None = None) -> list[str]:
        return [getattr(e, "kind", type(e).__name__) for e in (events or self.events)]


def seated_live_table(
    stacks: tuple[int, ...] = (100, 100, 100), game: GameDefinition = TEXAS_HOLDEM
) -> LiveTable:
    table = LiveTable(RULES.initial_state(live_config(len(stacks), game)))
    for seat, stack in enumerate(stacks):
        table.send(c.SitDown(seat, f"p{seat}", stack), answer=False)
    table.answer_chance()
    return table
