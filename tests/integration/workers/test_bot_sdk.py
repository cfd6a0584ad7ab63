"""The bot SDK against the real table service: two external bots play, the table server is
restarted under them (every stream drops), and they reconnect and resume."""

from __future__ import annotations

import threading
import time
import uuid

import grpc
import pytest

from croupier.table.v1 import table_pb2
from services.bots.betting import call_or_check
from services.bots.sdk import BotClient
from services.bots.view import BotAction, BotView, Kind
from services.shared import auth
from services.table.ports import NoScheduler
from tests.integration.table.conftest import KEY, create_table, view_of

from .table_stack import table_stack

pytestmark = pytest.mark.integration


def test_sdk_bots_play_and_resume_after_the_table_server_restarts(redis_url):
    with table_stack(redis_url, f"ledger-sdk-{uuid.uuid4().hex[:6]}", NoScheduler()) as platform:
        table_id = create_table(platform, seats=2)
        errors: list[BaseException] = []
        stop = threading.Event()
        clients, threads = [], []
        for seat_no in (0, 1):
            name = f"sdk-bot-{seat_no}-{uuid.uuid4().hex[:6]}"
            platform.fund(name, 400)
            token = auth.issue_token(KEY, name, auth.Role.BOT, 600)
            platform.table(name, auth.Role.BOT).JoinTable(
                table_pb2.JoinTableRequest(
                    table_id=table_id, seat=seat_no, buy_in=400, idempotency_key=f"join-{name}"
                )
            )
            client = BotClient(f"127.0.0.1:{platform.port}", token, name=name)
            thread = threading.Thread(
                target=_play, args=(client, table_id, stop, errors), daemon=True
            )
            thread.start()
            clients.append(client)
            threads.append(thread)
        house = platform.table("house", auth.Role.ADMIN)
        try:
            assert _wait_for_hand(house, table_id, 3, timeout=30)
            before = [c.decisions for c in clients]
            platform.restart_table()
            assert _wait_for_hand(house, table_id, _hand_number(house, table_id) + 3, 30)
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


def _call_everything(view: BotView, table) -> BotAction:
    if view.can(Kind.SHOW):
        return BotAction(Kind.SHOW)
    return call_or_check(view)


def _play(client: BotClient, table_id: str, stop: threading.Event, errors: list) -> None:
    try:
        client.play(table_id, _call_everything, stop=stop, max_backoff=0.5)
    except BaseException as exc:  # surfaced by the test's assertion, not lost in a thread
        errors.append(exc)
        raise


def _hand_number(house, table_id: str) -> int:
    """The current hand number, waiting out the restart (the channel reconnects with backoff)."""
    end = time.time() + 30
    while True:
        try:
            return view_of(house, table_id).hand_number
        except grpc.RpcError:
            if time.time() > end:
                raise
            time.sleep(0.1)


def _wait_for_hand(house, table_id: str, hand: int, timeout: float) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        try:
            if view_of(house, table_id).hand_number >= hand:
                return True
        except Exception:  # the server is restarting
            pass
        time.sleep(0.1)
    return False
