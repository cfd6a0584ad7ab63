"""A bot's turn as a task: keyed by (table, hand, action number) so a duplicate runs once.

The worker plays the bot through the public TableService API (GetTableView -> choose -> Act),
exactly as a human client would. Two guards make a duplicate harmless: a Redis claim on the
turn's key (a duplicate delivery finds it taken and does nothing) and the Act idempotency key
derived from the same triple (even two concurrent runs that both got past the claim would be
applied once by the table).
"""

from __future__ import annotations

import enum
import logging
from typing import Protocol

from services.scheduling.bot_turn import BotTurn
from services.shared.redis_connection import SyncClient

log = logging.getLogger(__name__)


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
        self, client: SyncClient, *, prefix: str = "croupier:workers:bot", lease: float = 30.0
    ) -> None:
        self._redis = client
        self._prefix = prefix
        self._lease_ms = int(lease * 1000)

    def claim(self, turn: BotTurn, owner: str) -> bool:
        """True for one owner while the lease (or the done mark) lasts: the first to claim
        the turn, and again for that owner (a retry of the same task)."""
        name = self._name(turn)
        if self._redis.set(name, f"playing:{owner}", nx=True, px=self._lease_ms):
            return True
        return bool(self._redis.get(name) == f"playing:{owner}".encode())

    def finish(self, turn: BotTurn) -> None:
        self._redis.set(self._name(turn), "done", ex=86_400)

    def release(self, turn: BotTurn) -> None:
        """Give the turn back after a failure, so another delivery may play it."""
        self._redis.delete(self._name(turn))

    def _name(self, turn: BotTurn) -> str:
        return f"{self._prefix}:{turn.key}"


class Claims(Protocol):
    def claim(self, turn: BotTurn, owner: str) -> bool: ...

    def finish(self, turn: BotTurn) -> None: ...

    def release(self, turn: BotTurn) -> None: ...


def play_once(turn: BotTurn, *, claims: Claims, player: BotPlayer, owner: str) -> BotMoveOutcome:
    """Play the turn unless another delivery has it. The play's own failure is what the
    caller sees (an UNAVAILABLE table is retried): a claim that cannot be given back or
    marked done (Redis down too) only waits out its lease, and the owner's retry reclaims it."""
    if not claims.claim(turn, owner):
        return BotMoveOutcome.DUPLICATE
    try:
        outcome = player.play(turn)
    except BaseException:
        try:
            claims.release(turn)
        except Exception as exc:
            log.warning("bot turn %s: claim not released (%r); its lease expires", turn.key, exc)
        raise
    try:
        claims.finish(turn)
    except Exception as exc:
        log.warning("bot turn %s: played, not marked done (%r)", turn.key, exc)
    return outcome
