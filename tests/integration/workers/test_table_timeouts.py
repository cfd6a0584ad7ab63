"""Timeouts and bot turns end to end: the real table service (with its dealer and ledger)
schedules through Celery, and a REAL worker process applies them over gRPC."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator, Sequence

import grpc
import pytest
import redis

from croupier.highcard.v1 import highcard_pb2
from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.bots.identity import bot_id
from services.bots.simulation.engine_runner import SimulationSpec
from services.bots.simulation.full_stack import Platform as FullStackPlatform
from services.bots.simulation.full_stack import run_full_stack
from services.scheduling.deadline_index import DEFAULT_KEY
from services.scheduling.deadlines import Deadline
from services.scheduling.scheduler import CeleryScheduler, send_timeout
from services.shared import auth
from services.workers.settings import WorkerSettings
from tests.fixtures.redis_server import RedisServer
from tests.fixtures.table_views import played
from tests.integration.table.conftest import KEY, act, create_table, seat, view_of
from tests.integration.table.test_idempotency import stored_events

from .table_stack import StackPlatform, seat_bot, table_stack
from .worker_process import WorkerProcess, running_worker, worker_env

pytestmark = pytest.mark.integration
A = table_pb2
SWEEP_INTERVAL = 0.5
SWEEP_GRACE = 0.2
# The table's recovery sweep (table_stack's defaults).
RECOVERY_GRACE = 1.0
RECOVERY_INTERVAL = 0.2


@pytest.fixture(scope="module")
def redis_server_for_stack() -> Iterator[RedisServer]:
    with RedisServer.private_server() as server:
        yield server


@pytest.fixture(scope="module")
def settings(redis_server_for_stack: RedisServer) -> WorkerSettings:
    return WorkerSettings(
        redis_url=redis_server_for_stack.url,
        auth_key=KEY,
        sweep_interval=SWEEP_INTERVAL,
        sweep_grace=SWEEP_GRACE,
        bot_delay=0.0,
    )


@pytest.fixture(scope="module")
def scheduler(settings: WorkerSettings) -> CeleryScheduler:
    return CeleryScheduler.from_settings(settings.scheduling)


@pytest.fixture(scope="module")
def platform(settings: WorkerSettings, scheduler: CeleryScheduler) -> Iterator[StackPlatform]:
    with table_stack(settings.redis_url, "ledger-workers", scheduler) as handle:
        yield handle


@pytest.fixture(scope="module")
def worker(
    settings: WorkerSettings, platform: StackPlatform, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WorkerProcess]:
    env = worker_env(
        settings.redis_url,
        f"127.0.0.1:{platform.port}",
        KEY,
        f"127.0.0.1:{platform.ledger_port}",
        sweep_interval=SWEEP_INTERVAL,
        sweep_grace=SWEEP_GRACE,
    )
    with running_worker(env, tmp_path_factory.mktemp("worker")) as process:
        yield process


def heads_up_table(
    platform: StackPlatform, action_time_ms: int
) -> tuple[str, dict[int, table_pb2_grpc.TableServiceStub]]:
    table_id = create_table(platform, seats=2, action_time_ms=action_time_ms)
    stubs = {}
    for seat_no in (0, 1):
        player = f"p{seat_no}-{uuid.uuid4().hex[:8]}"
        stubs[seat_no] = seat(platform, table_id, player, seat_no, 200)
    return table_id, stubs


def events_until(
    stub: table_pb2_grpc.TableServiceStub,
    table_id: str,
    from_version: int,
    stop: Callable[[list[events_pb2.TableEvent]], bool],
    timeout: float,
) -> list[events_pb2.TableEvent]:
    """Watch the table from `from_version` until `stop(events)` holds or `timeout` passes."""
    stream = stub.WatchTable(
        table_pb2.WatchTableRequest(table_id=table_id, from_version=from_version),
        timeout=timeout,
    )
    events: list[events_pb2.TableEvent] = []
    try:
        for message in stream:
            if message.HasField("event"):
                events.append(message.event)
                if stop(events):
                    break
    except grpc.RpcError as exc:
        if exc.code() is not grpc.StatusCode.DEADLINE_EXCEEDED:
            raise
    finally:
        stream.cancel()
    return events


def kind(event: events_pb2.TableEvent) -> str | None:
    return event.WhichOneof("event")


def test_a_player_who_does_not_act_is_folded_then_checked_at_the_deadline(
    platform: StackPlatform, worker: WorkerProcess
) -> None:
    table_id, stubs = heads_up_table(platform, action_time_ms=700)
    house = platform.table("house", auth.Role.ADMIN)
    view = view_of(house, table_id)
    first = view.to_act  # the button / small blind, facing the big blind: cannot check
    events = events_until(
        house, table_id, view.version, lambda evs: any(kind(e) == "timed_out" for e in evs), 10
    )
    timed_out = next(e for e in events if kind(e) == "timed_out")
    assert timed_out.timed_out.seat == first
    assert timed_out.recorded_at_ms >= view.deadline_unix_ms  # never early
    default = events[events.index(timed_out) - 1]
    assert kind(default) == "action_taken" and default.action_taken.action == "fold"

    # Next hand: the small blind calls; the big blind, free to check, does nothing.
    view = view_of(house, table_id)
    while view.hand_number < 2 or view.to_act < 0:
        time.sleep(0.05)
        view = view_of(house, table_id)
    act(stubs[view.to_act], table_id, view.hand_number, A.ACTION_CALL)
    view = view_of(house, table_id)
    checker = view.to_act
    events = events_until(
        house, table_id, view.version, lambda evs: any(kind(e) == "timed_out" for e in evs), 10
    )
    timed_out = next(e for e in events if kind(e) == "timed_out")
    default = events[events.index(timed_out) - 1]
    assert timed_out.timed_out.seat == checker
    assert kind(default) == "action_taken" and default.action_taken.action == "check"


def test_a_player_acting_10_ms_before_the_deadline_is_never_also_timed_out(
    platform: StackPlatform, worker: WorkerProcess
) -> None:
    table_id, stubs = heads_up_table(platform, action_time_ms=600)
    house = platform.table("house", auth.Role.ADMIN)
    first_version = view_of(house, table_id).version
    in_time = 0
    for _ in range(8):
        view = view_of(house, table_id)
        mine = view_of(stubs[view.to_act], table_id)
        legal = {a.action for a in mine.legal_actions}
        action = A.ACTION_CHECK if A.ACTION_CHECK in legal else A.ACTION_CALL
        # 10 ms before the deadline, or as long before it as two calls take here when that is
        # longer (a loaded machine): the act has to reach the table before the deadline.
        started = time.time()
        view_of(house, table_id)
        margin = max(0.010, 2 * (time.time() - started))
        time.sleep(max(0.0, view.deadline_unix_ms / 1000 - margin - time.time()))
        try:
            act(stubs[view.to_act], table_id, view.hand_number, action)
            in_time += 1
        except grpc.RpcError as refused:
            # The machine stalled the act past the deadline after all: the timeout ended the
            # decision and the act was refused, which is no double either.
            assert refused.code() is grpc.StatusCode.FAILED_PRECONDITION, refused
            ended = events_until(
                house,
                table_id,
                view.version,
                lambda evs: any(kind(e) == "timed_out" for e in evs),
                5,
            )
            assert any(kind(e) == "timed_out" and e.timed_out.seat == view.to_act for e in ended)
        if in_time == 4:
            break
    assert in_time >= 1
    # The whole stream (from after TableCreated): the first decision's ActionRequested may be
    # recorded before `first_version`, and a timeout ending it must find it.
    events = events_until(house, table_id, 1, lambda evs: False, 1.5)
    assert any(e.version > first_version for e in events)
    # Every timeout in the stream came at or after the deadline of the decision it ended,
    # and none ended a decision the player had already made.
    requested = None
    for event in events:
        if kind(event) == "action_requested":
            requested = event
        elif kind(event) == "timed_out":
            assert requested is not None
            assert event.recorded_at_ms >= requested.action_requested.deadline_unix_ms


def test_a_timeout_task_delivered_several_times_changes_the_table_once(
    platform: StackPlatform,
    worker: WorkerProcess,
    scheduler: CeleryScheduler,
    settings: WorkerSettings,
) -> None:
    table_id, _ = heads_up_table(platform, action_time_ms=800)
    house = platform.table("house", auth.Role.ADMIN)
    view = view_of(house, table_id)
    deadline = Deadline.from_unix_ms(
        table_id, view.hand_number, view.action_number, view.deadline_unix_ms
    )
    for _ in range(3):  # on top of the table's own trigger
        send_timeout(scheduler._celery, deadline, now=time.time(), max_countdown=300)
    events = events_until(house, table_id, view.version, lambda evs: False, 2.5)
    timeouts = [e for e in events if kind(e) == "timed_out"]
    hand_events = [e for e in timeouts if e.version < _first_version_of_next_hand(events)]
    assert len(hand_events) == 1


def deadline_of(table_id: str, open_: table_pb2.Deadline) -> Deadline:
    round_, number = (int(part) for part in open_.id.split("/"))
    return Deadline.from_unix_ms(table_id, round_, number, open_.deadline_unix_ms)


def highcard_table(platform: StackPlatform, action_time_ms: int) -> str:
    """Heads-up high card (both seats may turn at once: two open deadlines), both seated."""
    table_id = f"hc-{uuid.uuid4().hex[:10]}"
    platform.table("house", auth.Role.ADMIN).CreateTable(
        table_pb2.CreateTableRequest(
            table_id=table_id,
            idempotency_key=f"create-{table_id}",
            options=table_pb2.TableOptions(
                min_buy_in=50,
                max_buy_in=500,
                action_time_ms=action_time_ms,
                highcard=highcard_pb2.HighCardOptions(ante=1),
            ),
        )
    )
    for seat_no in (0, 1):
        seat(platform, table_id, f"hc{seat_no}-{uuid.uuid4().hex[:8]}", seat_no, 100)
    return table_id


def test_two_deadlines_of_one_table_both_fire_through_celery_each_once(
    platform: StackPlatform,
    worker: WorkerProcess,
    scheduler: CeleryScheduler,
    settings: WorkerSettings,
) -> None:
    table_id = highcard_table(platform, action_time_ms=3_000)
    house = platform.table("house", auth.Role.ADMIN)
    view = view_of(house, table_id)
    end = time.time() + 30
    while not (view.hand_in_progress and len(view.deadlines) == 2):
        assert time.time() < end, f"round 1 never asked both seats: {view}"
        time.sleep(0.02)
        view = view_of(house, table_id)
    deadlines = {d.seat: deadline_of(table_id, d) for d in view.deadlines}
    # Both are in the index at once (the index keeps every open decision of a table).
    index = redis.Redis.from_url(settings.redis_url)
    members = {d.member() for d in deadlines.values()}
    while {m for m in members if index.zscore(DEFAULT_KEY, m) is not None} != members:
        assert time.time() < min(d.due_at for d in deadlines.values()), "never both indexed"
        time.sleep(0.02)
    for deadline in deadlines.values():  # a duplicate trigger on top of each table's own
        send_timeout(scheduler._celery, deadline, now=time.time(), max_countdown=300)

    def turned(events: list[events_pb2.TableEvent]) -> list[events_pb2.TableEvent]:
        return [
            e
            for e in events
            if kind(e) == "highcard"
            and e.highcard.WhichOneof("event") == "card_turned"
            and e.highcard.card_turned.round == view.hand_number
        ]

    def round_over(events: list[events_pb2.TableEvent]) -> bool:
        return any(
            kind(e) == "highcard" and e.highcard.WhichOneof("event") == "round_won" for e in events
        )

    events = events_until(house, table_id, view.version, round_over, 30)
    assert round_over(events), "the round never ended: a timeout was lost"
    # Let the duplicates (and any late trigger) arrive: still one turn per seat.
    events += events_until(house, table_id, events[-1].version, lambda evs: False, 1.5)
    turns = turned(events)
    assert sorted(t.highcard.card_turned.seat for t in turns) == [0, 1]
    for t in turns:
        assert t.highcard.card_turned.timed_out
        due = deadlines[t.highcard.card_turned.seat].due_at
        assert t.recorded_at_ms >= round(due * 1000)  # never early
    index.close()


def _first_version_of_next_hand(events: Sequence[events_pb2.TableEvent]) -> int:
    starts = [e.version for e in events if kind(e) == "hand_started"]
    return starts[0] if starts else 1 << 62


def stalled_at(redis_url: str, table_id: str, view: table_pb2.TableView) -> str:
    """What a stalled table shows: what it waits for and the last events it recorded."""
    events = stored_events(redis_url, table_id)
    lines = [f"{type(e).__name__} {str(e).replace(chr(10), ' ')[:160]}" for e in events[-25:]]
    waiting = f"to_act={view.to_act} in_progress={view.hand_in_progress} version={view.version}"
    return "\n".join([waiting, *lines])


def test_bots_play_hands_through_the_table_service_without_an_illegal_action(
    platform: StackPlatform, worker: WorkerProcess, settings: WorkerSettings
) -> None:
    table_id = create_table(platform, seats=3, action_time_ms=30_000)
    bots = [bot_id(policy, uuid.uuid4().hex[:6], 0.0) for policy in ("equity", "tight", "random")]
    for seat_no, bot in enumerate(bots):
        seat_bot(platform, table_id, bot, seat_no, 200)
    house = platform.table("house", auth.Role.ADMIN)
    # "Stopped playing" means no new hand for 90 s: a busy machine plays slowly, not never.
    hand, progressed_at = 0, time.time()
    view = view_of(house, table_id)
    while not played(view, 8) and time.time() - progressed_at < 90:
        time.sleep(0.2)
        view = view_of(house, table_id)
        if view.hand_number > hand:
            hand, progressed_at = view.hand_number, time.time()
    log = worker.log_path.read_text()
    assert played(view, 8), (
        f"the bots stopped playing after hand {view.hand_number}\n"
        + stalled_at(settings.redis_url, table_id, view)
        + "\nthe worker's log ends:\n"
        + "\n".join(log.splitlines()[-40:])
    )
    assert "refused" not in log  # remote.play_turn logs every action the table rejected
    in_play = sum(s.stack + s.committed for s in view.seats)
    assert in_play == 600  # no rake at this table: every chip is still on it


def test_simulate_full_stack_plays_bots_and_checks_chips_against_the_ledger(
    platform: StackPlatform, worker: WorkerProcess
) -> None:
    spec = SimulationSpec(
        game="nlhe", hands=5, seats=3, bots=("equity", "tight", "random"), difficulty=0.0
    )
    targets = FullStackPlatform(
        table_target=f"127.0.0.1:{platform.port}",
        ledger_target=f"127.0.0.1:{platform.ledger_port}",
        auth_key=KEY,
    )
    report = run_full_stack(spec, targets, timeout=60)
    assert report.hands == 5
    assert report.conserved  # after leaving: escrow empty, every buy-in back in the accounts
    assert sum(r.net_chips for r in report.results) == 0


def test_a_lost_deadline_index_is_rebuilt_by_the_tables_recovery_and_the_timeout_still_fires(
    platform: StackPlatform, worker: WorkerProcess, settings: WorkerSettings
) -> None:
    table_id, _ = heads_up_table(platform, action_time_ms=500)
    house = platform.table("house", auth.Role.ADMIN)
    view = view_of(house, table_id)
    # Lose the index (as if Redis lost it, or the table crashed before scheduling): the ETA
    # task then finds nothing to fire, and only the table's recovery sweep (which sends the
    # triggers of a table nobody wrote for a grace period again) can save it.
    redis.Redis.from_url(settings.redis_url).delete(DEFAULT_KEY, f"{DEFAULT_KEY}:current")
    events = events_until(
        house, table_id, view.version, lambda evs: any(kind(e) == "timed_out" for e in evs), 15
    )
    timed_out = [e for e in events if kind(e) == "timed_out"]
    assert timed_out, "the rebuilt deadline never fired"
    late_ms = timed_out[0].recorded_at_ms - view.deadline_unix_ms
    bound_ms = (RECOVERY_GRACE + RECOVERY_INTERVAL + SWEEP_INTERVAL + SWEEP_GRACE + 2.0) * 1000
    assert 0 <= late_ms <= bound_ms


def test_the_time_bank_extends_a_deadline_until_exhausted_then_refills_every_hand(
    platform: StackPlatform, worker: WorkerProcess
) -> None:
    table_id = create_table(
        platform,
        seats=2,
        action_time_ms=300,
        time_bank_ms=400,
        time_bank_chunk_ms=200,
        time_bank_refill_ms=150,
        time_bank_refill_every_hands=1,
    )
    for seat_no in (0, 1):
        seat(platform, table_id, f"p{seat_no}-{uuid.uuid4().hex[:8]}", seat_no, 200)
    house = platform.table("house", auth.Role.ADMIN)
    view = view_of(house, table_id)
    idle = view.to_act
    events = events_until(
        house,
        table_id,
        view.version,
        lambda evs: any(kind(e) == "time_bank_refilled" for e in evs),
        10,
    )
    in_hand_one = events[: next(i for i, e in enumerate(events) if kind(e) == "hand_ended")]
    extended = [e for e in in_hand_one if kind(e) == "time_bank_extended"]
    # Two chunks of 200 ms, each when the previous deadline had passed, same decision.
    assert [e.time_bank_extended.remaining_ms for e in extended] == [200, 0]
    assert [e.time_bank_extended.used_ms for e in extended] == [200, 200]
    deadlines = [view.deadline_unix_ms] + [e.time_bank_extended.deadline_unix_ms for e in extended]
    assert deadlines[1:] == [view.deadline_unix_ms + 200, view.deadline_unix_ms + 400]
    for event, due in zip(extended, deadlines, strict=False):
        assert event.recorded_at_ms >= due  # never early
        assert event.time_bank_extended.action_number == view.action_number
        assert event.time_bank_extended.seat == idle
    assert not [e for e in in_hand_one if kind(e) == "action_requested"]  # no new decision
    # Bank exhausted: the default action (fold, facing the big blind) at the last deadline.
    timed_out = next(e for e in in_hand_one if kind(e) == "timed_out")
    assert timed_out.timed_out.seat == idle
    assert timed_out.recorded_at_ms >= deadlines[-1]
    # Next hand: only the seat that drew on its bank is refilled (the other is at the cap).
    refills = [e.time_bank_refilled for e in events if kind(e) == "time_bank_refilled"]
    assert [(r.seat, r.added_ms, r.remaining_ms, r.hand) for r in refills] == [(idle, 150, 150, 2)]


def test_bots_requested_at_create_table_are_seated_by_the_workers_and_play(
    platform: StackPlatform, worker: WorkerProcess, settings: WorkerSettings
) -> None:
    table_id = create_table(
        platform,
        seats=3,
        max_buy_in=1000,
        action_time_ms=30_000,
        bots=[("random", 0.0), ("tight", 0.5)],
    )
    house = platform.table("house", auth.Role.ADMIN)
    end = time.time() + 90  # (seatings, then whole hands of bot turns: slow when busy)
    view = view_of(house, table_id)
    while time.time() < end and not played(view, 3):
        time.sleep(0.2)
        view = view_of(house, table_id)
    assert played(view, 3), (
        "the requested bots were not seated or stopped playing\n"
        + stalled_at(settings.redis_url, table_id, view)
        + "\nthe worker's log ends:\n"
        + "\n".join(worker.log_path.read_text().splitlines()[-40:])
    )
    players = sorted(s.player_id for s in view.seats if s.player_id)
    assert players == sorted(
        [bot_id("random", f"{table_id}-s0", 0.0), bot_id("tight", f"{table_id}-s1", 0.5)]
    )
    assert all(s.is_bot for s in view.seats if s.player_id)
    in_play = sum(s.stack + s.committed for s in view.seats)
    assert in_play == 2 * 200  # each bot bought in for 100 big blinds
