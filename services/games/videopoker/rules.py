"""Video poker behind the table contract: one seat playing against the house's pay table."""

from __future__ import annotations

from collections.abc import Sequence

from services.games.contract import (
    CashOut,
    ChanceRequest,
    Command,
    Deadline,
    SeatSummary,
    Viewer,
)
from services.games.state_codec import StateCodec, decode_as
from services.games.videopoker import chance, views
from services.games.videopoker import events as vp_events
from services.games.videopoker import moves as vp_moves
from services.games.videopoker import paytables as vp_paytables
from services.games.videopoker import state as vp_state
from services.games.videopoker.decide import decide
from services.games.videopoker.events import Event, PlayerLeft
from services.games.videopoker.moves import LegalMoves, MachineConfig
from services.games.videopoker.reducer import apply
from services.games.videopoker.state import MachineState


class VideoPokerRules:
    """The `GameRules` of video poker (services.games.contract)."""

    name = "video-poker"

    def initial_state(self, config: MachineConfig) -> MachineState:
        return MachineState(config)

    def decide(self, state: MachineState, command: Command) -> Sequence[Event]:
        return decide(state, command)

    def apply(self, state: MachineState, event: Event) -> MachineState:
        return apply(state, event)

    def to_act(self, state: MachineState) -> frozenset[int]:
        return views.to_act(state)

    def legal_moves(self, state: MachineState, participant: int) -> LegalMoves:
        return views.legal_moves(state, participant)

    def view_for(self, state: MachineState, viewer: Viewer) -> views.MachineView:
        return views.view_for(state, viewer)

    def redact(self, event: Event, viewer: Viewer) -> Event | None:
        return views.redact(event, viewer)

    def pending_chance(self, state: MachineState) -> ChanceRequest | None:
        return chance.pending_chance(state)

    def pending_chances(self, state: MachineState) -> Sequence[ChanceRequest]:
        """Every request that may be fetched at once, answered in order (chance.py)."""
        return chance.pending_chances(state)

    def deadlines(self, state: MachineState) -> Sequence[Deadline]:
        """None: a round waits for its hold however long it takes (a player who comes back
        finds the same cards), so nothing is ever decided for the player."""
        return ()

    def seats(self, state: MachineState) -> Sequence[SeatSummary]:
        return views.seats(state)

    def cash_out(self, event: Event) -> CashOut | None:
        """A player who left takes their credits (`PlayerLeft`, at once or when the round
        they were in ended)."""
        if isinstance(event, PlayerLeft):
            return CashOut(event.seat, event.player, event.stack)
        return None

    def encode_state(self, state: MachineState) -> bytes:
        return _CODEC.encode(state)

    def decode_state(self, data: bytes) -> MachineState:
        return decode_as(_CODEC, data, MachineState)


RULES = VideoPokerRules()

# The records of a video-poker state (a new field or record shape bumps the version).
_CODEC = StateCodec("video-poker", 1, (vp_events, vp_moves, vp_paytables, vp_state))
