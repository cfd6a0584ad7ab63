"""A table read from its stream is decided on, cached and answered from only once the
replicas the store waits for have what was read (EventStore.wait_for_replicas): events another
instance appended may still be on the master alone, and a failover that lost them would leave
this instance holding a table the stream no longer has. A read that brings nothing new waits
for nothing."""

from __future__ import annotations

from services.games.poker.catalog import TEXAS_HOLDEM
from services.games.poker.definitions import TableConfig
from services.ranking.ports import LibraryRanker
from services.shared.eventstore import InMemoryEventStore
from services.table import codec
from services.table.application import TableApplication, TableSpec
from services.table.attention import InMemoryAttentionSet
from services.table.folding import table_stream
from services.table.games.catalog import CATALOG
from services.table.ports import NoScheduler
from services.table.tables import Tables
from tests.fixtures.table_ports import InProcessDealer, NullLedger

TABLE = "waits"


class CountsWaits(InMemoryEventStore):
    def __init__(self) -> None:
        super().__init__(codec.registry())
        self.waits: list[str] = []

    def wait_for_replicas(self, stream: str) -> None:
        self.waits.append(stream)


def test_what_a_load_reads_waits_for_the_replicas_and_a_load_reading_nothing_does_not() -> None:
    store = CountsWaits()
    ports = InProcessDealer(), NullLedger(), LibraryRanker(), NoScheduler()
    writer = TableApplication(store, *ports)
    config = TableConfig(game=TEXAS_HOLDEM, seats=2)
    writer.create_table(TableSpec(config, table_id=TABLE), "house", "create")
    reader = Tables(store, InMemoryAttentionSet(), 5.0, lambda: 0, CATALOG)
    stream = table_stream(TABLE)

    store.waits.clear()
    cold = reader.load(TABLE)  # a cold load: the whole stream read
    assert store.waits == [stream]
    assert reader.load(TABLE) is cold  # nothing new on the stream: nothing to wait for
    assert store.waits == [stream]

    writer.join(TABLE, "alice", 0, 100, "", "join-alice")  # another instance writes
    store.waits.clear()
    caught_up = reader.load(TABLE)
    assert caught_up.version > cold.version
    assert store.waits == [stream]
