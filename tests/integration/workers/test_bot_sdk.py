"""The bot SDK against the real table service: two external bots play, the table server is
restarted under them (every stream drops), and they reconnect and resume; a bot whose Act
the table refuses as ABORTED (it moved first) decides again on the view as it is now."""

from __future__ import annotations

import random
import threading
import time
import uuid
from typing import TypedDict, Unpack

import grpc
import pytest

from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.bots.betting import call_or_check
from services.bots.sdk import BotClient, Decide
from services.bots.view import BotAction, BotView, Kind
from services.shared import auth
from services.table.ports import NoScheduler
from tests.integration.table.conftest import KEY, create_table, view_of

from .table_stack import seat_bot, table_stack

pytestmark = pytest.mark.integration


def test_sdk_bots_play_and_resume_after_the_table_server_restarts(redis_url: str) -> None:
    with table_stack(redis_url, f"ledger-sdk-{uuid.uuid4().hex[:6]}", NoScheduler()) as platform:
        table_id = create_table(platform, seats=2)
        errors: list[BaseException] = []
        stop = threading.Event()
        clients, threads = [], []
        for seat_no in (0, 1):
            name = f"sdk-bot-{seat_no}-{uuid.uuid4().hex[:6]}"
            seat_bot(platform, table_id, name, seat_no, 400)
            token = auth.issue_token(KEY, name, auth.Role.BOT, 600)
            client = BotClient(f"127.0.0.1:{platform.port}", token, name=name)
            thread = threading.Thread(
                target=_play, args=(client, table_id, stop, errors), daemon=True
            )
            thread.start()
            clients.append(client)
            threads.append(thread)
        house = platform.table("house", auth.Role.ADMIN)
        try:
            # (generous: on a loaded machine each bot's reconnection waits out gRPC's growing
            # reconnect backoff from the restart window, then plays at the machine's pace)
            assert _wait_for_hand(house, table_id, 3, timeout=90)
            before = [c.decisions for c in clients]
            platform.restart_table()
            assert _wait_for_hand(house, table_id, _hand_number(house, table_id) + 3, 90)
            # Calling stations: every hand needs both bots, so progress means both resumed.
            assert errors == []
            assert all(c.reconnects >= 1 for c in clients)
            assert all(c.decisions > b for c, b in zip(clients, before, strict=True))
            # Another seat's ActionRequested costs a bot no RPC: it reads the view for its own
            # decisions (plus once per resume), not for every action at the table.
            for c in clients:
                assert c.view_reads <= c.decisions + 2 * c.reconnects + 4, (
                    c.view_reads,
                    c.decisions,
                )
        finally:
            stop.set()
            for thread in threads:
                thread.join(5)
            for client in clients:
                client.close()


def test_after_the_table_moves_under_a_decision_decide_gets_the_new_table_view(
    redis_url: str,
) -> None:
    with table_stack(redis_url, f"ledger-sdk-{uuid.uuid4().hex[:6]}", NoScheduler()) as platform:
        # No scheduler: only this test times a decision out (ApplyTimeout, as the workers do).
        table_id = create_table(
            platform, seats=2, action_time_ms=300, time_bank_ms=5000, time_bank_chunk_ms=2000
        )
        names = [f"sdk-bot-{seat_no}-{uuid.uuid4().hex[:6]}" for seat_no in (0, 1)]
        clients = []
        for seat_no, name in enumerate(names):
            seat_bot(platform, table_id, name, seat_no, 400)
            token = auth.issue_token(KEY, name, auth.Role.BOT, 600)
            clients.append(BotClient(f"127.0.0.1:{platform.port}", token, name=name))
        workers = platform.table("workers", auth.Role.SERVICE)
        calls: list[tuple[BotView, table_pb2.TableView]] = []
        moved = threading.Event()

        def decide(view: BotView, table: table_pb2.TableView) -> BotAction:
            calls.append((view, table))
            if len(calls) == 1:
                # The bot thinks past its deadline: the table draws on its time bank (the same
                # decision, a later deadline, one event), so the Act sent with the version
                # decided on comes back ABORTED and the SDK reads the view again.
                time.sleep(max(0.0, table.deadline_unix_ms / 1000 - time.time()) + 0.05)
                workers.ApplyTimeout(
                    table_pb2.ApplyTimeoutRequest(
                        table_id=table_id,
                        hand_number=table.hand_number,
                        action_number=table.action_number,
                    )
                )
            elif len(calls) == 2:
                moved.set()
            return _call_everything(view, table)

        stop = threading.Event()
        errors: list[BaseException] = []
        threads = [
            threading.Thread(target=_play, args=args, daemon=True)
            for args in (
                (_Deciding(clients[0], decide), table_id, stop, errors),
                (clients[1], table_id, stop, errors),
            )
        ]
        for thread in threads:
            thread.start()
        try:
            assert moved.wait(30), f"decide was called {len(calls)} time(s)"
            (_, before), (after_view, after) = calls[0], calls[1]
            # The same decision, decided again on the view as it is now: a later version and
            # the bank's deadline (before the fix, `table` was still the first, stale view).
            assert (after.hand_number, after.action_number) == (
                before.hand_number,
                before.action_number,
            )
            assert after.version > before.version
            assert after.deadline_from_time_bank and not before.deadline_from_time_bank
            assert after.deadline_unix_ms > before.deadline_unix_ms
            own = [s for s in after.seats if s.seat == after.viewer_seat]
            assert [s.stack for s in own] == [after_view.stack]
            assert errors == []
            assert clients[0].refusals == []  # ABORTED is "look again", not a refusal
        finally:
            stop.set()
            for thread in threads:
                thread.join(5)
            for client in clients:
                client.close()


class _PlayOptions(TypedDict, total=False):
    """BotClient.play's keyword arguments."""

    stop: threading.Event | None
    max_backoff: float
    rng: random.Random | None


class _Deciding:
    """A client whose `play` always uses one `decide` (so `_play` runs it like the others)."""

    def __init__(self, client: BotClient, decide: Decide) -> None:
        self._client, self._decide = client, decide

    def play(self, table_id: str, _ignored: Decide, **options: Unpack[_PlayOptions]) -> None:
        self._client.play(table_id, self._decide, **options)


def _call_everything(view: BotView, table: table_pb2.TableView) -> BotAction:
    if view.can(Kind.SHOW):
        return BotAction(Kind.SHOW)
    return call_or_check(view)


def _play(
    client: BotClient | _Deciding, table_id: str, stop: threading.Event, errors: list[BaseException]
) -> None:
    try:
        client.play(table_id, _call_everything, stop=stop, max_backoff=0.5)
    except BaseException as exc:  # surfaced by the test's assertion, not lost in a thread
        errors.append(exc)
        raise


def _hand_number(house: table_pb2_grpc.TableServiceStub, table_id: str) -> int:
    """The current hand number, waiting out the restart (the channel reconnects with backoff)."""
    end = time.time() + 30
    while True:
        try:
            return view_of(house, table_id).hand_number
        except grpc.RpcError:
            if time.time() > end:
                raise
            time.sleep(0.1)


def _wait_for_hand(
    house: table_pb2_grpc.TableServiceStub, table_id: str, hand: int, timeout: float
) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        try:
            if view_of(house, table_id).hand_number >= hand:
                return True
        except Exception:  # the server is restarting
            pass
        time.sleep(0.1)
    return False
