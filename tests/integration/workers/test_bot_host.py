"""The bot host's registry and leases on a real Redis: each registered real-time bot is played
by exactly one host; a host that dies without giving its bots up has them taken over once
their leases run out; a bot no longer seated leaves the registry. The players here are
stand-ins that only record who plays them (the real player is tested in test_spit_bots)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
import redis

from services.scheduling.seat_request import BotSeatRequest
from services.workers.bot_host import BotHost, HostedBots, HostedPlayer
from tests.fixtures.conditions import wait_until
from tests.fixtures.redis_server import RedisServer

pytestmark = pytest.mark.integration
BOT = BotSeatRequest("spit-t1", 0, "spit", 1.0)
OTHER = BotSeatRequest("spit-t1", 1, "spit", 1.0)


@pytest.fixture(scope="module")
def client() -> Iterator[redis.Redis]:
    with RedisServer.private_server() as server:
        connection = redis.Redis.from_url(server.url)
        yield connection
        connection.close()


@pytest.fixture
def registry(client: redis.Redis) -> HostedBots:
    client.flushdb()
    return HostedBots(client)


@dataclass
class StandIn:
    """A hosted player that plays until stopped; `seated` as the test sets it."""

    seated: bool | None = None
    playing: threading.Event = field(default_factory=threading.Event)

    def play(self, stop: threading.Event) -> object:
        self.playing.set()
        stop.wait()
        self.playing.clear()
        return None


@dataclass
class Players:
    made: dict[BotSeatRequest, list[StandIn]] = field(default_factory=dict)

    def __call__(self, request: BotSeatRequest) -> HostedPlayer:
        player = StandIn()
        self.made.setdefault(request, []).append(player)
        return player

    def playing(self, request: BotSeatRequest) -> int:
        return sum(p.playing.is_set() for p in self.made.get(request, []))


def test_each_bot_is_played_by_one_host_of_two(registry: HostedBots) -> None:
    registry.add(BOT)
    registry.add(OTHER)
    players_a, players_b = Players(), Players()
    a = BotHost(registry, players_a, poll=0.05, lease=1.0)
    b = BotHost(registry, players_b, poll=0.05, lease=1.0)
    for _ in range(5):
        a.look()
        b.look()
    try:
        for request in (BOT, OTHER):
            wait_until(
                lambda r=request: players_a.playing(r) + players_b.playing(r) == 1,  # type: ignore[misc]
                10,
                f"{request} played by exactly one host",
            )
        # Still one each after more looks: the holder renews, the other keeps off.
        for _ in range(5):
            a.look()
            b.look()
        assert all(players_a.playing(r) + players_b.playing(r) == 1 for r in (BOT, OTHER))
    finally:
        a.stop()
        b.stop()


def test_a_host_that_died_holding_a_bot_has_it_taken_over_once_the_lease_runs_out(
    registry: HostedBots,
) -> None:
    registry.add(BOT)
    # A host that took the lease and died (no release): the lease is all that is left of it.
    assert registry.acquire(BOT, "dead-host", lease=1.0)
    players = Players()
    host = BotHost(registry, players, poll=0.05, lease=1.0).start()
    try:
        assert players.playing(BOT) == 0  # (the dead host's lease still holds)
        wait_until(lambda: players.playing(BOT) == 1, 15, "the bot taken over")
    finally:
        host.stop()
    assert players.playing(BOT) == 0  # stopping the host stops its players


def test_a_bot_no_longer_seated_leaves_the_registry_and_is_not_played(
    registry: HostedBots,
) -> None:
    registry.add(BOT)
    players = Players()
    host = BotHost(registry, players, poll=0.05, lease=1.0)
    host.look()
    try:
        wait_until(lambda: players.playing(BOT) == 1, 10, "the bot played")
        players.made[BOT][0].seated = False  # its table says it is not seated
        host.look()
        assert registry.all() == [] and players.playing(BOT) == 0
        host.look()
        assert len(players.made[BOT]) == 1  # not started again
    finally:
        host.stop()
