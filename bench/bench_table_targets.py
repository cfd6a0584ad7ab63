"""The table runtime's targets, each measured side by side with what it is set against in one
run on this machine, and printed as ratios.

Measurement rows (`kind` = "measured"):

* ``floor``: bench_grpc_servers' grpc.aio server, workload ``stream-act+append+watch`` at 10
  and 100 tables: one Act on a Play stream, one append through the table's own event store
  (RedisEventStore, the same Lua script) and one stream message per Act, no rules, no dealer
  or ledger. Its Acts/s over ACTS_PER_HAND is the most hands/s that plumbing allows here; the
  floor is the better of the two rows.
* ``full stack``: bench_table's stack (Redis, dealer, ledger and table services as separate
  processes, six-handed no-limit hold'em, random players acting through gRPC over Play
  streams, one spectator stream a table), saturated at SATURATED_TABLES tables, with one
  table instance and with two (tables sharded over them).
* ``paced``: 100 tables offering PACED_HANDS_PER_S hands/s (Acts on Play streams): Act sent
  -> its event on the spectator's stream, p99.
* ``paced + open streams``: the same row while OPEN_STREAMS more WatchTable streams are held
  open on quiet tables of the same table process (Room.open_idle_streams): the table
  process's resident memory and the Act p99 beside the row without them (same stack options).

Target rows (`kind` = "target"): `measured` and `goal` in the target's unit, `ratio` =
measured / goal, and `met`:

* full stack >= 50% of the floor (ratio >= 1 meets it);
* two table processes > one (hands/s ratio > 1);
* Act->event p99 < 10 ms at 100 tables offering 30 hands/s (ratio < 1);
* OPEN_STREAMS open streams: table memory < 1 GiB (ratio < 1), and Act p99 unchanged, read as
  at most STREAMS_P99_SLACK times the p99 without them (ratio <= 1); both missed when the
  server did not open every stream within bench_table.IDLE_STREAMS_OPEN_WITHIN_S
  (`streams_open` says how many it did).

`python -m bench --only table_targets` (about 4 minutes; `--quick`: shorter windows and 200
streams, for a smoke run); `python -m bench.bench_table_targets`. docs/table.md keeps the
latest figures, docs/perf/table.md every measurement.
"""

from __future__ import annotations

import argparse

from bench import bench_grpc_servers, bench_table

ACTS_PER_HAND = bench_grpc_servers.ACTS_PER_HAND
FLOOR_ROWS = (("stream-act+append+watch", 10), ("stream-act+append+watch", 100))
SATURATED_TABLES = 10
PACED_TABLES = 100
PACED_HANDS_PER_S = 30.0
OPEN_STREAMS = 2000
# A sync table server holds a pool thread per open stream: enough for every row's streams
# (the spectators', the players' Play streams and the open ones) plus the unary calls.
MAX_WORKERS = 2600
FLOOR_SHARE = 0.5
P99_GOAL_MS = 10.0
MEMORY_GOAL_MIB = 1024.0
STREAMS_P99_SLACK = 1.25


def _floor(quick: bool) -> list[dict[str, object]]:
    rows = bench_grpc_servers.measure(
        ("aio",),
        rounds=1,
        warm_up_s=0.5 if quick else 1.0,
        seconds=2.0 if quick else 6.0,
        rows=FLOOR_ROWS,
    )
    return [
        {
            "kind": "measured",
            "name": f"floor (aio, {row['workload']}, {row['concurrency']} tables)",
            "hands_per_s": row["floor_hands_per_s"],
            "acts_per_s": row["calls_per_s"],
            "p99_ms": row["p99_ms"],
            "load_1m": row["load_1m"],
            "errors": row["errors"],
        }
        for row in rows
        if row["round"] != "median"
    ]


def _stack_row(
    name: str,
    instances: int,
    tables: int,
    seconds: float,
    offered: float | None = None,
    open_streams: int = 0,
    runtime: str = "aio",
) -> dict[str, object]:
    stack = bench_table.Stack(instances, max_workers=MAX_WORKERS, runtime=runtime)
    try:
        row, _ = bench_table.measure_with_roles(
            stack,
            tables,
            seconds,
            offered_hands_per_s=offered,
            streamed=True,
            idle_streams=open_streams,
        )
    finally:
        stack.close()
    return {
        "kind": "measured",
        "name": f"{name} [{runtime}]",
        "hands_per_s": row["hands_per_s"],
        "acts_per_s": row["acts_per_s"],
        "p99_ms": row["act_to_event_p99_ms"],
        "p50_ms": row["act_to_event_p50_ms"],
        "table_cpu_ms_per_hand": row["cpu_ms_per_hand_table"],
        "all_cpu_ms_per_hand": row["cpu_ms_per_hand_all"],
        "table_rss_mib": row["table_rss_mib"],
        "open_streams": open_streams,
        "streams_open": row["idle_streams_open"],
        "load_1m": row["load_1m"],
        "errors": row["errors"],
    }


def _target(name: str, measured: float, goal: float, ratio: float, met: bool) -> dict[str, object]:
    return {
        "kind": "target",
        "name": name,
        "measured": measured,
        "goal": goal,
        "ratio": ratio,
        "met": "yes" if met else "NO",
    }


def _number(row: dict[str, object], column: str) -> float:
    value = row[column]
    assert isinstance(value, int | float), (column, value)
    return float(value)


def targets(
    floor: list[dict[str, object]],
    one: dict[str, object],
    two: dict[str, object],
    paced: dict[str, object],
    crowded: dict[str, object],
    open_streams: int,
) -> list[dict[str, object]]:
    """The target rows from the measurement rows (see the module docstring)."""
    best_floor = max(_number(row, "hands_per_s") for row in floor)
    share = _number(one, "hands_per_s") / best_floor
    scale = _number(two, "hands_per_s") / _number(one, "hands_per_s")
    p99 = _number(paced, "p99_ms")
    rss = _number(crowded, "table_rss_mib")
    slowdown = _number(crowded, "p99_ms") / p99
    # A server that could not hold every stream open missed both of those targets.
    all_open = crowded.get("streams_open", open_streams) == open_streams
    return [
        _target(
            "full stack / aio+stream floor",
            share,
            FLOOR_SHARE,
            share / FLOOR_SHARE,
            share >= FLOOR_SHARE,
        ),
        _target("2 table processes / 1 (hands/s)", scale, 1.0, scale, scale > 1.0),
        _target(
            f"Act->event p99 ms, {PACED_TABLES} tables at {PACED_HANDS_PER_S:g} hands/s",
            p99,
            P99_GOAL_MS,
            p99 / P99_GOAL_MS,
            p99 < P99_GOAL_MS,
        ),
        _target(
            f"table RSS MiB with {open_streams} open streams",
            rss,
            MEMORY_GOAL_MIB,
            rss / MEMORY_GOAL_MIB,
            all_open and rss < MEMORY_GOAL_MIB,
        ),
        _target(
            f"Act p99 with {open_streams} open streams / without",
            slowdown,
            STREAMS_P99_SLACK,
            slowdown / STREAMS_P99_SLACK,
            all_open and slowdown <= STREAMS_P99_SLACK,
        ),
    ]


def run(
    quick: bool, runtime: str = "aio", open_streams: int | None = None
) -> list[dict[str, object]]:
    """Every row, the table services on `runtime` (aio, the default; or sync)."""
    seconds = 5.0 if quick else 15.0
    if open_streams is None:
        open_streams = 200 if quick else OPEN_STREAMS
    floor = _floor(quick)
    one = _stack_row(
        "full stack, 1 table process, saturated", 1, SATURATED_TABLES, seconds, runtime=runtime
    )
    two = _stack_row(
        "full stack, 2 table processes, saturated", 2, SATURATED_TABLES, seconds, runtime=runtime
    )
    paced_name = f"full stack, {PACED_TABLES} tables at {PACED_HANDS_PER_S:g} hands/s"
    paced = _stack_row(paced_name, 1, PACED_TABLES, seconds, PACED_HANDS_PER_S, runtime=runtime)
    crowded = _stack_row(
        f"{paced_name} + {open_streams} open streams",
        1,
        PACED_TABLES,
        seconds,
        PACED_HANDS_PER_S,
        open_streams,
        runtime=runtime,
    )
    measured = [*floor, one, two, paced, crowded]
    return measured + targets(floor, one, two, paced, crowded, open_streams)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_table_targets")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runtime", choices=("aio", "sync"), default="aio")
    parser.add_argument("--open-streams", type=int, help="instead of the run's default")
    args = parser.parse_args(argv)
    for row in run(args.quick, args.runtime, args.open_streams):
        print(row)


if __name__ == "__main__":
    main()
