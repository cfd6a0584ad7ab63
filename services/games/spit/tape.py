"""The working state of one `decide`: events are folded in as they are emitted, so each
automatic consequence (a card turning up, a spit, the end of the deal) is decided against the
state its cause left. Nothing escapes `decide` but the list of events."""

from __future__ import annotations

from services.games.spit.events import SpitEvent
from services.games.spit.reducer import apply
from services.games.spit.state import Deal, Game, SpitState


class Tape:
    __slots__ = ("events", "state")

    def __init__(self, state: SpitState) -> None:
        self.state = state
        self.events: list[SpitEvent] = []

    def emit(self, event: SpitEvent) -> None:
        self.events.append(event)
        self.state = apply(self.state, event)

    @property
    def game(self) -> Game:
        game = self.state.game
        assert game is not None
        return game

    @property
    def deal(self) -> Deal:
        return self.game.deal
