"""The bot host: the real-time bots a table asked for, as long-lived players in a worker.

A Spit bot has no turns to be asked for: it watches its table and plays the moment it sees a
legal play (services/bots/hosted.py). So the workers do not play it a task per move; the
`seat_bot` task seats it like any requested bot, then records it in the hosted-bot registry
(a Redis hash, `croupier:workers:hosted-bots`, written before the seating's trigger is
resolved, so a worker killed in between leaves the trigger to be sent again and the next
try records it). Every worker process runs one `BotHost` thread that looks at the registry
every `poll` seconds and plays each bot it holds the lease of: a `SpitPlayer`
(services/bots/spit_player.py) on its own channel with the bot's own `bot`-role token, its
batched WatchTable stream and its Play stream, exactly as a person's client would.

**One player per bot.** A host plays a bot only while it holds the bot's lease (a Redis key
set with NX and a time to live of `lease` seconds, renewed at every look, and given up when
the host stops), so two worker processes never play one bot; a killed worker's bots are
taken over by another host (or the same worker started again) once their leases run out.
Between the kill and the takeover the bot does not play: its opponent plays on, the table's
swept deadlines (the stall, the slap time) keep the game going, and the bot picks up from
a fresh view of the table.

**When it stops.** A bot whose table no longer seats it (it left, the table was closed and
every seat left) or whose table is gone (the table service answers NOT_FOUND: its player
stops reconnecting and reads as not seated) leaves the registry and its lease is given up:
nothing brings a bot back that is gone.
"""

from __future__ import annotations

import contextlib
import logging
import random
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import grpc
import redis

from croupier.table.v1 import table_pb2_grpc
from services.bots.hosted import is_hosted, reaction_window_ms
from services.bots.spit_player import Reaction, SpitPlayer
from services.scheduling.seat_request import BotSeatRequest
from services.shared import auth
from services.shared.channels import RenewingServiceToken, connect
from services.shared.redis_connection import SyncClient
from services.workers.bot_seats import seated_bot_id

log = logging.getLogger(__name__)

REGISTRY_KEY = "croupier:workers:hosted-bots"
LEASE_PREFIX = "croupier:workers:hosted-bot-lease:"
BOT_TOKEN_TTL = 3600

# Renew or give up a lease only while it is still this host's.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class HostedBots:
    """The registry of seated real-time bots and their leases, in the workers' Redis."""

    def __init__(
        self,
        client: SyncClient,
        *,
        key: str = REGISTRY_KEY,
        lease_prefix: str = LEASE_PREFIX,
    ) -> None:
        self._redis = client
        self._key = key
        self._lease_prefix = lease_prefix
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)

    def add(self, request: BotSeatRequest) -> None:
        """Host this (seated) bot from now on; a repeat changes nothing."""
        bot = seated_bot_id(request.table_id, request.index, request.policy, request.difficulty)
        self._redis.hset(self._key, request.encode(), bot)

    def remove(self, request: BotSeatRequest) -> None:
        self._redis.hdel(self._key, request.encode())

    def all(self) -> list[BotSeatRequest]:
        members = self._redis.hkeys(self._key)
        return [BotSeatRequest.decode(m) for m in members]

    def _lease_key(self, request: BotSeatRequest) -> str:
        return self._lease_prefix + request.encode()

    def acquire(self, request: BotSeatRequest, holder: str, lease: float) -> bool:
        """Take the bot's lease if nobody holds it."""
        ms = max(1, int(lease * 1000))
        return bool(self._redis.set(self._lease_key(request), holder, nx=True, px=ms))

    def renew(self, request: BotSeatRequest, holder: str, lease: float) -> bool:
        """Extend the lease; False when it is no longer `holder`'s (it ran out and another
        host took it)."""
        ms = max(1, int(lease * 1000))
        return bool(self._renew(keys=[self._lease_key(request)], args=[holder, ms]))

    def release(self, request: BotSeatRequest, holder: str) -> None:
        self._release(keys=[self._lease_key(request)], args=[holder])


class HostedPlayer(Protocol):
    """One hosted bot's player (a `SpitPlayer`): plays until `stop` is set."""

    @property
    def seated(self) -> bool | None: ...

    def play(self, stop: threading.Event) -> object: ...


PlayerFactory = Callable[[BotSeatRequest], HostedPlayer]


def spit_players(table_target: str, key: str | auth.Credentials) -> PlayerFactory:
    """A factory of `SpitPlayer`s, each on its own channel with the bot's own token (the
    streams authenticate as the bot), reacting at its difficulty's speed."""

    def build(request: BotSeatRequest) -> HostedPlayer:
        bot = seated_bot_id(request.table_id, request.index, request.policy, request.difficulty)
        channel = connect(
            table_target, RenewingServiceToken(key, bot, BOT_TOKEN_TTL, role=auth.Role.BOT)
        )
        low, high = reaction_window_ms(request.difficulty)
        player = SpitPlayer(
            table_pb2_grpc.TableServiceStub(channel),
            request.table_id,
            name=bot,
            reaction=Reaction(low, high),
            rng=random.Random(),
        )
        return _OnItsOwnChannel(player, channel)

    return build


class _OnItsOwnChannel:
    """A player whose channel is closed when it stops playing."""

    def __init__(self, player: SpitPlayer, channel: grpc.Channel) -> None:
        self._player = player
        self._channel = channel

    @property
    def seated(self) -> bool | None:
        return self._player.seated

    def play(self, stop: threading.Event) -> object:
        try:
            return self._player.play(stop)
        finally:
            self._channel.close()


@dataclass
class _Running:
    player: HostedPlayer
    stop: threading.Event
    thread: threading.Thread
    errors: list[str] = field(default_factory=list)


class BotHost:
    """Plays every registered bot this host holds the lease of, each on a thread of its own."""

    def __init__(
        self,
        registry: HostedBots,
        players: PlayerFactory,
        *,
        poll: float = 0.5,
        lease: float = 5.0,
        holder: str | None = None,
    ) -> None:
        if lease <= 2 * poll:
            raise ValueError("a lease must outlast two looks at the registry")
        self._registry = registry
        self._players = players
        self._poll = poll
        self._lease = lease
        self.holder = holder or f"host-{uuid.uuid4().hex[:12]}"
        self._running: dict[BotSeatRequest, _Running] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bot-host", daemon=True)

    @property
    def playing(self) -> list[BotSeatRequest]:
        """The bots this host plays now."""
        return [r for r, run in self._running.items() if run.thread.is_alive()]

    def start(self) -> BotHost:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop every player and give their leases up."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(10)  # (the loop ends its players as it stops)
        else:
            for request in list(self._running):
                self._end(request)

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                try:
                    self.look()
                except redis.RedisError as exc:
                    log.warning("bot host: Redis unreachable (%r); looking again", exc)
                except Exception:  # the host must outlive any one bot's trouble
                    log.exception("bot host: a look failed")
                self._stop.wait(self._poll)
        finally:
            for request in list(self._running):
                self._end(request)

    def look(self) -> None:
        """One look at the registry: renew, start and stop players (public for tests)."""
        wanted = {r for r in self._registry.all() if is_hosted(r.policy)}
        for request in list(self._running):
            run = self._running[request]
            gone = request not in wanted
            if run.player.seated is False:
                log.info("bot host: %s is no longer seated at %s", request.index, request.table_id)
                self._registry.remove(request)
                wanted.discard(request)
                gone = True
            if gone or not self._registry.renew(request, self.holder, self._lease):
                self._end(request)
            elif not run.thread.is_alive():
                self._end(request)  # (started again at the next look)
        for request in wanted - set(self._running):
            if self._registry.acquire(request, self.holder, self._lease):
                self._begin(request)

    def _begin(self, request: BotSeatRequest) -> None:
        try:
            player = self._players(request)
        except (grpc.RpcError, ValueError) as exc:
            log.warning(
                "bot host: cannot start bot %s of %s: %r", request.index, request.table_id, exc
            )
            self._registry.release(request, self.holder)
            return
        stop = threading.Event()
        thread = threading.Thread(
            target=self._play,
            args=(player, stop, request),
            name=f"bot-{request.table_id}-{request.index}",
            daemon=True,
        )
        self._running[request] = _Running(player, stop, thread)
        thread.start()
        log.info("bot host %s: playing bot %s of %s", self.holder, request.index, request.table_id)

    @staticmethod
    def _play(player: HostedPlayer, stop: threading.Event, request: BotSeatRequest) -> None:
        try:
            player.play(stop)
        except Exception:
            log.exception("bot host: bot %s of %s stopped", request.index, request.table_id)

    def _end(self, request: BotSeatRequest) -> None:
        run = self._running.pop(request)
        run.stop.set()
        run.thread.join(5)
        with contextlib.suppress(redis.RedisError):  # (else the lease runs out by itself)
            self._registry.release(request, self.holder)
