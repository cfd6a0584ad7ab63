"""The bot SDK: play a table from an external program, on the client SDK (services/sdk).

    from services.bots.sdk import BotClient
    from services.bots.view import BotAction, Kind

    def decide(view, table):           # view: BotView; table: the TableView it was built from
        return BotAction(Kind.CHECK) if view.can(Kind.CHECK) else BotAction(Kind.FOLD)

    BotClient("127.0.0.1:50051", token).play("t42", decide)

`play` watches the table (the SDK's resumable `watch`: after a dropped stream it goes on from
the last version it saw, so no decision request is missed) and, whenever the table asks this
bot to act, reads the view (`GetTableView`), calls `decide` and sends the move as an `Act`
call (`play_stream=True`: on one long-lived `Play` stream, far cheaper per move on a table
service that holds no thread per stream; the threaded one holds one per stream, and every bot
already holds its watch) with the view's
version as the expected version and an idempotency key naming the decision, so a retry never
acts twice. If the table moved first (ABORTED), it reads the view again and calls `decide`
again with the new view in both arguments. `decide` must return before
`table.deadline_unix_ms`; a decision still open at the deadline is timed out by the table
(check else fold, stand pat, ...). See docs/bots.md for the protocol in any language.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable

from croupier.table.v1 import table_pb2
from services.bots.betting import check_or_fold
from services.bots.proto_view import is_my_decision, to_act_request, to_bot_view
from services.bots.view import BotAction, BotView
from services.sdk import (
    Aborted,
    ClientSettings,
    CroupierError,
    EntropyContributor,
    FailedPrecondition,
    InvalidArgument,
    PlayStream,
    TableClient,
)
from services.shared.channels import TokenSource

log = logging.getLogger(__name__)
Decide = Callable[[BotView, table_pb2.TableView], BotAction]
# Decisions lost to other writes in a row (ABORTED) before the bot waits a little between looks.
EAGER_ATTEMPTS = 3


class BotClient:
    def __init__(
        self,
        target: str | ClientSettings,
        token: TokenSource | None = None,
        *,
        name: str = "bot",
        play_stream: bool = False,
        contribute_entropy: bool = True,
    ) -> None:
        settings = (
            target
            if isinstance(target, ClientSettings)
            else ClientSettings(table=target, token=token)
        )
        self._tables = TableClient(settings)
        # Every hand's deck takes this bot's entropy unless told otherwise (docs/dealer.md).
        self.entropy = EntropyContributor(self._tables) if contribute_entropy else None
        self._name = name
        self._play_stream = play_stream
        self.decisions = 0
        self.reconnects = 0  # watch streams opened again after a drop
        self.view_reads = 0  # GetTableView calls: one per own decision, not per table action
        # Every action the table refused, in words: empty for a bot that never sends an
        # illegal or out-of-turn action (the soak tests fail on any).
        self.refusals: list[str] = []

    def close(self) -> None:
        self._tables.close()

    def play(
        self,
        table_id: str,
        decide: Decide,
        *,
        stop: threading.Event | None = None,
        max_backoff: float = 2.0,
        rng: random.Random | None = None,
    ) -> None:
        """Play `table_id` until `stop` is set (or forever). Raises the SDK's CroupierError
        for a refusal no retry can cure (no such table, a token that is not allowed)."""
        stop = stop or threading.Event()
        del rng  # kept for callers that pass one: decisions are `decide`'s own
        watch = self._tables.watch(
            table_id, give_up_after_s=float("inf"), max_backoff_s=max(max_backoff, 0.05)
        )
        done = threading.Event()

        def close_on_stop() -> None:
            while not stop.wait(0.2):
                if done.is_set():
                    return
            watch.close()

        threading.Thread(target=close_on_stop, daemon=True).start()
        stream = self._tables.play() if self._play_stream else None
        my_seat = -1  # learnt from the first view; -1 until this bot is seated
        asked = False
        try:
            for item in watch:
                self.reconnects = watch.reconnects
                if self.entropy is not None:
                    self.entropy.on_item(table_id, item)
                if isinstance(item, table_pb2.TableView):
                    my_seat = item.viewer_seat
                    if is_my_decision(item):
                        my_seat = self._act(table_id, decide, stream, stop)
                    continue
                # Another seat's turn costs nothing once we know our seat; until then (not
                # yet seated) the view tells us. Once per batch of events the watch has in
                # hand: `_act` reads the table as it is now.
                asked = asked or (
                    item.WhichOneof("event") == "action_requested"
                    and (my_seat < 0 or item.action_requested.seat == my_seat)
                )
                if asked and watch.buffered == 0:
                    asked = False
                    my_seat = self._act(table_id, decide, stream, stop)
        finally:
            done.set()
            watch.close()
            if stream is not None:
                stream.close()

    def _send(self, stream: PlayStream | None, request: table_pb2.ActRequest) -> None:
        if stream is not None:
            stream.send(request)
        else:
            self._tables.send_act(request)

    def _act(
        self, table_id: str, decide: Decide, stream: PlayStream | None, stop: threading.Event
    ) -> int:
        """Act if the table waits for us now; return our seat as the view names it."""
        view = self._view(table_id)
        if not is_my_decision(view):
            return view.viewer_seat
        decision = (view.hand_number, view.action_number)
        key = f"{self._name}/{table_id}/{view.hand_number}/{view.action_number}"
        started = time.time()
        attempt = 0
        while not stop.is_set():
            if attempt:
                if attempt >= EAGER_ATTEMPTS:  # a burst of other writes: let it pass
                    stop.wait(min(0.05 * attempt, 0.5))
                view = self._view(table_id)
                if not is_my_decision(view) or (view.hand_number, view.action_number) != decision:
                    return view.viewer_seat
            attempt += 1
            bot_view = to_bot_view(view)
            action = decide(bot_view, view)
            try:
                self._send(stream, to_act_request(view, action, key))
            except Aborted:
                continue  # the table moved first: look again, decide again
            except FailedPrecondition as exc:
                self._refused(exc, action, view)  # no longer ours (timed out, hand moved on)
                return view.viewer_seat
            except InvalidArgument as exc:
                # A policy bug must not stall the table: note it and take the safe action.
                log.error("%s: action %s refused at %s: %s", self._name, action, table_id, exc)
                self._refused(exc, action, view)
                safe = check_or_fold(bot_view)
                try:
                    self._send(stream, to_act_request(view, safe, key + "/safe"))
                except CroupierError as again:
                    self.refusals.append(f"{again.code.name} (safe action): {again.message}")
                    return view.viewer_seat  # leave the decision to the table's timeout
            self.decisions += 1
            if view.deadline_unix_ms and time.time() * 1000 > view.deadline_unix_ms:
                log.warning("%s answered %.0f ms late", self._name, (time.time() - started) * 1000)
            return view.viewer_seat
        return view.viewer_seat

    def _view(self, table_id: str) -> table_pb2.TableView:
        self.view_reads += 1
        view = self._tables.view(table_id)
        if self.entropy is not None:
            self.entropy.answer(view)  # (a round announced before this bot was seated)
        return view

    def _refused(self, exc: CroupierError, action: BotAction, view: table_pb2.TableView) -> None:
        self.refusals.append(
            f"{exc.code.name}: {action} at table {view.table_id} hand {view.hand_number} "
            f"action {view.action_number} (version {view.version}): {exc.message}"
        )
