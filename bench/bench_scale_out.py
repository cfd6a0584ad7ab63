"""Scale-out benchmark: hold'em hands/s and Act p99 with 1, 2 and 3 table replicas, each on
one Redis and on a 3-master Redis Cluster, side by side in one run; the CPU each process
spends per hand; and a per-core model drawn from those costs.

Every row is bench_table's stack and players (bench/bench_table.py: the services as their own
processes, six-handed no-limit tables played by random players over their own gRPC channels,
the tables sharded over the table replicas, table n on replica n % replicas), on a fresh
stack per (replicas, redis) pair; the cluster is 3 masters on loopback (no replicas:
replication is not what is measured; tests/fixtures/redis_cluster.py). Per pair, two rows:

* saturated: every player acts the moment its turn comes, so hands_per_s is the stack's
  ceiling; its latencies are queueing by construction (~`tables` Acts outstanding);
* paced: the room offers PACED_HANDS_PER_S (under the ceilings measured here), so its Act
  p99 is the response time at a load the stack carries, comparable across the rows.

Columns: bench_table's (its docstring; Act p99 is act_rpc_p99_ms, the Act call's round trip,
and act_to_event_p99_ms, until the spectator's stream shows its event), of which
table_process_core_pct_max and redis_process_core_pct_max (the busiest table process and
Redis node, % of one core) and machine_busy_cores (the whole machine, other users included)
say what is full; and cpu_ms_per_hand_<role> (utime+stime per finished hand in the window:
table = all replicas, dealer, ledger, redis = all nodes, client = the players),
cpu_ms_per_hand_one_table_process (table / replicas). The ledger is touched at buy-ins and
cash-outs only (a hand's chips stay in the table's escrow), so it costs ~0 per hand here.
Then the model rows (`model`): per redis kind, from the saturated row with the most
replicas, the service side's CPU per hand (every process but the players, who are a real
room's clients) and the hands/s one core of it gives; a role's CPU ms per hand is also the
cores it needs per 1000 hands/s.

`python -m bench --only scale_out [--quick]`; `python -m bench.bench_scale_out [--quick]`.
"""

from __future__ import annotations

import sys
from typing import Any

from bench.bench_table import Stack, measure_with_roles

REPLICAS = (1, 2, 3)
REDIS_KINDS = ("single", "cluster")
# Divisible by every replica count: each replica serves as many tables.
TABLES = 12
# Offered by the paced rows: about half the lowest saturated ceiling a first (quick) run of
# this benchmark measured on the shared machine (9.0 hands/s: one table process on the
# cluster, load_1m 8.8), so that every row can carry it.
PACED_HANDS_PER_S = 5.0
SERVICE_ROLES = ("table", "dealer", "ledger", "redis")
# bench_table's columns these rows keep (the others describe what is the same in every row).
KEPT = (
    "table_instances",
    "players",
    "hands_per_s",
    "act_rpc_p50_ms",
    "act_rpc_p99_ms",
    "act_to_event_p99_ms",
    "client_lag_p99_ms",
    "table_process_core_pct_max",
    "redis_process_core_pct_max",
    "machine_busy_cores",
    "load_1m",
    "errors",
)


def model(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per redis kind, from the saturated row with the most table replicas: the service
    side's CPU per hand (the players excluded: they are the clients of a real room), the
    hands/s one core of it gives, and the cores each role needs per 1000 hands/s. A paper
    model: it assumes the per-hand cost stays as measured when the processes get cores of
    their own (no contention, no cross-machine hops) and that Redis's work spreads over the
    masters (it does not for the ledger's one slot: docs/scale-out.md)."""
    out = []
    for kind in REDIS_KINDS:
        measured = [r for r in rows if r["redis"] == kind and r["players"] == "saturated"]
        if not measured:
            continue
        row = max(measured, key=lambda r: int(r["table_instances"]))
        service_ms = sum(float(row[f"cpu_ms_per_hand_{role}"]) for role in SERVICE_ROLES)
        # Cores a role needs per 1000 hands/s = its CPU ms per hand (1000 hands/s x ms / 1000),
        # so the model row keeps the measured row's cpu columns and adds what they give.
        entry: dict[str, Any] = {
            "row": "model",
            "redis": kind,
            "table_instances": row["table_instances"],
            "players": "saturated",
            **{f"cpu_ms_per_hand_{role}": row[f"cpu_ms_per_hand_{role}"] for role in SERVICE_ROLES},
            "cpu_ms_per_hand_services": service_ms,
            "hands_per_s_per_core": 1000.0 / service_ms if service_ms else float("nan"),
        }
        out.append(entry)
    return out


def run(quick: bool) -> list[dict[str, Any]]:
    seconds = 4.0 if quick else 8.0
    rows: list[dict[str, Any]] = []
    for replicas in REPLICAS:
        for kind in REDIS_KINDS:
            stack = Stack(replicas, cluster=kind == "cluster")
            try:
                for offered in (None, PACED_HANDS_PER_S):
                    row, roles = measure_with_roles(stack, TABLES, seconds, False, offered)
                    entry: dict[str, Any] = {"row": "measured", "redis": kind}
                    entry.update((key, row[key]) for key in KEPT)
                    if offered is not None:
                        entry["players"] = f"paced {offered:g}/s"
                    for role in (*SERVICE_ROLES, "client"):
                        entry[f"cpu_ms_per_hand_{role}"] = roles.get(role, 0.0)
                    entry["cpu_ms_per_hand_one_table_process"] = roles["table"] / replicas
                    rows.append(entry)
            finally:
                stack.close()
    return rows + model(rows)


def main(argv: list[str]) -> None:
    for row in run(quick="--quick" in argv):
        print(row)


if __name__ == "__main__":
    main(sys.argv[1:])
