"""Rendezvous hashing of table ids over table replicas: stable, even, and minimal movement."""

from __future__ import annotations

from collections import Counter

from services.shared.rendezvous import ranked, replica_list

REPLICAS = [f"10.0.0.{n}:50051" for n in range(1, 4)]
TABLES = [f"t{n:04d}" for n in range(3000)]


def test_every_client_ranks_a_table_the_same_whatever_order_it_lists_the_replicas() -> None:
    for table in TABLES[:50]:
        assert ranked(table, REPLICAS) == ranked(table, list(reversed(REPLICAS)))
        assert sorted(ranked(table, REPLICAS)) == sorted(REPLICAS)


def test_tables_spread_evenly_over_the_replicas() -> None:
    first = Counter(ranked(table, REPLICAS)[0] for table in TABLES)
    assert set(first) == set(REPLICAS)
    # 1000 each expected; a binomial spread stays well within 10 % of that.
    assert all(900 < count < 1100 for count in first.values()), first


def test_a_replica_leaving_moves_only_its_own_tables_each_to_its_second_choice() -> None:
    gone = REPLICAS[0]
    rest = REPLICAS[1:]
    for table in TABLES:
        before = ranked(table, REPLICAS)
        after = ranked(table, rest)
        if before[0] != gone:
            assert after[0] == before[0]
        else:
            assert after[0] == before[1]


def test_only_a_static_list_of_several_replicas_is_routed() -> None:
    assert replica_list("a:1, b:2,a:1") == ["a:1", "b:2"]
    assert replica_list("a:1") == []
    assert replica_list("dns:///table:50051") == []
