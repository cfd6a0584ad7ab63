"""Poker behind the table contract: `RULES`, the `GameRules` the table shell drives.

The contract's commands become the engine's (a `Move` carrying a `PokerMove` is an `Act`, a
`TimeOut` naming the current deadline is the engine's `TimeOut`, `AddChips` a `TopUp`); the
chance answers are checked in answers.py, the requests made in requests.py; the state is the
engine's plus the process bookkeeping around hands (table.py). Legality, views and redaction
are the engine's own (`legal_actions`, `view_for`, `redact`).
"""

from __future__ import annotations

from collections.abc import Sequence

from services.games import contract as c
from services.games import ranking
from services.games.errors import InvalidAction, NotAllowedNow
from services.games.poker import commands as cmd
from services.games.poker import definitions as poker_definitions
from services.games.poker import events as poker_events
from services.games.poker import state as poker_state
from services.games.poker.answers import answer
from services.games.poker.chance import pending_chance as engine_request
from services.games.poker.definitions import TableConfig
from services.games.poker.events import Event, PlayerLeft
from services.games.poker.legal import LegalActions, legal_actions
from services.games.poker.live import table as live_table
from services.games.poker.moves import InHand, PokerMove, PostBigBlind
from services.games.poker.requests import pending_chance
from services.games.poker.rules import decide as engine_decide
from services.games.poker.table import PokerTable, apply, new_poker_table
from services.games.poker.views import View, redact, view_for
from services.games.state_codec import StateCodec, decode_as

_ANSWERS = (
    c.ShuffleOpened,
    c.CardsDrawn,
    c.CardsReturned,
    c.ShuffleClosed,
    c.TransferDone,
    c.Evaluated,
    c.RoundStarts,
)


class PokerRules:
    """The `GameRules` of every poker variant (services.games.contract)."""

    name = "poker"

    def initial_state(self, config: TableConfig) -> PokerTable:
        return new_poker_table(config)

    def decide(self, state: PokerTable, command: c.Command) -> list[Event]:
        if state.live is not None:
            return live_table.decide(state, command, self._decide)
        if isinstance(command, c.Report):
            raise NotAllowedNow(
                "this table's cards come from the dealer service: only a table created with "
                "live_dealer takes a dealer's reports"
            )
        return self._decide(state, command)

    def _decide(self, state: PokerTable, command: c.Command) -> list[Event]:
        engine = state.engine
        if isinstance(command, c.Move):
            return engine_decide(engine, _act(command))
        if isinstance(command, _ANSWERS):
            return answer(state, command)
        if isinstance(command, c.TimeOut):
            owed = {d.id for d in self.deadlines(state) if d.seat == command.seat}
            if command.deadline not in owed:
                return []  # made already, or another decision's: a stale timer
            assert engine.hand is not None  # a deadline is owed only during a hand
            return engine_decide(engine, cmd.TimeOut(command.seat, engine.hand.number))
        if isinstance(command, c.SitDown):
            return engine_decide(engine, cmd.SitDown(command.seat, command.player, command.stack))
        if isinstance(command, c.Leave):
            return engine_decide(engine, cmd.LeaveTable(command.seat, command.by))
        if isinstance(command, c.SitOut):
            return engine_decide(engine, cmd.SitOut(command.seat, command.by))
        if isinstance(command, c.SitIn):
            if command.option is not None and not isinstance(command.option, PostBigBlind):
                raise InvalidAction(
                    f"a poker sit-in option is PostBigBlind, not {type(command.option).__name__}"
                )
            posts = command.option is not None
            return engine_decide(engine, cmd.SitIn(command.seat, posts, command.by))
        if isinstance(command, c.AddChips):
            return engine_decide(engine, cmd.TopUp(command.seat, command.amount, command.by))
        if isinstance(command, c.Void):
            if engine.hand is None:
                return []  # no hand to void: nothing is owed
            return engine_decide(engine, cmd.VoidHand(command.reason))
        raise InvalidAction(f"poker does not take {type(command).__name__}")

    def apply(self, state: PokerTable, event: Event) -> PokerTable:
        if state.live is not None:
            return live_table.apply(state, event)
        return apply(state, event)

    def to_act(self, state: PokerTable) -> frozenset[int]:
        engine = state.engine
        hand = engine.hand
        if hand is None or hand.to_act is None or engine_request(engine) is not None:
            return frozenset()  # no hand, or it waits for the dealer or the evaluator
        return frozenset((hand.to_act,))

    def legal_moves(self, state: PokerTable, participant: int) -> LegalActions:
        return legal_actions(state.engine, participant)

    def view_for(self, state: PokerTable, viewer: c.Viewer) -> View:
        return view_for(state.engine, viewer)

    def redact(self, event: Event, viewer: c.Viewer) -> Event | None:
        return redact(event, viewer)

    def pending_chance(self, state: PokerTable) -> c.ChanceRequest | None:
        if state.live is not None:
            return live_table.pending_chance(state)
        return pending_chance(state)

    def deadlines(self, state: PokerTable) -> Sequence[c.Deadline]:
        """The one seat to act owes its decision within the table's action time, which its
        time bank may extend; the id is the hand and the decision's number in it."""
        hand = state.engine.hand
        if hand is None:
            return []
        decision = f"{hand.number}/{state.decisions + 1}"
        return [c.Deadline(seat, decision, None, time_bank=True) for seat in self.to_act(state)]

    def seats(self, state: PokerTable) -> Sequence[c.SeatSummary]:
        engine = state.engine
        dealt = {p.seat for p in engine.hand.players} if engine.hand else set()
        return [
            c.SeatSummary(seat, s.player, s.stack, s.sitting_out, seat in dealt)
            for seat, s in enumerate(engine.seats)
            if s is not None
        ]

    def cash_out(self, event: Event) -> c.CashOut | None:
        if isinstance(event, PlayerLeft) and event.stack > 0:
            return c.CashOut(event.seat, event.player, event.stack)
        return None

    def encode_state(self, state: PokerTable) -> bytes:
        return _CODEC.encode(state)

    def decode_state(self, data: bytes) -> PokerTable:
        return decode_as(_CODEC, data, PokerTable)


def _act(command: c.Move) -> cmd.Act:
    move = command.move
    if not isinstance(move, PokerMove):
        raise InvalidAction(f"a poker move is a PokerMove, not {type(move).__name__}")
    pin = command.precondition
    if pin is not None and not isinstance(pin, InHand):
        raise InvalidAction(f"a poker move's precondition is InHand, not {type(pin).__name__}")
    hand = pin.hand if pin is not None else None
    return cmd.Act(command.seat, move.action, move.amount, tuple(move.cards), hand, command.by)


RULES = PokerRules()

# The records of a poker table's state (a new field or record shape bumps the version).
_CODEC = StateCodec("poker", 2, (poker_definitions, poker_events, ranking, poker_state))
