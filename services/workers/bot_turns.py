"""A bot's turn as a task: keyed by (table, hand, action number) so a duplicate runs once.

The worker plays the bot through the public TableService API (GetTableView -> choose -> Act),
exactly as a human client would. Two guards make a duplicate harmless: a Redis claim on the
turn's key (a duplicate delivery finds it taken and does nothing) and the Act idempotency key
derived from the same triple (even two concurrent runs that both got past the claim would be
applied once by the table).
"""

from __future__ import annotations

import enum
from typing import Protocol

import redis

from services.scheduling.bot_turn import BotTurn


class BotMoveOutcome(enum.Enum):
    ACTED = "acted"
    STALE = "stale"  # no longer this bot's decision (timed out, hand over): nothing sent
    DUPLICATE = "duplicate"  # another delivery of this turn ran or is running


class BotPlayer(Protocol):
    """Plays one turn through the table service as the bot."""

    def play(self, turn: BotTurn) -> BotMoveOutcome: ...


class TurnClaims:
    """Redis claims on turn keys: a lease while a delivery plays, a mark once it finished."""

    def __init__(
        self, client: redis.Redis, *, prefix: str = "croupier:workers:bot", lease: float = 30.0
    ) -> None:
        self._redis = client
        self._prefix = prefix
        self._lease_ms = int(lease * 1000)

    def claim(self, turn: BotTurn) -> bool:
        """True for exactly one delivery while the lease (or the done mark) lasts."""
        return bool(self._redis.set(self._name(turn), "playing", nx=True, px=self._lease_ms))

    def finish(self, turn: BotTurn) -> None:
        self._redis.set(self._name(turn), "done", ex=86_400)

    def release(self, turn: BotTurn) -> None:
        """Give the turn back after a failure, so a retry may play it."""
        self._redis.delete(self._name(turn))

    def _name(self, turn: BotTurn) -> str:
        return f"{self._prefix}:{turn.key}"


def play_once(turn: BotTurn, *, claims: TurnClaims, player: BotPlayer) -> BotMoveOutcome:
    if not claims.claim(turn):
        return BotMoveOutcome.DUPLICATE
    try:
        outcome = player.play(turn)
    except BaseException:
        claims.release(turn)
        raise
    claims.finish(turn)
    return outcome
