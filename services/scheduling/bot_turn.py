"""A bot's turn as the table schedules it and a worker plays it: keyed by (table, hand, action
number), so every delivery of one turn is the same turn (the workers' claims and the Act's
idempotency key both derive from the key)."""

from __future__ import annotations

import json
from dataclasses import dataclass


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
