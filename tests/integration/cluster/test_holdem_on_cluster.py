"""Hold'em through the real table, dealer and ledger services on a 3-master Redis Cluster:
the table's stream and the ledger's journal on different masters, chips conserved."""

from __future__ import annotations

import pytest

from services.shared.eventstore import stream_key
from tests.integration.cluster.conftest import ClusterPlatform
from tests.integration.cluster.play import (
    BUY_IN,
    audit,
    heads_up,
    play_until_hand,
    seated_chips,
    table_on_another_master,
)

pytestmark = pytest.mark.integration


def test_a_hand_on_a_redis_cluster_conserves_every_chip(on_cluster: ClusterPlatform) -> None:
    platform = on_cluster.platform
    table_id = table_on_another_master(on_cluster.cluster, on_cluster.ledger_namespace)
    stubs = heads_up(platform, table_id)
    view = play_until_hand(platform, table_id, stubs, hand=3)
    assert seated_chips(view) == 2 * BUY_IN
    assert platform.balance(f"table:{table_id}:CHIP") == 2 * BUY_IN
    report = audit(platform)
    assert report.clean, list(report.differences)
    # The hand's events are on the table's own master, not the ledger's.
    table_master = on_cluster.cluster.master_of(stream_key("table", table_id))
    client = on_cluster.cluster.client()
    try:
        assert client.xlen(stream_key("table", table_id)) > 10
        node = client.get_node_from_key(stream_key("table", table_id))  # type: ignore[no-untyped-call]
        assert node.port == table_master.port
    finally:
        client.close()
