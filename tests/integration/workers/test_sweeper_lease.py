"""The sweeper lease: one holder at a time, renewed by its holder, taken over once a holder
that stopped renewing (killed) lets it run out, and handed over at once on release."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis
from celery import Celery

from services.workers.celery_app import configure
from services.workers.settings import WorkerSettings
from services.workers.sweeper_lease import LeasedScheduler, SweeperLease
from tests.fixtures.conditions import wait_until

LEASE_S = 0.5


def test_one_holder_at_a_time_and_its_renewals_keep_it(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    key = f"{key_prefix}:sweeper-lease"
    first, second = (SweeperLease(redis_client, LEASE_S, key=key) for _ in range(2))
    assert first.hold() and not second.hold()
    until = time.monotonic() + 3 * LEASE_S
    while time.monotonic() < until:  # renewed well within the lease: never lost
        assert first.hold() and not second.hold()
        time.sleep(LEASE_S / 5)


def test_a_holder_that_stops_renewing_loses_the_lease_within_its_time(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    key = f"{key_prefix}:sweeper-lease"
    dead, alive = (SweeperLease(redis_client, LEASE_S, key=key) for _ in range(2))
    assert dead.hold()
    stopped = time.monotonic()
    wait_until(alive.hold, 5, "the lease taken over", poll=0.02)
    assert time.monotonic() - stopped <= LEASE_S + 0.5
    assert not dead.hold()  # the old holder, back, is not the holder any more


def test_a_released_lease_is_taken_at_once(redis_client: redis.Redis, key_prefix: str) -> None:
    key = f"{key_prefix}:sweeper-lease"
    leaving, next_one = (SweeperLease(redis_client, 30, key=key) for _ in range(2))
    assert leaving.hold()
    next_one.release()  # not the holder: changes nothing
    assert not next_one.hold()
    leaving.release()
    assert next_one.hold()


def test_the_sweeper_bound_counts_the_lease() -> None:
    settings = WorkerSettings(redis_url="redis://r:1/0", sweep_interval=0.5, sweep_grace=0.25)
    assert settings.sweeper_lease == 2.0
    assert settings.sweeper_bound == 2.0 + 0.5 + 0.25
    assert WorkerSettings(redis_url="redis://r:1/0", sweep_interval=1.0).sweeper_lease == 3.0


def test_of_two_beats_only_the_lease_holder_sends_and_the_other_takes_over(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    settings = WorkerSettings(
        redis_url=redis_url, sweep_interval=0.2, sweeper_lease_key=f"{key_prefix}:lease"
    )
    app = configure(Celery("lease-test", set_as_current=False), settings)
    sent: dict[str, int] = {}

    class Recording(LeasedScheduler):
        """The real scheduler, recording its sends instead of queuing sweeps."""

        def apply_entry(self, entry: Any, producer: Any = None) -> None:
            sent[self.holder] = sent.get(self.holder, 0) + 1

    beats = [Recording(app=app, schedule_filename=str(tmp_path / f"beat-{n}")) for n in (1, 2)]
    live = list(beats)

    def ticked_until(condition: Callable[[], bool]) -> Callable[[], bool]:
        def step() -> bool:
            for beat in live:
                beat.tick()
            return condition()

        return step

    wait_until(ticked_until(lambda: sum(sent.values()) >= 3), 10, "three sweeps sent")
    assert len(sent) == 1, sent  # one beat held the lease all along, the other sent nothing
    holder = next(b for b in beats if b.holder in sent)
    other = next(b for b in beats if b is not holder)
    # The holder dies (ticks no more): the other beat takes the lease once it runs out.
    live.remove(holder)
    stopped = time.monotonic()
    wait_until(ticked_until(lambda: other.holder in sent), 10, "the sweeps taken over")
    assert time.monotonic() - stopped <= settings.sweeper_lease + settings.sweep_interval + 0.5
    for beat in beats:
        beat.close()
