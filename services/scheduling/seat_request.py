"""One requested bot's seating as the table schedules it and a worker performs it: bot number
`index` of a table's `CreateTable.bots`, with the policy and difficulty it was asked for."""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class BotSeatRequest:
    table_id: str
    index: int
    policy: str
    difficulty: float

    def encode(self) -> str:
        """The request as one string (a resend index member)."""
        fields = [self.table_id, self.index, self.policy, self.difficulty]
        return json.dumps(fields, separators=(",", ":"))

    @classmethod
    def decode(cls, raw: str | bytes) -> BotSeatRequest:
        table_id, index, policy, difficulty = json.loads(raw)
        return cls(str(table_id), int(index), str(policy), float(difficulty))
