"""Table affinity: a client with a static list of three table replicas sends each table's
calls to that table's preferred replica (rendezvous hashing, services/shared/rendezvous.py),
and, when that replica stops, to the table's next choice, where the calls keep succeeding."""

from __future__ import annotations

import pytest

from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.shared import auth
from services.shared.channels import connect
from services.shared.rendezvous import RendezvousChannel, ranked
from tests.integration.cluster.conftest import ClusterPlatform
from tests.integration.table.conftest import KEY, create_table, new_table_id

pytestmark = pytest.mark.integration
TABLES = 9
LOOKS = 4


def test_each_table_goes_to_its_preferred_replica_and_fails_over_when_it_stops(
    on_cluster: ClusterPlatform,
) -> None:
    on_cluster.start_table()
    on_cluster.start_table()
    replicas = [f"127.0.0.1:{port}" for port in on_cluster.table_ports]
    channel = connect(
        ",".join(replicas), auth.issue_token(KEY, "house", auth.Role.ADMIN, 600), affinity=True
    )
    assert isinstance(channel, RendezvousChannel)
    stub = table_pb2_grpc.TableServiceStub(channel)
    tables = [new_table_id() for _ in range(TABLES)]
    for table_id in tables:
        create_table(on_cluster.platform, table_id, seats=2)

    def look(table_id: str) -> None:
        view = stub.GetTableView(table_pb2.GetTableViewRequest(table_id=table_id)).view
        assert view.table_id == table_id

    try:
        for table_id in tables:
            channel.served.clear()
            for _ in range(LOOKS):
                look(table_id)
            assert channel.served == {ranked(table_id, replicas)[0]: LOOKS}
        preferred = {ranked(t, replicas)[0] for t in tables}
        assert len(preferred) > 1, "nine tables all preferring one of three replicas"
        # The first replica stops: its tables' calls go to their second choice; the other
        # tables stay where they were.
        on_cluster.stop_table(0)
        for table_id in tables:
            channel.served.clear()
            for _ in range(LOOKS):
                look(table_id)
            order = [r for r in ranked(table_id, replicas) if r != replicas[0]]
            assert channel.served == {order[0]: LOOKS}, (table_id, channel.served)
    finally:
        channel.close()
