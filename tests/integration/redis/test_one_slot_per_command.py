"""On a Redis Cluster every Lua script, MULTI and multi-key command touches one hash slot: the
keys of one aggregate (a stream and its side keys, an index and its per-table sets) share one
hash tag.

Two halves. The scan finds every place in services/ that runs a script or a transaction
(`register_script`, `eval`, `evalsha`, `pipeline`, `transaction`); each such module must have
an exercise here, so a new one cannot slip in untested. Each exercise drives the module's
multi-key paths against a real one-node Redis Cluster through redis-py's cluster client; the
server itself refuses a script or a MULTI whose keys span two slots (CROSSSLOT), and the
exercise also checks the slots of the keys it knows.
"""

from __future__ import annotations

import ast
import asyncio
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import RedisCluster
from redis.crc import key_slot

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2
from services.ledger import codec
from services.ledger.application import LedgerApplication
from services.ledger.core.accounts import AccountKind
from services.ledger.core.entries import Leg, Side
from services.ledger.core.shards import shard_of
from services.ledger.redis_store import RedisLedgerStore
from services.ledger.server import shard_namespace
from services.scheduling.deadline_index import DEFAULT_KEY, SWEPT_KEY, RedisDeadlineIndex
from services.scheduling.deadlines import Deadline
from services.scheduling.resend_index import BOT_TURNS_KEY, SEAT_BOTS_KEY, RedisResendIndex
from services.scheduling.seat_request import BotSeatRequest
from services.scheduling.swept_writer import SweptWriter
from services.shared import replica_ack
from services.shared.auth import Principal, Role
from services.shared.errors import Unavailable
from services.shared.eventstore import EventRegistry, RedisEventStore, stream_key
from services.shared.eventstore.aio_redis_store import AsyncRedisEventStore
from services.shared.redis_embedded import EmbeddedRedis
from services.table.attention import DEFAULT_KEY as ATTENTION_KEY
from services.table.attention import RedisAttentionSet
from services.workers.bot_host import HostedBots
from services.workers.seat_give_ups import RedisSeatGiveUps
from services.workers.sweeper_lease import SweeperLease
from tests.fixtures.redis_server import start_single_node_cluster

pytestmark = pytest.mark.integration

SERVICES = Path(__file__).resolve().parents[3] / "services"
# The calls that make Redis run several keys' commands as one step.
SCRIPTED = {"register_script", "eval", "evalsha", "pipeline", "transaction"}


def _modules_running_scripts() -> set[str]:
    found: set[str] = set()
    for path in SERVICES.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in SCRIPTED
            ):
                found.add(path.relative_to(SERVICES.parent).with_suffix("").as_posix())
    return found


@pytest.fixture(scope="module")
def cluster() -> Iterator[RedisCluster]:
    server: EmbeddedRedis = start_single_node_cluster()
    client = RedisCluster(host=server.host, port=server.port)
    yield client
    client.close()
    server.close()


def _one_slot(*keys: str) -> None:
    assert len({key_slot(key.encode()) for key in keys}) == 1, keys


def exercise_event_store(client: RedisCluster) -> None:
    registry = EventRegistry()
    registry.register(chips_pb2.ChipAmount)
    store = RedisEventStore(client, registry, durability="everysec")
    stream = stream_key("table", uuid.uuid4().hex)
    chips = chips_pb2.ChipAmount(currency="CHIP", amount=5)
    store.append(stream, [chips], expected_version=0, idempotency_key="k")
    store.save_snapshot(stream, 1, chips)
    assert [event.version for event in store.read(stream)] == [1]


def exercise_aio_event_store(client: RedisCluster) -> None:
    # The asyncio twin sends the sync store's scripts with the same keys (redis_commands.py);
    # the contract suite runs it on this kind of cluster ("redis-aio-cluster").
    assert AsyncRedisEventStore.append.__module__ == "services.shared.eventstore.aio_redis_store"
    exercise_event_store(client)


def exercise_replica_ack(client: RedisCluster) -> None:
    stream = stream_key("table", uuid.uuid4().hex)
    tag = stream[: stream.index("}") + 1]
    marker = replica_ack.marker_key(tag)
    _one_slot(stream, marker)
    # A one-node cluster has no replica: the marker goes to the stream's master (in its slot)
    # and WAIT, pipelined after it on that node's connection, counts none.
    with pytest.raises(Unavailable, match="not confirmed by 1 replica"):
        replica_ack.wait(client, tag, replica_ack.ReplicaAck(1, 1), "an append")
    assert client.exists(marker) == 1


def exercise_deadline_index(client: RedisCluster) -> None:
    for key in (DEFAULT_KEY, SWEPT_KEY):
        index = RedisDeadlineIndex(client, key)
        table = uuid.uuid4().hex
        first, second = Deadline(table, 1, 1, 10.0), Deadline(table, 1, 2, 20.0)
        index.arm(first)
        assert index.replace_table(table, [first, second]) == [second]
        index.resolve(first)
        index.discard(second)
        assert not index.contains(first) and not index.contains(second)
        _one_slot(key, index._table_key(table))


def exercise_swept_writer(client: RedisCluster) -> None:
    # The writer runs on an event loop through redis-py's asyncio cluster client; one script
    # call replaces several tables' deadlines, every key under the index's hash tag.
    node = client.get_default_node()  # type: ignore[no-untyped-call]  # (untyped in redis-py)
    tables = [uuid.uuid4().hex, uuid.uuid4().hex]
    first, second = Deadline(tables[0], 1, 1, 10.0), Deadline(tables[1], 1, 1, 20.0)

    async def write() -> int:
        async_client = AsyncRedisCluster(host=node.host, port=node.port)
        try:
            writer = SweptWriter(async_client).start()
            assert writer.submit(tables[0], [first]) and writer.submit(tables[1], [second])
            await writer.close(timeout=10.0)
            return writer.writes
        finally:
            await async_client.aclose()

    assert asyncio.run(write()) >= 1
    index = RedisDeadlineIndex(client, SWEPT_KEY)
    assert index.contains(first) and index.contains(second)
    assert index.replace_table(tables[0], []) == [] and not index.contains(first)
    index.discard(second)
    _one_slot(SWEPT_KEY, *(index._table_key(table) for table in tables))


def exercise_resend_index(client: RedisCluster) -> None:
    for key in (BOT_TURNS_KEY, SEAT_BOTS_KEY):
        index = RedisResendIndex(client, key)
        index.arm("table-1", "table-1/1", 5.0)
        index.arm("table-1", "table-1/2", 6.0)
        assert index.contains("table-1/2") and not index.contains("table-1/1")
        _one_slot(key, f"{key}:current")


def exercise_ledger(client: RedisCluster) -> None:
    store = RedisLedgerStore(client, namespace=f"slots-{uuid.uuid4().hex[:8]}")
    app = LedgerApplication(store)
    service = Principal("table", Role.SERVICE)
    for kind, name in ((AccountKind.PLAYER, "a"), (AccountKind.TABLE, "t")):
        app.open_account(
            ledger_pb2.OpenAccountRequest(kind=codec._KINDS[kind], name=name, currency="CHIP"),
            service,
        )
    app.deposit(
        ledger_pb2.DepositRequest(
            idempotency_key="fund",
            account_id="player:a:CHIP",
            amount=chips_pb2.ChipAmount(currency="CHIP", amount=100),
        ),
        service,
    )
    legs = [
        Leg("player:a:CHIP", Side.DEBIT, "CHIP", 40),
        Leg("table:t:CHIP", Side.CREDIT, "CHIP", 40),
    ]
    app.reserve(
        ledger_pb2.ReserveRequest(idempotency_key="r1", legs=codec.legs_to_pb(tuple(legs))), service
    )
    app.post(ledger_pb2.PostRequest(idempotency_key="p1", reservation_id="r1", amount=40), service)
    _journal, projection = store.journal_and_projection()
    assert projection.balances["table:t:CHIP"] == 40
    assert store.rebuild_projection() > 0
    exercise_sharded_ledger(client)


def exercise_sharded_ledger(client: RedisCluster) -> None:
    """Four shards: every step of a transfer between shards (debit with its pending record,
    credit, refusal, finish), the key claims and the recovery sweep, each in one slot."""
    namespace = f"slots-{uuid.uuid4().hex[:8]}"
    stores = [
        RedisLedgerStore(client, namespace=shard_namespace(namespace, n, 4), shard=n)
        for n in range(4)
    ]
    app = LedgerApplication(stores)
    service = Principal("table", Role.SERVICE)
    names = [f"p{n}" for n in range(8)]
    for name in names:
        app.open_account(
            ledger_pb2.OpenAccountRequest(
                kind=codec._KINDS[AccountKind.PLAYER], name=name, currency="CHIP"
            ),
            service,
        )
    app.deposit(
        ledger_pb2.DepositRequest(
            idempotency_key="fund",
            account_id="player:p0:CHIP",
            amount=chips_pb2.ChipAmount(currency="CHIP", amount=100),
        ),
        service,
    )
    home = shard_of("player:p0:CHIP", 4)
    other = next(n for n in names if shard_of(f"player:{n}:CHIP", 4) != home)
    legs = [
        Leg("player:p0:CHIP", Side.DEBIT, "CHIP", 10),
        Leg(f"player:{other}:CHIP", Side.CREDIT, "CHIP", 10),
    ]
    app.transfer(
        ledger_pb2.TransferRequest(idempotency_key="x1", legs=codec.legs_to_pb(tuple(legs))),
        service,
    )
    assert stores[home].load_transfer("x1") is not None
    assert stores[0].refuse("\x1fstep:unknown/credit/0") == "refused"
    assert app.recover(0, 2**62) == 0
    assert app.audit(ledger_pb2.AuditRequest(), service).clean


def exercise_attention(client: RedisCluster) -> None:
    attention = RedisAttentionSet(client, ATTENTION_KEY)
    attention.mark("table-1", 100)
    assert attention.claim("table-1", 100, 200)
    assert attention.clear("table-1", 200)


def exercise_hosted_bots(client: RedisCluster) -> None:
    hosted = HostedBots(client)
    request = BotSeatRequest("table-1", 0, "tight", 0.5)
    assert hosted.acquire(request, "me", 5.0)
    assert hosted.renew(request, "me", 5.0)
    hosted.release(request, "me")


def exercise_seat_give_ups(client: RedisCluster) -> None:
    give_ups = RedisSeatGiveUps(client)
    request = BotSeatRequest("table-1", 0, "tight", 0.5)
    give_ups.record(request, 1.0)
    assert give_ups.due([request], 1.0) == []


def exercise_sweeper_lease(client: RedisCluster) -> None:
    lease = SweeperLease(client, 5.0)
    assert lease.hold() and lease.hold()
    lease.release()


EXERCISES: dict[str, Callable[[RedisCluster], None]] = {
    "services/shared/eventstore/redis_store": exercise_event_store,
    "services/shared/eventstore/aio_redis_store": exercise_aio_event_store,
    "services/scheduling/deadline_index": exercise_deadline_index,
    "services/scheduling/resend_index": exercise_resend_index,
    "services/scheduling/swept_writer": exercise_swept_writer,
    "services/ledger/redis_store": exercise_ledger,
    "services/table/attention": exercise_attention,
    "services/workers/bot_host": exercise_hosted_bots,
    "services/workers/seat_give_ups": exercise_seat_give_ups,
    "services/workers/sweeper_lease": exercise_sweeper_lease,
    "services/shared/replica_ack": exercise_replica_ack,
}


def test_every_module_running_scripts_or_transactions_has_a_cluster_exercise() -> None:
    assert _modules_running_scripts() == set(EXERCISES)


@pytest.mark.parametrize("module", sorted(EXERCISES))
def test_scripts_and_transactions_touch_one_slot_on_a_cluster(
    cluster: RedisCluster, module: str
) -> None:
    EXERCISES[module](cluster)
