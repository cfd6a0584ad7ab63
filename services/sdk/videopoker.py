"""Video poker for clients: a machine is a one-seat table (TableService) and
`croupier.videopoker.v1.VideoPokerService` prices its pay tables and advises on holds.

    vp = VideoPokerClient(ClientSettings(token=alice))
    machine = vp.open_machine(paytables=["jacks-9-6"])      # a table of one seat
    vp.tables.join(machine.table_id, buy_in=500)            # credits from the ledger
    view = vp.deal(machine.table_id, lines=5, coins=1, paytable="jacks-9-6")
    best = vp.hint(machine.table_id).holds[0]               # the exact best hold
    view = vp.hold(machine.table_id, best.positions)        # every line drawn and paid

A deal and a draw go on after the Act that asked for them has been answered (the dealer
shuffles and commits a deck per line, the ledger moves the bet and the win), so `deal` and
`hold` wait for the machine to show the cards, or the round's end, and return that view.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from croupier.table.v1 import table_pb2
from croupier.videopoker.v1 import videopoker_pb2 as vp
from croupier.videopoker.v1 import videopoker_pb2_grpc
from services.sdk.connection import Caller, ClientSettings, open_channel
from services.sdk.errors import DeadlineExceeded
from services.sdk.table import TableClient, act_request

SERVICE = "VideoPokerService"
# How long `deal` and `hold` wait for the machine by default (seconds): a round takes a few
# dealer and ledger calls, far less on an idle platform.
DEFAULT_WAIT_S = 30.0


class VideoPokerClient:
    """Video poker machines: open, deal, hold, hints and pay tables; one channel each for
    the table service (`tables`) and the advisor, closed by `close()`."""

    def __init__(
        self, settings: ClientSettings | None = None, tables: TableClient | None = None
    ) -> None:
        self.settings = settings or ClientSettings.from_env()
        self._own_tables = tables is None
        self.tables = tables or TableClient(self.settings)
        # VideoPokerService is served by the table service, at its address.
        self._channel = open_channel(self.settings, "table")
        self.stub = videopoker_pb2_grpc.VideoPokerServiceStub(self._channel)
        self._caller = Caller(SERVICE, self.settings)

    def close(self) -> None:
        self._channel.close()
        if self._own_tables:
            self.tables.close()

    def __enter__(self) -> VideoPokerClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def paytables(self) -> list[vp.Paytable]:
        """Every pay table the platform offers, with its pays and exact return."""
        answer = self._caller.call(
            "ListPaytables", self.stub.ListPaytables, vp.ListPaytablesRequest()
        )
        return list(answer.paytables)

    def open_machine(
        self,
        *,
        paytables: Iterable[str] = (),
        denomination: int = 0,
        min_buy_in: int = 10,
        max_buy_in: int = 100_000,
        table_id: str = "",
        key: str | None = None,
    ) -> table_pb2.CreateTableResponse:
        """A new machine offering `paytables` (none: every one), a coin worth
        `denomination` chips (0: 1); join it to bring credits."""
        options = table_pb2.TableOptions(
            min_buy_in=min_buy_in,
            max_buy_in=max_buy_in,
            videopoker=vp.VideoPokerOptions(paytables=list(paytables), denomination=denomination),
        )
        return self.tables.create_table(options, table_id=table_id, key=key)

    def machine(self, table_id: str) -> table_pb2.TableView:
        """The machine as the caller sees it (`view.videopoker`: credits, round, moves)."""
        return self.tables.view(table_id)

    def deal(
        self,
        table_id: str,
        *,
        lines: int,
        coins: int,
        paytable: str,
        key: str | None = None,
        wait_s: float = DEFAULT_WAIT_S,
    ) -> table_pb2.TableView:
        """Bet `coins` a line on `lines` lines of `paytable` and deal; the view once the five
        cards show (or the round ended: a voided deal)."""
        before = self.machine(table_id).videopoker
        number = max(before.round.number, before.last.number) + 1
        move = vp.VideoPokerMove(deal=vp.Deal(lines=lines, coins=coins, paytable=paytable))
        answer = self.tables.send_act(act_request(table_id, move, key=key))
        return self.wait_for(table_id, lambda v: _shown(v, number), wait_s, answer.version)

    def hold(
        self,
        table_id: str,
        positions: Iterable[int],
        *,
        round_number: int = 0,
        key: str | None = None,
        wait_s: float = DEFAULT_WAIT_S,
    ) -> table_pb2.TableView:
        """Keep the cards at `positions` (0..4) and draw the rest on every line; the view
        once the round has ended (`view.videopoker.last`: every line's result, the win)."""
        held = vp.Hold(round=round_number, positions=list(positions))
        before = self.machine(table_id).videopoker
        number = round_number or before.round.number or before.moves.hold_round
        move = vp.VideoPokerMove(hold=held)
        answer = self.tables.send_act(act_request(table_id, move, key=key))
        return self.wait_for(table_id, lambda v: _ended(v, number), wait_s, answer.version)

    def hint(self, table_id: str) -> vp.AdviseResponse:
        """All 32 holds of the round in play at `table_id`, best first, valued exactly."""
        request = vp.AdviseRequest(table_id=table_id)
        return self._caller.call("Advise", self.stub.Advise, request)

    def hint_for(self, cards: Iterable[str], *, paytable: str, coins: int = 5) -> vp.AdviseResponse:
        """All 32 holds of any five cards ("Kh|Qh" for a split card) on `paytable`."""
        hand = vp.AdvisedHand(cards=list(cards), paytable=paytable, coins=coins)
        return self._caller.call("Advise", self.stub.Advise, vp.AdviseRequest(hand=hand))

    def wait_for(
        self,
        table_id: str,
        ready: Callable[[table_pb2.TableView], bool],
        wait_s: float = DEFAULT_WAIT_S,
        version: int = 0,
    ) -> table_pb2.TableView:
        """The first view at or after `version` that `ready` accepts; DeadlineExceeded after
        `wait_s` seconds (the machine's dealer or ledger is slow or down)."""
        deadline = time.monotonic() + wait_s
        pause = 0.02
        while True:
            view = self.machine(table_id)
            if view.version >= version and ready(view):
                return view
            if time.monotonic() > deadline:
                raise DeadlineExceeded(
                    f"table {table_id}: the machine did not finish in {wait_s:.0f} s "
                    f"(phase {vp.Phase.Name(view.videopoker.round.phase)})",
                    method=f"{SERVICE}.wait",
                )
            time.sleep(pause)
            pause = min(pause * 2, 0.25)


def _shown(view: table_pb2.TableView, number: int) -> bool:
    """The cards of round `number` show (it waits for the hold), or it is over already."""
    machine = view.videopoker
    if machine.HasField("round") and machine.round.number == number:
        return machine.round.phase == vp.PHASE_HOLDING
    return machine.last.number >= number > 0


def _ended(view: table_pb2.TableView, number: int) -> bool:
    machine = view.videopoker
    return machine.last.number >= number and not (
        machine.HasField("round") and machine.round.number == number
    )
