"""The bot SDK: play a table from an external program over the public TableService API.

    from services.bots.sdk import BotClient
    from services.bots.view import BotAction, Kind

    def decide(view, table):           # view: BotView; table: the TableView it was built from
        return BotAction(Kind.CHECK) if view.can(Kind.CHECK) else BotAction(Kind.FOLD)

    BotClient("127.0.0.1:50051", token).play("t42", decide)

`play` watches the table (`WatchTable`) and, whenever the table asks this bot to act, reads
the view (`GetTableView`), calls `decide` and sends `Act` with the view's version as the
expected version and an idempotency key naming the decision, so a retry never acts twice.
If the table moved first (ABORTED), it reads the view again and calls `decide` again with
the new view in both arguments.
When the stream drops it reconnects with backoff and resumes from the last version it saw
(`from_version`), so no decision is missed. `decide` must return before
`table.deadline_unix_ms`; a decision still open at the deadline is timed out by the table
(check else fold, stand pat, ...). See docs/bots.md for the protocol in any language.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import grpc

from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.bots.proto_view import is_my_decision
from services.bots.remote import TurnResult, play_turn
from services.bots.view import BotAction, BotView
from services.shared.channels import TokenSource, connect
from services.shared.errors import Unavailable

log = logging.getLogger(__name__)
Decide = Callable[[BotView, table_pb2.TableView], BotAction]
RECONNECT_CODES = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
    }
)


class BotClient:
    def __init__(self, target: str, token: TokenSource, *, name: str = "bot") -> None:
        self._channel = connect(target, token)
        self._stub = table_pb2_grpc.TableServiceStub(self._channel)
        self._name = name
        self.decisions = 0
        self.reconnects = 0
        self.view_reads = 0  # GetTableView calls: one per own decision, not per table action
        # Every action the table refused, in words (see `remote.play_turn`'s `on_refused`):
        # empty for a bot that never sends an illegal or out-of-turn action.
        self.refusals: list[str] = []

    def close(self) -> None:
        self._channel.close()

    def play(
        self,
        table_id: str,
        decide: Decide,
        *,
        stop: threading.Event | None = None,
        max_backoff: float = 2.0,
        rng: random.Random | None = None,
    ) -> None:
        """Play `table_id` until `stop` is set (or forever)."""
        stop = stop or threading.Event()
        rng = rng or random.Random()
        from_version = 0
        backoff = 0.05
        first = True
        my_seat = -1  # learnt from the first view; -1 until this bot is seated
        while not stop.is_set():
            if not first:
                self.reconnects += 1  # the stream ended or broke: resume where we were
            first = False
            stream = self._stub.WatchTable(
                table_pb2.WatchTableRequest(
                    table_id=table_id, from_version=from_version, batch=True
                )
            )
            watcher = threading.Thread(target=_cancel_on, args=(stop, stream), daemon=True)
            watcher.start()
            try:
                if from_version:
                    # Resuming: the request that woke us may have come while we were away.
                    my_seat = self._act(table_id, decide, rng)
                for message in stream:
                    backoff = 0.05
                    if message.HasField("view"):
                        from_version = max(from_version, message.view.version)
                        my_seat = message.view.viewer_seat
                        if is_my_decision(message.view):
                            my_seat = self._act(table_id, decide, rng)
                        continue
                    # The table asks a seat to act. Another seat's turn costs nothing once we
                    # know our seat; until then (not yet seated) the view tells us. Once per
                    # batch: `_act` reads the table as it is now.
                    asked = False
                    for event in message.events.events:
                        from_version = max(from_version, event.version)
                        asked = asked or (
                            event.WhichOneof("event") == "action_requested"
                            and (my_seat < 0 or event.action_requested.seat == my_seat)
                        )
                    if asked:
                        my_seat = self._act(table_id, decide, rng)
            except (grpc.RpcError, Unavailable) as exc:
                code = exc.code() if isinstance(exc, grpc.Call) else grpc.StatusCode.UNAVAILABLE
                if stop.is_set():
                    return
                if code not in RECONNECT_CODES:
                    raise
                log.info("%s: stream to %s dropped (%s); resuming", self._name, table_id, code)
                stop.wait(backoff)
                backoff = min(max_backoff, backoff * 2)

    def _act(self, table_id: str, decide: Decide, rng: random.Random) -> int:
        """Act if the table waits for us now; return our seat as the view names it."""
        view = self._stub.GetTableView(table_pb2.GetTableViewRequest(table_id=table_id)).view
        self.view_reads += 1
        if not is_my_decision(view):
            return view.viewer_seat

        decided = view  # the view of the last attempt: re-read after an ABORTED Act

        def choose(
            bot_view: BotView, table: table_pb2.TableView, choice_rng: random.Random
        ) -> BotAction:
            nonlocal decided
            decided = table  # the view `bot_view` was built from, never a stale one
            return decide(bot_view, table)

        key = f"{self._name}/{table_id}/{view.hand_number}/{view.action_number}"
        started = time.time()
        try:
            result = play_turn(
                self._stub,
                (),
                table_id,
                choose,
                rng,
                key,
                hand_number=view.hand_number,
                action_number=view.action_number,
                on_refused=self.refusals.append,
                view=view,  # just read: decide on it rather than read it a second time
            )
        except grpc.RpcError as exc:
            code = exc.code() if isinstance(exc, grpc.Call) else None
            if code not in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION):
                raise
            # Refused even the safe action: leave the decision to the table's timeout.
            log.error("%s: the table refused our action at %s: %s", self._name, table_id, exc)
            self.refusals.append(f"{code.name} (safe action): {exc}")
            return view.viewer_seat
        if result is TurnResult.ACTED:
            self.decisions += 1
            if decided.deadline_unix_ms and time.time() * 1000 > decided.deadline_unix_ms:
                log.warning("%s answered %.0f ms late", self._name, (time.time() - started) * 1000)
        return view.viewer_seat


def _cancel_on(stop: threading.Event, stream: Any) -> None:
    """End a blocking stream read when the bot is asked to stop."""
    while not stop.wait(0.2):
        if stream.done():
            return
    stream.cancel()
