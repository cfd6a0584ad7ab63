"""Spit bots asked for at CreateTable, played by a REAL Celery worker process's bot host: the
worker seats them through the public API (chips from the house's bot bankroll), then plays
each as a long-lived player on its own WatchTable and Play streams, with no task per move.
A bot-vs-bot game and a person-vs-bot game are played to their end on the real table,
dealer and ledger over a private Redis; the chips are conserved. A bot whose table is gone
(closed, or deleted) stops: it leaves the hosted-bot registry and its lease is given up."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator

import pytest
import redis

from croupier.spit.v1 import events_pb2 as spit_events_pb2
from croupier.spit.v1 import spit_pb2
from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.bots.identity import bot_buy_in
from services.bots.spit_player import Reaction, SpitPlayer
from services.scheduling.deadline_index import DEFAULT_KEY
from services.scheduling.resend_index import BOT_TURNS_KEY
from services.scheduling.scheduler import CeleryScheduler
from services.shared import auth
from services.workers.bot_host import LEASE_PREFIX, REGISTRY_KEY
from services.workers.bot_seats import seated_bot_id
from services.workers.settings import WorkerSettings
from tests.fixtures.conditions import wait_until
from tests.fixtures.redis_server import RedisServer
from tests.integration.table.conftest import KEY, seat

from .table_stack import StackPlatform, table_stack
from .worker_process import WorkerProcess, running_worker, worker_env

pytestmark = pytest.mark.integration
STAKE = 10
BOT_CHIPS = bot_buy_in(0, 0, 0, 0, STAKE)  # 20 stakes
GAME_TIMEOUT = 120.0


@pytest.fixture(scope="module")
def redis_for_bots() -> Iterator[RedisServer]:
    with RedisServer.private_server() as server:
        yield server


@pytest.fixture(scope="module")
def settings(redis_for_bots: RedisServer) -> WorkerSettings:
    return WorkerSettings(redis_url=redis_for_bots.url, auth_key=KEY, bot_delay=0.0)


@pytest.fixture(scope="module")
def platform(settings: WorkerSettings) -> Iterator[StackPlatform]:
    scheduler = CeleryScheduler.from_settings(settings.scheduling)
    with table_stack(settings.redis_url, "ledger-spit-bots", scheduler) as handle:
        yield handle


@pytest.fixture(scope="module")
def worker(
    settings: WorkerSettings, platform: StackPlatform, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WorkerProcess]:
    env = worker_env(
        settings.redis_url,
        f"127.0.0.1:{platform.port}",
        KEY,
        f"127.0.0.1:{platform.ledger_port}",
    )
    with running_worker(env, tmp_path_factory.mktemp("worker")) as process:
        yield process


def create_with_bots(platform: StackPlatform, bots: int) -> str:
    table_id = f"spit-{uuid.uuid4().hex[:10]}"
    house = platform.table("house", auth.Role.ADMIN)
    house.CreateTable(
        table_pb2.CreateTableRequest(
            table_id=table_id,
            idempotency_key="create",
            options=table_pb2.TableOptions(
                spit=spit_pb2.SpitOptions(stake=STAKE, slap_ms=2_000, stall_ms=2_000)
            ),
            # Difficulty 1: no reaction time, so the game is over in seconds.
            bots=[table_pb2.BotSeat(policy="spit", difficulty=1.0)] * bots,
        )
    )
    return table_id


def first_game_end(
    platform: StackPlatform, table_id: str, from_version: int = 1
) -> tuple[spit_events_pb2.GameEnded, dict[int, int]]:
    """The first GameEnded of the table from `from_version` on, from its stream (waits for
    it), and how many cards each seat played until then."""
    house = platform.table("house", auth.Role.ADMIN)
    stream = house.WatchTable(
        table_pb2.WatchTableRequest(table_id=table_id, from_version=from_version),
        timeout=GAME_TIMEOUT,
    )
    played = {0: 0, 1: 0}
    try:
        for message in stream:
            event: events_pb2.TableEvent = message.event
            if event.WhichOneof("event") != "spit":
                continue
            if event.spit.HasField("card_played"):
                played[event.spit.card_played.seat] += 1
            if event.spit.HasField("game_ended"):
                return event.spit.game_ended, played
    finally:
        stream.cancel()
    raise AssertionError("the stream ended before the game did")


def no_task_per_move(settings: WorkerSettings, table_id: str) -> None:
    """The table's deadlines are in the swept index only and no bot turn was scheduled."""
    client = redis.Redis.from_url(settings.redis_url)
    try:
        assert client.scard(f"{DEFAULT_KEY}:table:{table_id}") == 0
        turns = [m for m in client.zrange(BOT_TURNS_KEY, 0, -1) if table_id.encode() in m]
        assert turns == []
        hosted = [m for m in client.hkeys(REGISTRY_KEY) if table_id.encode() in m]
        assert len(hosted) >= 1
    finally:
        client.close()


def test_two_requested_spit_bots_play_a_whole_game_and_the_chips_add_up(
    platform: StackPlatform, worker: WorkerProcess, settings: WorkerSettings
) -> None:
    table_id = create_with_bots(platform, 2)
    ended, played = first_game_end(platform, table_id)
    assert ended.reason, ended
    assert played[0] > 0 and played[1] > 0, played
    # The stakes moved between the two stacks; nothing came or went.
    assert sum(ended.stacks) == 2 * BOT_CHIPS
    assert platform.balance(f"table:{table_id}:CHIP") == 2 * BOT_CHIPS
    bots = [seated_bot_id(table_id, i, "spit", 1.0) for i in (0, 1)]
    assert [platform.balance(f"player:{b}:CHIP") for b in bots] == [0, 0]
    no_task_per_move(settings, table_id)


def test_a_person_plays_a_requested_spit_bot_to_the_end_of_a_game(
    platform: StackPlatform, worker: WorkerProcess, settings: WorkerSettings
) -> None:
    table_id = create_with_bots(platform, 1)
    person = f"ann-{table_id}"
    # The bot takes seat 0 (its index); the person sits in the other.
    stub: table_pb2_grpc.TableServiceStub = seat(platform, table_id, person, 1, BOT_CHIPS)
    player = SpitPlayer(stub, table_id, name=person, reaction=Reaction(0, 0))
    stop = threading.Event()
    thread = threading.Thread(target=player.play, args=(stop,), kwargs={"until_game_over": True})
    thread.start()
    try:
        ended, played = first_game_end(platform, table_id)
    finally:
        stop.set()
        thread.join(30)
    assert player.tally.accepted > 0, "the person never played"
    assert sum(ended.stacks) == 2 * BOT_CHIPS
    escrow = platform.balance(f"table:{table_id}:CHIP")
    assert escrow == 2 * BOT_CHIPS
    assert platform.balance(f"player:{person}:CHIP") == 0  # all of it on the table
    no_task_per_move(settings, table_id)
    # The bot played too: its seat made moves of its own in the game.
    assert played[0] > 0 and played[1] > 0, played
    bot = seated_bot_id(table_id, 0, "spit", 1.0)
    view = stub.GetTableView(table_pb2.GetTableViewRequest(table_id=table_id)).view
    assert any(s.player_id == bot and s.is_bot for s in view.seats)
    wait_until(lambda: not thread.is_alive(), 30, "the person's client stopped")


def hosting(settings: WorkerSettings, table_id: str) -> tuple[int, int]:
    """(registry entries, leases held) of the table's hosted bots."""
    client = redis.Redis.from_url(settings.redis_url)
    try:
        entries = [m for m in client.hkeys(REGISTRY_KEY) if table_id.encode() in m]
        leases = list(client.scan_iter(match=f"{LEASE_PREFIX}*{table_id}*"))
        return len(entries), len(leases)
    finally:
        client.close()


def test_a_closed_tables_bots_stop_and_give_their_leases_up(
    platform: StackPlatform, worker: WorkerProcess, settings: WorkerSettings
) -> None:
    table_id = create_with_bots(platform, 2)
    wait_until(lambda: hosting(settings, table_id) == (2, 2), 60, "both bots hosted")
    house = platform.table("house", auth.Role.ADMIN)
    house.CloseTable(table_pb2.CloseTableRequest(table_id=table_id, idempotency_key="close"))
    # The game in play ends, every seat leaves, and the host lets both bots go.
    wait_until(
        lambda: hosting(settings, table_id) == (0, 0),
        GAME_TIMEOUT,
        "the closed table's bots released",
        lambda: f"(entries, leases) {hosting(settings, table_id)}",
    )
    view = house.GetTableView(table_pb2.GetTableViewRequest(table_id=table_id)).view
    assert not [s for s in view.seats if s.player_id]


def test_a_deleted_tables_bots_stop_and_give_their_leases_up(
    platform: StackPlatform, worker: WorkerProcess, settings: WorkerSettings
) -> None:
    table_id = create_with_bots(platform, 2)
    wait_until(lambda: hosting(settings, table_id) == (2, 2), 60, "both bots hosted")
    # The table's records are deleted and its service restarted (nothing cached): the
    # service knows no such table any more, and the bots' reconnecting watches hear so.
    client = redis.Redis.from_url(settings.redis_url)
    try:
        for key in client.scan_iter(match=f"{{table:{table_id}}}*"):
            client.delete(key)
    finally:
        client.close()
    platform.restart_table()
    wait_until(
        lambda: hosting(settings, table_id) == (0, 0),
        60,
        "the deleted table's bots released",
        lambda: f"(entries, leases) {hosting(settings, table_id)}",
    )
