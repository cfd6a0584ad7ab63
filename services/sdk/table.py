"""The table service (`croupier.table.v1.TableService`) for clients.

    tables = TableClient(ClientSettings(token=alice))
    tables.join("hu-1", buy_in=200)                          # first free seat
    for item in tables.watch("hu-1"):                        # the view, then every event
        ...                                                  # (resumes by itself)
    tables.act("hu-1", poker_move("raise", 6))               # one move, its own key
    with tables.play() as stream:                            # many moves, one stream
        stream.act("hu-1", poker_move("call"))

Every command takes an optional idempotency `key`; without one it gets a fresh key, which
every retry of that command reuses (so a retried command is applied once). See docs/api.md for
the contract and docs/clients.md for this SDK.
"""

from __future__ import annotations

import collections
import queue
import random
import threading
import time
from collections.abc import Iterable, Iterator
from types import TracebackType
from typing import Any

import grpc
from google.protobuf.message import Message

from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.sdk.connection import Caller, ClientSettings, RetryPolicy, new_key, open_channel
from services.sdk.errors import CroupierError, Unavailable, from_rpc_error, from_status_number

SERVICE = "TableService"
WatchItem = table_pb2.TableView | events_pb2.TableEvent
# A watch stream that ends with one of these is opened again from the last version seen.
RESUMABLE = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.ABORTED,
    }
)
# The member of ActRequest.move that carries each game's move message, by message name.
_MOVE_FIELDS = {
    f.message_type.full_name: f.name
    for f in table_pb2.ActRequest.DESCRIPTOR.oneofs_by_name["move"].fields
    if f.message_type is not None
}


def act_request(
    table_id: str,
    move: Message,
    *,
    hand_number: int = 0,
    seat: int | None = None,
    expected_version: int = 0,
    key: str | None = None,
) -> table_pb2.ActRequest:
    """An ActRequest carrying `move`, a game's own move message (croupier.poker.v1.PokerMove,
    ...), in the member of `ActRequest.move` made for it."""
    field_name = _MOVE_FIELDS.get(move.DESCRIPTOR.full_name)
    if field_name is None:
        known = ", ".join(sorted(_MOVE_FIELDS))
        raise TypeError(f"{move.DESCRIPTOR.full_name} is not a table move (one of: {known})")
    request = table_pb2.ActRequest(
        table_id=table_id,
        hand_number=hand_number,
        expected_version=expected_version,
        idempotency_key=key or new_key("act"),
    )
    if seat is not None:
        request.seat = seat
    getattr(request, field_name).CopyFrom(move)
    return request


class TableClient:
    """Typed calls of every TableService method; one channel, closed by `close()`."""

    def __init__(self, settings: ClientSettings | None = None) -> None:
        self.settings = settings or ClientSettings.from_env()
        self._channel = open_channel(self.settings, "table")
        self.stub = table_pb2_grpc.TableServiceStub(self._channel)
        self._caller = Caller(SERVICE, self.settings)

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> TableClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def retries(self) -> int:
        """Attempts after the first, over this client's unary calls."""
        return self._caller.retries

    # Tables ---------------------------------------------------------------------------
    def create_table(
        self,
        options: table_pb2.TableOptions,
        *,
        bots: Iterable[table_pb2.BotSeat | tuple[str, float]] = (),
        table_id: str = "",
        key: str | None = None,
    ) -> table_pb2.CreateTableResponse:
        """Open a table (`bots`: (policy, difficulty) pairs or BotSeat messages)."""
        seats = [
            b
            if isinstance(b, table_pb2.BotSeat)
            else table_pb2.BotSeat(policy=b[0], difficulty=b[1])
            for b in bots
        ]
        request = table_pb2.CreateTableRequest(
            options=options,
            bots=seats,
            table_id=table_id,
            idempotency_key=key or new_key("create"),
        )
        return self._caller.call("CreateTable", self.stub.CreateTable, request)

    def list_tables(self, *, page_size: int = 200) -> Iterator[table_pb2.TableSummary]:
        """Every table, oldest first, read a page at a time."""
        token = ""
        while True:
            request = table_pb2.ListTablesRequest(page_size=page_size, page_token=token)
            page = self._caller.call("ListTables", self.stub.ListTables, request)
            yield from page.tables
            token = page.next_page_token
            if not token:
                return

    def close_table(
        self, table_id: str, *, expected_version: int = 0, key: str | None = None
    ) -> table_pb2.CloseTableResponse:
        """Close a table (its creator, an admin or a service): no one joins or tops up from
        now on, the round in play is played out, then every stack goes back to its ledger
        account and nothing more is dealt. `status` answers CLOSING until every seat is paid
        out, then CLOSED; closing again changes nothing."""
        request = table_pb2.CloseTableRequest(
            table_id=table_id,
            expected_version=expected_version,
            idempotency_key=key or new_key("close"),
        )
        return self._caller.call("CloseTable", self.stub.CloseTable, request)

    def view(self, table_id: str) -> table_pb2.TableView:
        """The table as this caller may see it."""
        request = table_pb2.GetTableViewRequest(table_id=table_id)
        return self._caller.call("GetTableView", self.stub.GetTableView, request).view

    def history(self, table_id: str, hand_number: int = 0) -> table_pb2.GetHandHistoryResponse:
        """A finished round's history (0: the last finished one), as text and (poker) PHH."""
        request = table_pb2.GetHandHistoryRequest(table_id=table_id, hand_number=hand_number)
        return self._caller.call("GetHandHistory", self.stub.GetHandHistory, request)

    # Seats ----------------------------------------------------------------------------
    def join(
        self,
        table_id: str,
        buy_in: int,
        *,
        seat: int = -1,
        account_id: str = "",
        key: str | None = None,
    ) -> table_pb2.JoinTableResponse:
        """Take `seat` (-1: the first free one) with `buy_in` chips from the ledger."""
        request = table_pb2.JoinTableRequest(
            table_id=table_id,
            seat=seat,
            buy_in=buy_in,
            account_id=account_id,
            idempotency_key=key or new_key("join"),
        )
        return self._caller.call("JoinTable", self.stub.JoinTable, request)

    def top_up(
        self, table_id: str, amount: int, *, key: str | None = None
    ) -> table_pb2.TopUpResponse:
        request = table_pb2.TopUpRequest(
            table_id=table_id, amount=amount, idempotency_key=key or new_key("top-up")
        )
        return self._caller.call("TopUp", self.stub.TopUp, request)

    def sit_out(self, table_id: str, *, key: str | None = None) -> table_pb2.SitOutResponse:
        request = table_pb2.SitOutRequest(
            table_id=table_id, idempotency_key=key or new_key("sit-out")
        )
        return self._caller.call("SitOut", self.stub.SitOut, request)

    def sit_in(
        self, table_id: str, *, post_big_blind: bool = False, key: str | None = None
    ) -> table_pb2.SitInResponse:
        request = table_pb2.SitInRequest(
            table_id=table_id,
            post_big_blind=post_big_blind,
            idempotency_key=key or new_key("sit-in"),
        )
        return self._caller.call("SitIn", self.stub.SitIn, request)

    def leave(self, table_id: str, *, key: str | None = None) -> table_pb2.LeaveTableResponse:
        """Leave now, or after the current round (`left` says which); the stack goes home."""
        request = table_pb2.LeaveTableRequest(
            table_id=table_id, idempotency_key=key or new_key("leave")
        )
        return self._caller.call("LeaveTable", self.stub.LeaveTable, request)

    # Moves ----------------------------------------------------------------------------
    def act(
        self,
        table_id: str,
        move: Message,
        *,
        hand_number: int = 0,
        seat: int | None = None,
        expected_version: int = 0,
        key: str | None = None,
    ) -> table_pb2.ActResponse:
        """One move (a game's move message: `services.sdk.poker.poker_move(...)`, ...)."""
        request = act_request(
            table_id,
            move,
            hand_number=hand_number,
            seat=seat,
            expected_version=expected_version,
            key=key,
        )
        return self.send_act(request)

    def send_act(self, request: table_pb2.ActRequest) -> table_pb2.ActResponse:
        """An ActRequest as it is (retries send the same one, key included)."""
        return self._caller.call("Act", self.stub.Act, request)

    def play(self) -> PlayStream:
        """A `Play` stream: many moves on one long-lived call (what bots and real-time games
        should use). Use it as a context manager, or `close()` it."""
        return PlayStream(self.stub, self.settings.retry)

    def apply_timeout(self, table_id: str, deadline_id: str) -> table_pb2.ApplyTimeoutResponse:
        """The game's default for a decision past its deadline (service role only)."""
        request = table_pb2.ApplyTimeoutRequest(table_id=table_id, deadline_id=deadline_id)
        return self._caller.call("ApplyTimeout", self.stub.ApplyTimeout, request)

    def contribute_entropy(
        self,
        table_id: str,
        *,
        hand_number: int = 0,
        commitment: bytes = b"",
        entropy: bytes = b"",
    ) -> table_pb2.ContributeEntropyResponse:
        """Add the caller's seed to a hand's shuffle: the commitment first, the seed after the
        shuffle is sealed (docs/dealer.md, "Player entropy")."""
        request = table_pb2.ContributeEntropyRequest(
            table_id=table_id,
            hand_number=hand_number,
            entropy_commitment=commitment,
            entropy=entropy,
        )
        return self._caller.call("ContributeEntropy", self.stub.ContributeEntropy, request)

    # A live dealer's reports (a dealer-console credential for the table) -------------
    def report_card(
        self,
        table_id: str,
        card: str,
        *,
        seat: int | None = None,
        board: bool = False,
        burn: bool = False,
        face_up: bool = False,
        hand_number: int = 0,
        key: str | None = None,
    ) -> table_pb2.ReportCardResponse:
        """The card `card` ("Ah") left the deck: to `seat`, to the board or to the burn pile
        (exactly one of the three), face up or down (docs/games/irregularities.md)."""
        if (seat is not None) + board + burn != 1:
            raise ValueError("a card goes to exactly one of: a seat, the board, the burn pile")
        if seat is not None:
            recipient = table_pb2.CARD_RECIPIENT_SEAT
        elif board:
            recipient = table_pb2.CARD_RECIPIENT_BOARD
        else:
            recipient = table_pb2.CARD_RECIPIENT_BURN
        request = table_pb2.ReportCardRequest(
            table_id=table_id,
            hand_number=hand_number,
            card=card,
            recipient=recipient,
            seat=seat,
            face_up=face_up,
            idempotency_key=key or new_key("card"),
        )
        return self._caller.call("ReportCard", self.stub.ReportCard, request)

    def report_misdeal(
        self, table_id: str, reason: str, *, hand_number: int = 0, key: str | None = None
    ) -> table_pb2.ReportIrregularityResponse:
        """Declare a misdeal (until the hand's first action): the hand is redealt."""
        request = table_pb2.ReportIrregularityRequest(
            table_id=table_id,
            hand_number=hand_number,
            kind=table_pb2.IRREGULARITY_KIND_MISDEAL,
            reason=reason,
            idempotency_key=key or new_key("misdeal"),
        )
        return self._caller.call("ReportIrregularity", self.stub.ReportIrregularity, request)

    def report_exposed_card(
        self,
        table_id: str,
        card: str,
        reason: str = "",
        *,
        hand_number: int = 0,
        by_player: bool = False,
        key: str | None = None,
    ) -> table_pb2.ReportIrregularityResponse:
        """A card dealt face down was exposed by the dealer (docs/games/irregularities.md: in
        the deal a misdeal for the first two cards, else replaced; in a draw game's draw,
        replaced after the other players have drawn); `by_player`: the player exposed their
        own card, which is theirs."""
        kind = (
            table_pb2.IRREGULARITY_KIND_PLAYER_EXPOSED
            if by_player
            else table_pb2.IRREGULARITY_KIND_CARD_EXPOSED
        )
        request = table_pb2.ReportIrregularityRequest(
            table_id=table_id,
            hand_number=hand_number,
            kind=kind,
            card=card,
            reason=reason,
            idempotency_key=key or new_key("exposed"),
        )
        return self._caller.call("ReportIrregularity", self.stub.ReportIrregularity, request)

    # Watching -------------------------------------------------------------------------
    def watch(
        self,
        table_id: str,
        *,
        from_version: int = 0,
        give_up_after_s: float = 60.0,
        max_backoff_s: float = 1.0,
    ) -> TableWatch:
        """The table as a stream: with `from_version` 0 its view first, then every later
        event as this caller may see it; from N, every event after N. The stream resumes by
        itself after a drop, from the last version it yielded, so nothing is missed or
        yielded twice; it raises Unavailable once the service stays unreachable for
        `give_up_after_s`, and ends when `close()` is called (from any thread)."""
        return TableWatch(
            self.stub,
            table_id,
            from_version,
            give_up_after_s=give_up_after_s,
            max_backoff_s=max_backoff_s,
        )


class TableWatch(Iterator[WatchItem]):
    """A resumable WatchTable: yields TableView (a fresh watch's first item) and TableEvent.

    `version` is the last version yielded; `reconnects` counts the streams opened again."""

    def __init__(
        self,
        stub: table_pb2_grpc.TableServiceStub,
        table_id: str,
        from_version: int = 0,
        *,
        give_up_after_s: float = 60.0,
        max_backoff_s: float = 1.0,
    ) -> None:
        self._stub = stub
        self.table_id = table_id
        self.version = from_version
        self.reconnects = 0
        self._give_up_after_s = give_up_after_s
        self._max_backoff_s = max_backoff_s
        self._pending: collections.deque[WatchItem] = collections.deque()
        self._stream: Any = None
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._rng = random.Random()

    def __iter__(self) -> TableWatch:
        return self

    def __enter__(self) -> TableWatch:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """End the watch: a blocked `next` returns StopIteration."""
        self._closed.set()
        with self._lock:
            if self._stream is not None:
                self._stream.cancel()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    @property
    def buffered(self) -> int:
        """Items already received and not yet yielded (the rest of a batch): a client that
        acts on the latest state can wait until this is 0."""
        return len(self._pending)

    def _open(self) -> Any:
        request = table_pb2.WatchTableRequest(
            table_id=self.table_id, from_version=self.version, batch=True
        )
        with self._lock:
            if self._closed.is_set():
                return None
            self._stream = self._stub.WatchTable(request)
            return self._stream

    def __next__(self) -> WatchItem:
        failing_since: float | None = None
        backoff = 0.05
        while True:
            if self._pending:
                return self._pending.popleft()
            if self._closed.is_set():
                raise StopIteration
            stream = self._stream or self._open()
            if stream is None:
                raise StopIteration
            try:
                message = next(stream)
            except StopIteration:
                failure: CroupierError | None = None  # the service ended the stream
            except grpc.RpcError as exc:
                if self._closed.is_set():
                    raise StopIteration from None
                failure = from_rpc_error(exc, f"{SERVICE}.WatchTable")
                if failure.code not in RESUMABLE:
                    raise failure from exc
            else:
                failing_since = None
                backoff = 0.05
                self._take(message)
                continue
            # The stream ended or broke: open it again from the last version yielded.
            with self._lock:
                self._stream = None
            now = time.monotonic()
            failing_since = failing_since or now
            if now - failing_since > self._give_up_after_s:
                raise Unavailable(
                    f"table {self.table_id}: the watch could not be resumed for "
                    f"{self._give_up_after_s:.0f} s ({failure or 'stream ended'})",
                    method=f"{SERVICE}.WatchTable",
                )
            self.reconnects += 1
            self._closed.wait(backoff * (0.5 + self._rng.random()))
            backoff = min(self._max_backoff_s, backoff * 2)

    def _take(self, message: table_pb2.WatchTableResponse) -> None:
        kind = message.WhichOneof("item")
        if kind == "view":
            if message.view.version >= self.version:
                self.version = message.view.version
                self._pending.append(message.view)
            return
        events = message.events.events if kind == "events" else [message.event]
        for event in events:
            if event.version > self.version:  # never yield an event twice
                self.version = event.version
                self._pending.append(event)


class PlayStream:
    """Moves on one `Play` stream: `send`/`act` answer in order, each with its ActResponse,
    or raise the refusal's CroupierError (the stream goes on). A broken stream is opened
    again and the move sent again with its key, so it is applied once; UNAVAILABLE (and
    ABORTED when the move names no expected version) answers are retried the same way."""

    def __init__(self, stub: table_pb2_grpc.TableServiceStub, retry: RetryPolicy) -> None:
        self._stub = stub
        self._retry = retry
        self._lock = threading.Lock()
        self._requests: queue.SimpleQueue[table_pb2.PlayRequest | None] | None = None
        self._responses: Any = None
        self._rng = random.Random()
        self.reconnects = 0

    def __enter__(self) -> PlayStream:
        return self

    def __exit__(
        self, _t: type[BaseException] | None, _e: BaseException | None, _tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """End the stream: the service answers what it was sent, then ends the call."""
        with self._lock:
            requests, responses = self._requests, self._responses
            self._requests = self._responses = None
        if requests is None or responses is None:
            return
        requests.put(None)
        hang_up = threading.Timer(5.0, responses.cancel)  # a service that never ends it
        hang_up.start()
        try:
            for _ in responses:
                pass
        except grpc.RpcError:
            pass  # it broke or was hung up on: closed either way
        finally:
            hang_up.cancel()

    def _drop(self) -> None:
        if self._requests is not None:
            self._requests.put(None)
        if self._responses is not None:
            self._responses.cancel()
        self._requests = self._responses = None

    def act(
        self,
        table_id: str,
        move: Message,
        *,
        hand_number: int = 0,
        seat: int | None = None,
        expected_version: int = 0,
        key: str | None = None,
    ) -> table_pb2.ActResponse:
        return self.send(
            act_request(
                table_id,
                move,
                hand_number=hand_number,
                seat=seat,
                expected_version=expected_version,
                key=key,
            )
        )

    def send(self, request: table_pb2.ActRequest) -> table_pb2.ActResponse:
        label = f"{SERVICE}.Play"
        delays = self._retry.delays(self._rng)
        with self._lock:
            for attempt in range(len(delays) + 1):
                if self._responses is None:
                    requests: queue.SimpleQueue[table_pb2.PlayRequest | None] = queue.SimpleQueue()
                    self._requests = requests
                    self._responses = self._stub.Play(iter(requests.get, None))
                assert self._requests is not None
                self._requests.put(table_pb2.PlayRequest(act=request))
                try:
                    answer: table_pb2.PlayResponse = next(self._responses)
                except StopIteration:
                    error: CroupierError = Unavailable("the Play stream ended", method=label)
                    self._drop()
                    self.reconnects += 1
                except grpc.RpcError as exc:
                    error = from_rpc_error(exc, label)
                    self._drop()
                    if error.code not in RESUMABLE or error.code is grpc.StatusCode.CANCELLED:
                        raise error from exc
                    self.reconnects += 1
                else:
                    if answer.WhichOneof("result") == "act":
                        return answer.act
                    error = from_status_number(answer.error.code, answer.error.message, label)
                    if not Caller.retryable(error, request):
                        raise error
                if attempt >= len(delays):
                    raise error
                time.sleep(delays[attempt])
        raise AssertionError("unreachable")
