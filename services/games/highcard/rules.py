"""High card behind the table contract: `RULES`, the `GameRules` the table shell drives."""

from __future__ import annotations

from collections.abc import Sequence

from services.games import contract as c
from services.games import ranking
from services.games.highcard import chance, views
from services.games.highcard import config as hc_config
from services.games.highcard import events as hc_events
from services.games.highcard import state as hc_state
from services.games.highcard.config import HighCardConfig
from services.games.highcard.decide import decide
from services.games.highcard.events import Event, PlayerLeft
from services.games.highcard.moves import LegalMoves
from services.games.highcard.reducer import apply
from services.games.highcard.state import HighCardState
from services.games.state_codec import StateCodec, decode_as


class HighCardRules:
    """The `GameRules` of heads-up high card (services.games.contract)."""

    name = "high-card"

    def initial_state(self, config: HighCardConfig) -> HighCardState:
        return HighCardState(config)

    def decide(self, state: HighCardState, command: c.Command) -> Sequence[Event]:
        return decide(state, command)

    def apply(self, state: HighCardState, event: Event) -> HighCardState:
        return apply(state, event)

    def to_act(self, state: HighCardState) -> frozenset[int]:
        return views.to_act(state)

    def legal_moves(self, state: HighCardState, participant: int) -> LegalMoves:
        return views.legal_moves(state, participant)

    def view_for(self, state: HighCardState, viewer: c.Viewer) -> views.HighCardView:
        return views.view_for(state, viewer)

    def redact(self, event: Event, viewer: c.Viewer) -> Event | None:
        return views.redact(event, viewer)

    def pending_chance(self, state: HighCardState) -> c.ChanceRequest | None:
        return chance.pending_chance(state)

    def deadlines(self, state: HighCardState) -> Sequence[c.Deadline]:
        return views.deadlines(state)

    def seats(self, state: HighCardState) -> Sequence[c.SeatSummary]:
        return views.seats(state)

    def cash_out(self, event: Event) -> c.CashOut | None:
        if isinstance(event, PlayerLeft) and event.stack > 0:
            return c.CashOut(event.seat, event.player, event.stack)
        return None

    def encode_state(self, state: HighCardState) -> bytes:
        return _CODEC.encode(state)

    def decode_state(self, data: bytes) -> HighCardState:
        return decode_as(_CODEC, data, HighCardState)


RULES = HighCardRules()

# The records of a high-card state (a new field or record shape bumps the version).
_CODEC = StateCodec("high-card", 1, (hc_config, hc_events, hc_state, ranking))
