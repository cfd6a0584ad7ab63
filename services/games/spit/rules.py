"""Spit behind the one game contract (`services.games.contract.GameRules`): the object the
table shell holds for the game "spit" (Bicycle's Spit and Speed are its variations)."""

from __future__ import annotations

from collections.abc import Sequence

from services.games.contract import (
    CashOut,
    ChanceRequest,
    Deadline,
    GameRules,
    Participant,
    SeatSummary,
    Viewer,
)
from services.games.contract import Command as ContractCommand
from services.games.spit import chance, reducer, views
from services.games.spit import config as spit_config
from services.games.spit import events as spit_events
from services.games.spit import state as spit_state
from services.games.spit.acting import deadlines, to_act
from services.games.spit.config import SpitConfig
from services.games.spit.decide import decide as decide_command
from services.games.spit.events import PlayerLeft, SpitEvent
from services.games.spit.moves import SpitMove
from services.games.spit.play import legal_moves as moves_of
from services.games.spit.state import SpitState
from services.games.state_codec import StateCodec, decode_as


def seats(state: SpitState) -> list[SeatSummary]:
    return [
        SeatSummary(i, s.player, s.stack, s.sitting_out, in_round=state.playing)
        for i, s in enumerate(state.seats)
        if s is not None
    ]


class SpitRules:
    name = "spit"

    def initial_state(self, config: SpitConfig) -> SpitState:
        return SpitState(config.checked())

    def decide(self, state: SpitState, command: ContractCommand) -> Sequence[SpitEvent]:
        return decide_command(state, command)

    def apply(self, state: SpitState, event: SpitEvent) -> SpitState:
        return reducer.apply(state, event)

    def to_act(self, state: SpitState) -> frozenset[Participant]:
        return to_act(state)

    def legal_moves(self, state: SpitState, participant: Participant) -> tuple[SpitMove, ...]:
        return moves_of(state, participant)

    def view_for(self, state: SpitState, viewer: Viewer) -> views.SpitView:
        return views.view_for(state, viewer)

    def redact(self, event: SpitEvent, viewer: Viewer) -> SpitEvent | None:
        return views.redact(event, viewer)

    def pending_chance(self, state: SpitState) -> ChanceRequest | None:
        return chance.pending_chance(state)

    def deadlines(self, state: SpitState) -> Sequence[Deadline]:
        return deadlines(state)

    def seats(self, state: SpitState) -> Sequence[SeatSummary]:
        return seats(state)

    def cash_out(self, event: SpitEvent) -> CashOut | None:
        """A seat freed (`PlayerLeft`) takes its stack away; no other event moves chips out."""
        if isinstance(event, PlayerLeft):
            return CashOut(event.seat, event.player, event.stack)
        return None

    def encode_state(self, state: SpitState) -> bytes:
        return _CODEC.encode(state)

    def decode_state(self, data: bytes) -> SpitState:
        return decode_as(_CODEC, data, SpitState)


RULES = SpitRules()
_CHECKED: GameRules[SpitConfig, SpitState, SpitEvent, views.SpitView, tuple[SpitMove, ...]] = RULES

# The records of a Spit state (a new field or record shape bumps the version).
_CODEC = StateCodec("spit", 1, (spit_config, spit_events, spit_state))
