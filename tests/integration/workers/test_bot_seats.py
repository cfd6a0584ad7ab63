"""Bots requested at CreateTable whose seating trigger was lost, and where their chips go.

The table service here schedules through a `CeleryScheduler` that loses every seat-bot task
(as the Redis broker does when a worker is killed holding it, celery#3541) after writing it
into the seat-bot index, as the real one does: only the REAL worker process's sweeper, which
sends overdue index entries again, can seat them. Timeouts and bot turns go through Celery as
usual.
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest

from croupier.table.v1 import table_pb2
from services.scheduling.scheduler import CeleryScheduler, send_seat_bot
from services.shared import auth
from services.workers.bot_chips import issue_key, join_key, return_key
from services.workers.bot_seats import seated_bot_id
from services.workers.ports import BotSeatRequest
from services.workers.seat_give_ups import backoff
from services.workers.settings import WorkerSettings
from tests.fixtures.redis_server import RedisServer
from tests.fixtures.table_views import played
from tests.integration.table.conftest import KEY, act, create_table, seat, view_of
from tests.integration.table.test_key_squatting import squat

from .table_stack import StackPlatform, table_stack
from .worker_process import WorkerProcess, running_worker, worker_env

pytestmark = pytest.mark.integration
SWEEP_INTERVAL = 0.5
SEAT_RESEND = 1.0  # an unseated requested bot's seating is sent again after this long
BUY_IN = 200  # 100 big blinds at 1/2


class LosingScheduler(CeleryScheduler):
    """Sends timeouts and bot turns, but every seat-bot task is lost on the way."""

    lost: list[tuple[str, int]]

    def _send_seat_bot(self, request: BotSeatRequest) -> None:
        self.lost.append((request.table_id, request.index))

    def resend_seat_bot(self, table_id: str, index: int, policy: str, difficulty: float) -> None:
        """A late duplicate of the original trigger, delivered after all."""
        send_seat_bot(self._celery, BotSeatRequest(table_id, index, policy, difficulty))


@pytest.fixture(scope="module")
def redis_for_bots() -> Iterator[RedisServer]:
    with RedisServer.private_server() as server:
        yield server


@pytest.fixture(scope="module")
def scheduler(redis_for_bots: RedisServer) -> LosingScheduler:
    settings = WorkerSettings(redis_url=redis_for_bots.url, auth_key=KEY, bot_delay=0.0)
    plain = CeleryScheduler.from_settings(settings.scheduling)
    losing = LosingScheduler(
        plain._celery,
        plain._index,
        max_countdown=settings.max_countdown,
        bot_turns=plain._bot_turns,
        seat_bots=plain._seat_bots,
        seat_resend=SEAT_RESEND,
    )
    losing.lost = []
    return losing


@pytest.fixture(scope="module")
def platform(redis_for_bots: RedisServer, scheduler: LosingScheduler) -> Iterator[StackPlatform]:
    with table_stack(redis_for_bots.url, "ledger-bot-seats", scheduler) as handle:
        yield handle


@pytest.fixture(scope="module")
def worker(
    redis_for_bots: RedisServer, platform: StackPlatform, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WorkerProcess]:
    env = worker_env(
        redis_for_bots.url,
        f"127.0.0.1:{platform.port}",
        KEY,
        f"127.0.0.1:{platform.ledger_port}",
        sweep_interval=SWEEP_INTERVAL,
        seat_resend=SEAT_RESEND,
    )
    with running_worker(env, tmp_path_factory.mktemp("worker")) as process:
        yield process


def wait_for(condition: Callable[[], bool], timeout: float) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def create_table_with_bots(platform: StackPlatform, bots: list[tuple[str, float]]) -> str:
    return create_table(platform, seats=4, max_buy_in=1000, action_time_ms=30_000, bots=bots)


def seated(platform: StackPlatform, table_id: str) -> list[str]:
    view = view_of(platform.table("house", auth.Role.ADMIN), table_id)
    return sorted(s.player_id for s in view.seats if s.player_id)


def tries(log: Path, table_id: str) -> list[tuple[float, str]]:
    """(time, line) of every worker log line that names the table (Celery's timestamps)."""
    found: list[tuple[float, str]] = []
    for line in log.read_text().splitlines():
        if table_id in line and line.startswith("["):
            stamp = dt.datetime.strptime(line[1:24], "%Y-%m-%d %H:%M:%S,%f")
            found.append((stamp.timestamp(), line))
    return found


def chips_outside_the_table(platform: StackPlatform, players: list[str]) -> int:
    return sum(platform.balance(f"player:{p}:CHIP") for p in players)


def test_lost_seating_triggers_are_resent_by_the_sweeper_and_a_duplicate_seats_nobody_twice(
    platform: StackPlatform, worker: WorkerProcess, scheduler: LosingScheduler
) -> None:
    requested = [("random", 0.0), ("tight", 0.5)]
    table_id = create_table_with_bots(platform, requested)
    bots = sorted(seated_bot_id(table_id, i, p, d) for i, (p, d) in enumerate(requested))
    assert (table_id, 0) in scheduler.lost and (table_id, 1) in scheduler.lost

    # Only the sweeper's re-send (SEAT_RESEND after the lost one) can seat them now.
    bound = SEAT_RESEND + SWEEP_INTERVAL + 5.0  # plus two seatings over gRPC and the ledger
    assert wait_for(lambda: seated(platform, table_id) == bots, timeout=bound + 10)
    assert "bots reseated" in worker.log_path.read_text()  # the sweeper's doing
    house = platform.table("house", auth.Role.ADMIN)
    # (generous: hand 2 needs a whole hand of bot turns through Celery, slow on a loaded machine)
    assert wait_for(lambda: played(view_of(house, table_id), 2), timeout=90), "no play"

    # Late duplicates of the original triggers arrive after all: nothing changes.
    for index, (policy, difficulty) in enumerate(requested):
        for _ in range(2):
            scheduler.resend_seat_bot(table_id, index, policy, difficulty)
    log = worker.log_path
    assert wait_for(lambda: log.read_text().count(f"of table {table_id}: already") >= 4, timeout=15)
    assert seated(platform, table_id) == bots
    # Each bot was funded once (100 big blinds) and every chip is on the table or theirs.
    escrow = platform.balance(f"table:{table_id}:CHIP")
    assert escrow + chips_outside_the_table(platform, bots) == 2 * BUY_IN


def test_a_bot_that_leaves_cashes_out_every_chip_and_is_not_seated_again(
    platform: StackPlatform, worker: WorkerProcess, scheduler: LosingScheduler
) -> None:
    requested = [("random", 0.0), ("equity", 0.25), ("tight", 0.5)]
    table_id = create_table_with_bots(platform, requested)
    bots = sorted(seated_bot_id(table_id, i, p, d) for i, (p, d) in enumerate(requested))
    house = platform.table("house", auth.Role.ADMIN)
    assert wait_for(lambda: seated(platform, table_id) == bots, timeout=20)
    assert wait_for(lambda: played(view_of(house, table_id), 3), timeout=90), "no play"

    # Every bot leaves (at the end of the hand in progress) with its own bot credentials.
    for bot in bots:
        platform.table(bot, auth.Role.BOT).LeaveTable(
            table_pb2.LeaveTableRequest(table_id=table_id, idempotency_key=f"leave-{bot}")
        )
    assert wait_for(lambda: seated(platform, table_id) == [], timeout=30)

    # The cash-outs are process steps after PlayerLeft: wait for the escrow to empty.
    def settled() -> bool:
        return platform.balance(f"table:{table_id}:CHIP") == 0

    assert wait_for(settled, timeout=15), "chips left in the table's escrow"
    # No rake at this table: the bots' accounts hold exactly what they were given.
    assert chips_outside_the_table(platform, bots) == len(bots) * BUY_IN
    final = {b: platform.balance(f"player:{b}:CHIP") for b in bots}

    # Two resend periods later, and after a late duplicate trigger, nobody came back and no
    # bot was funded again.
    scheduler.resend_seat_bot(table_id, 0, *requested[0])
    time.sleep(2 * SEAT_RESEND + 2 * SWEEP_INTERVAL + 1.0)
    assert seated(platform, table_id) == []
    assert {b: platform.balance(f"player:{b}:CHIP") for b in bots} == final
    view = view_of(house, table_id)
    assert sorted(view.bots_seated) == bots


def test_a_bot_only_table_closed_mid_hand_finishes_it_pays_every_bot_and_deals_no_more(
    platform: StackPlatform, worker: WorkerProcess, scheduler: LosingScheduler
) -> None:
    requested = [("random", 0.0), ("tight", 0.5)]
    table_id = create_table_with_bots(platform, requested)
    bots = sorted(seated_bot_id(table_id, i, p, d) for i, (p, d) in enumerate(requested))
    house = platform.table("house", auth.Role.ADMIN)
    assert wait_for(lambda: seated(platform, table_id) == bots, timeout=20)
    assert wait_for(lambda: view_of(house, table_id).hand_in_progress, timeout=30), "no hand"

    closing = house.CloseTable(table_pb2.CloseTableRequest(table_id=table_id, idempotency_key="c"))
    last_hand = view_of(house, table_id).hand_number
    assert closing.status in (table_pb2.TABLE_STATUS_CLOSING, table_pb2.TABLE_STATUS_CLOSED)
    closed = table_pb2.TABLE_STATUS_CLOSED
    assert wait_for(lambda: view_of(house, table_id).status == closed, timeout=60), "not closed"
    assert platform.balance(f"table:{table_id}:CHIP") == 0
    assert chips_outside_the_table(platform, bots) == len(bots) * BUY_IN  # no rake here

    # A resend period and a late duplicate seating trigger later: nobody sat down again and
    # no hand was dealt.
    scheduler.resend_seat_bot(table_id, 0, *requested[0])
    time.sleep(2 * SEAT_RESEND + 2 * SWEEP_INTERVAL + 1.0)
    view = view_of(house, table_id)
    assert seated(platform, table_id) == [] and view.hand_number == last_hand
    assert not view.hand_in_progress


def test_a_requested_bot_that_can_never_sit_is_not_sent_again_every_resend_period(
    platform: StackPlatform, worker: WorkerProcess, scheduler: LosingScheduler
) -> None:
    # The ledger refuses this bot's buy-in for good, while the table has free seats for ever:
    # the key of its first issue (seat-bot/<table>/0/0, bot_chips.issue_key) was spent on
    # another deposit before the table existed, so every Deposit of that issue is a reused
    # key (INVALID_ARGUMENT). (CreateTable refuses the bots it can tell will never sit: an
    # unknown policy, a bad difficulty, a table id too long for the bot's account name.)
    table_id = f"t{uuid.uuid4().hex}"
    squatter = f"squatter-{table_id}"
    platform.fund(squatter, 1, key=issue_key(table_id, 0, 0))
    create_table(
        platform,
        table_id,
        seats=4,
        max_buy_in=1000,
        action_time_ms=30_000,
        bots=[("tight", 0.5)],
    )
    log = worker.log_path
    assert wait_for(lambda: table_id in log.read_text(), timeout=SEAT_RESEND + 10)

    # The sweeper looks at the seating every second here; it holds off for the first backoff
    # (10 s) instead of sending it again each time.
    time.sleep(backoff(1) * 0.6)
    early = tries(log, table_id)
    outcome = f"bot 0 of table {table_id}: refused"
    assert all(outcome in line for _, line in early), f"retried: {early}"
    first = early[0][0]
    # (At most a re-send that was already on its way before the give-up was recorded.)
    assert len(early) <= 2 and all(at - first < 2.0 for at, _ in early), early

    # A requested bot is never dropped: once the backoff is over, it is tried again.
    def tried_again() -> list[float]:
        return [at for at, _ in tries(log, table_id) if at - first >= 2.0]

    assert wait_for(lambda: tried_again() != [], timeout=backoff(1) + 10)
    assert tried_again()[0] - first >= backoff(1) - 0.5
    house = platform.table("house", auth.Role.ADMIN)
    assert seated(platform, table_id) == [] and view_of(house, table_id).bots_seated == []
    # Refused at the issue itself: the bot was never given a chip.
    assert platform.balance(f"player:{seated_bot_id(table_id, 0, 'tight', 0.5)}:CHIP") == 0


def test_a_full_table_gets_one_seating_try_then_none_until_a_seat_frees(
    platform: StackPlatform, worker: WorkerProcess, scheduler: LosingScheduler
) -> None:
    # Paused worker (and its beat): two humans fill the table before any sweep can seat the
    # bot whose trigger was lost.
    assert worker.process is not None  # started by the fixture
    os.killpg(worker.process.pid, signal.SIGSTOP)
    try:
        table_id = create_table(
            platform, seats=2, max_buy_in=1000, action_time_ms=30_000, bots=[("random", 0.0)]
        )
        humans = {n: seat(platform, table_id, f"{n}-{table_id}", n, BUY_IN) for n in (0, 1)}
    finally:
        os.killpg(worker.process.pid, signal.SIGCONT)
    # One re-send finds the table full, and the bot leaves the index: no more tries.
    assert wait_for(lambda: tries(worker.log_path, table_id) != [], timeout=SEAT_RESEND + 15)
    time.sleep(3 * SEAT_RESEND + SWEEP_INTERVAL)
    outcomes = [line.split(": ")[-1] for _, line in tries(worker.log_path, table_id)]
    assert outcomes == ["no-seat"], outcomes

    # The human in seat 0 leaves at the end of the hand, which a fold ends now.
    humans[0].LeaveTable(table_pb2.LeaveTableRequest(table_id=table_id, idempotency_key="bye"))
    view = view_of(platform.table("house", auth.Role.ADMIN), table_id)
    act(humans[view.to_act], table_id, view.hand_number, table_pb2.ACTION_FOLD)

    # The seat is free: the table's recovery (the table was written, then quiet) sends the
    # seating again (lost too, here), the sweeper re-sends it, and the bot sits down.
    bot = seated_bot_id(table_id, 0, "random", 0.0)
    assert wait_for(lambda: bot in seated(platform, table_id), timeout=SEAT_RESEND + 20)
    # The worker logs a try's outcome after the seat it took is visible: wait for the line.
    assert wait_for(lambda: len(tries(worker.log_path, table_id)) > 1, timeout=10)
    outcomes = [line.split(": ")[-1] for _, line in tries(worker.log_path, table_id)]
    # (A second re-send may come before the first try is done: harmless.)
    assert outcomes[1] == "seated" and set(outcomes[1:]) <= {"seated", "already"}, outcomes
    assert seated(platform, table_id) == sorted([bot, f"1-{table_id}"])


def test_a_player_cannot_squat_a_requested_bots_keys_and_the_bot_sits_down(
    platform: StackPlatform, worker: WorkerProcess, scheduler: LosingScheduler
) -> None:
    # Every key the seating derives from the table id (public): its first rounds' issues and
    # returns, and the ledger hold its JoinTable takes (the table keys it by the join's key).
    table_id = f"t{uuid.uuid4().hex[:12]}"
    bot = seated_bot_id(table_id, 0, "tight", 0.5)
    keys = [issue_key(table_id, 0, r) for r in range(3)]
    keys += [return_key(table_id, 0, r) for r in range(3)]
    keys += [f"{table_id}/join/{bot}/{join_key(0, r, 0)}" for r in range(3)]
    codes = squat(platform, keys)
    create_table(
        platform, table_id, seats=4, max_buy_in=1000, action_time_ms=30_000, bots=[("tight", 0.5)]
    )
    assert wait_for(lambda: seated(platform, table_id) == [bot], timeout=SEAT_RESEND + 20)
    assert set(codes) == {grpc.StatusCode.PERMISSION_DENIED}
