"""When the sweeper may send a requested bot's seating trigger again after the bot gave up.

The sweeper re-sends `seat_bot` for every requested bot whose seating is still in the
seat-bot index (`resend_index`), because a trigger can be lost. A bot that *cannot* sit down
(the ledger refuses its account, or every try loses its seat) would otherwise be tried again
every resend period, forever. So each give-up is recorded here, and the next re-send waits
`backoff(n)` after the n-th one: 10 s, 20 s, 40 s, ... at most 10 minutes. A trigger that was
lost leaves no record and is re-sent after one resend period; a bot that finds the table
full leaves the index (the table triggers it again once a seat frees), which needs no
record.

A give-up counts only when its try was due: a try that was already on its way when the
previous give-up was recorded (a re-send from a rebuild that ran meanwhile, on a slow worker)
neither doubles the wait nor restarts it.

The record is a hint in the workers' Redis, like the deadline index: losing it costs at most
a few early re-sends, each harmless (a seating round issues and returns its chips once).
"""

from __future__ import annotations

from collections.abc import Sequence

from services.shared.redis_connection import SyncClient
from services.workers.ports import BotSeatRequest

BACKOFF_BASE_S = 10.0
BACKOFF_MAX_S = 600.0
# Records outlive the longest backoff by far, and a table that goes away leaves no clutter.
RECORD_TTL_S = 24 * 3600
DEFAULT_PREFIX = "croupier:workers:seat-bot-give-ups"


def backoff(give_ups: int) -> float:
    """How long after its `give_ups`-th give-up a bot waits for its next try (0: no wait)."""
    if give_ups <= 0:
        return 0.0
    return min(BACKOFF_MAX_S, BACKOFF_BASE_S * float(2 ** min(give_ups - 1, 16)))


def resend_due(give_ups: int, last_at: float, now: float) -> bool:
    return give_ups <= 0 or now >= last_at + backoff(give_ups)


def _member(request: BotSeatRequest) -> str:
    return f"{request.table_id}/{request.index}"


class RedisSeatGiveUps:
    """One small hash per bot that gave up: how often, and when last."""

    def __init__(self, client: SyncClient, prefix: str = DEFAULT_PREFIX) -> None:
        self._redis = client
        self._prefix = prefix

    def _key(self, request: BotSeatRequest) -> str:
        return f"{self._prefix}:{_member(request)}"

    def record(self, request: BotSeatRequest, now: float) -> None:
        key = self._key(request)
        n, at = self._redis.hmget(key, "n", "at")
        # (Two give-ups recorded at once may both count: a hint, and only a longer wait.)
        give_ups = int(n or 0)
        if resend_due(give_ups, float(at or 0.0), now):
            with self._redis.pipeline() as pipe:
                pipe.hset(key, mapping={"n": give_ups + 1, "at": repr(now)})
                pipe.expire(key, RECORD_TTL_S)
                pipe.execute()

    def clear(self, request: BotSeatRequest) -> None:
        self._redis.delete(self._key(request))

    def due(self, requests: Sequence[BotSeatRequest], now: float) -> list[BotSeatRequest]:
        if not requests:
            return []
        with self._redis.pipeline(transaction=False) as pipe:
            for request in requests:
                pipe.hmget(self._key(request), "n", "at")
            records = pipe.execute()
        return [
            request
            for request, (n, at) in zip(requests, records, strict=True)
            if resend_due(int(n or 0), float(at or 0.0), now)
        ]


class InMemorySeatGiveUps:
    """The same contract in a dict, for unit tests."""

    def __init__(self) -> None:
        self._records: dict[str, tuple[int, float]] = {}

    def record(self, request: BotSeatRequest, now: float) -> None:
        n, at = self._records.get(_member(request), (0, 0.0))
        if resend_due(n, at, now):
            self._records[_member(request)] = (n + 1, now)

    def clear(self, request: BotSeatRequest) -> None:
        self._records.pop(_member(request), None)

    def due(self, requests: Sequence[BotSeatRequest], now: float) -> list[BotSeatRequest]:
        return [
            r for r in requests if resend_due(*self._records.get(_member(r), (0, 0.0)), now=now)
        ]
