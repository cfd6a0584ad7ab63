"""Redis down: a table command fails UNAVAILABLE (retry later, same key), not INTERNAL, and
the same request succeeds once Redis is back, with nothing lost."""

from __future__ import annotations

import grpc
import pytest

from croupier.table.v1 import table_pb2
from services.shared import auth
from tests.fixtures.redis_server import RedisServer
from tests.integration.table.conftest import Platform, create_table


@pytest.fixture
def redis_url(private_redis_server: RedisServer) -> str:
    """The table platform of this module runs on a Redis the test may kill and restart."""
    return private_redis_server.url


def test_reads_fail_unavailable_while_redis_is_down_and_work_again_after_a_restart(
    platform: Platform, private_redis_server: RedisServer
) -> None:
    # Every write on disk before it is acknowledged: the kill below must not take the table's
    # creation with it (with fsync every second it could, a second after the create).
    admin = private_redis_server.client()
    admin.config_set("appendfsync", "always")
    admin.close()
    table_id = create_table(platform)
    assert platform.start_instance is not None
    # A second instance has nothing cached: it must read the table's stream.
    fresh = platform.table("alice", auth.Role.PLAYER, port=platform.start_instance())

    private_redis_server.kill()
    for call in (
        lambda: fresh.GetTableView(table_pb2.GetTableViewRequest(table_id=table_id), timeout=10),
        lambda: fresh.ListTables(table_pb2.ListTablesRequest(), timeout=10),
    ):
        with pytest.raises(grpc.RpcError) as refused:
            call()
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE, refused.value.details()
        assert "retry" in (refused.value.details() or "")

    private_redis_server.restart()
    view = fresh.GetTableView(table_pb2.GetTableViewRequest(table_id=table_id), timeout=10).view
    assert view.table_id == table_id
    listed = fresh.ListTables(table_pb2.ListTablesRequest(), timeout=10).tables
    assert table_id in [t.table_id for t in listed]
