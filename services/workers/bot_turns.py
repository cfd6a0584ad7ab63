"""A bot's turn as a task: keyed by (table, hand, action number) so a duplicate runs once.

The worker plays the bot through the public TableService API (GetTableView -> choose -> Act),
exactly as a human client would. Two guards make a duplicate harmless: a Redis claim on the
turn's key (a duplicate delivery finds it taken and does nothing) and the Act idempotency key
derived from the same triple (even two concurrent runs that both got past the claim would be
applied once by the table).
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from typing import Protocol

import redis


@dataclass(frozen=True, slots=True)
class BotTurn:
    """One decision a bot seat owes the table."""

    table_id: str
    hand_number: int
    action_number: int
    seat: int
    bot_id: str
    policy: str
    difficulty: float = 0.5

    @property
    def key(self) -> str:
        return f"{self.table_id}/{self.hand_number}/{self.action_number}"

    @property
    def idempotency_key(self) -> str:
        """The Act idempotency key: the same for every delivery of this turn."""
        return f"bot/{self.key}"

    def encode(self) -> str:
        return json.dumps(
            {
                "t": self.table_id,
                "h": self.hand_number,
                "a": self.action_number,
                "s": self.seat,
                "b": self.bot_id,
                "p": self.policy,
                "d": self.difficulty,
            },
            sort_keys=True,
            separators=(",", ":"),
        )

    @classmethod
    def decode(cls, raw: str | bytes) -> BotTurn:
        data = json.loads(raw)
        return cls(
            table_id=str(data["t"]),
            hand_number=int(data["h"]),
            action_number=int(data["a"]),
            seat=int(data["s"]),
            bot_id=str(data["b"]),
            policy=str(data["p"]),
            difficulty=float(data["d"]),
        )


DEFAULT_POLICY = "tight"
DEFAULT_DIFFICULTY = 0.5


def bot_id(policy: str, name: str, difficulty: float = DEFAULT_DIFFICULTY) -> str:
    """The player id of a built-in bot: `bot-<policy>-<difficulty in percent>-<name>`.

    Only letters, digits and dashes, so it is safe inside ledger account ids.
    """
    return f"bot-{policy}-{round(difficulty * 100)}-{name}"


def bot_identity(player: str) -> tuple[str, float]:
    """Policy and difficulty a built-in bot's player id names (see `bot_id`).

    Any other id (an external bot) plays the default policy if the table asks the workers.
    """
    parts = player.split("-", 3)
    if len(parts) == 4 and parts[0] == "bot" and parts[1] and parts[2].isdigit():
        return parts[1], min(100, int(parts[2])) / 100
    return DEFAULT_POLICY, DEFAULT_DIFFICULTY


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
