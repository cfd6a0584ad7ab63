"""What the video poker and Spit screens share: a watch of the table that redraws the view as
the caller may see it after every batch of events, a seat taken on arrival (unless the
screen only watches), and moves sent on a worker thread with their refusals shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from google.protobuf.message import Message
from textual import work
from textual.screen import Screen

from croupier.table.v1 import table_pb2
from services.client.tui.lobby import default_buy_in
from services.sdk import CroupierError, TableWatch, act_request

if TYPE_CHECKING:
    from services.client.tui.app import CroupierApp


class WatchedScreen(Screen[None]):
    """A table screen fed by its watch; subclasses draw `show(view)` and send moves."""

    AUTO_FOCUS = None

    def __init__(self, table_id: str, *, spectate: bool = False) -> None:
        super().__init__()
        self.table_id = table_id
        self.spectate = spectate
        self.view: table_pb2.TableView | None = None
        self.log_lines: list[str] = []  # what the screen told the user, for tests
        self._watch: TableWatch | None = None

    @property
    def croupier(self) -> CroupierApp:
        return self.app  # type: ignore[return-value]

    def on_mount(self) -> None:
        self.sub_title = ("watching " if self.spectate else "at ") + self.table_id
        self.start()

    def on_unmount(self) -> None:
        if self._watch is not None:
            self._watch.close()

    @work(thread=True, exclusive=True, group="watched-table")
    def start(self) -> None:
        client = self.croupier.client
        try:
            self._watch = client.tables.watch(self.table_id)
            view = next(self._watch, None)
            if not isinstance(view, table_pb2.TableView):
                return
            self.app.call_from_thread(self.show, view)
            if not self.spectate and view.viewer_seat < 0:
                joined = client.tables.join(self.table_id, buy_in=self.buy_in(view))
                self.app.call_from_thread(self.note, f"you sit at seat {joined.seat}")
                self.app.call_from_thread(self.show, client.tables.view(self.table_id))
            for item in self._watch:
                if isinstance(item, table_pb2.TableView):
                    self.app.call_from_thread(self.show, item)
                elif self._watch.buffered == 0:
                    self.app.call_from_thread(self.show, client.tables.view(self.table_id))
        except CroupierError as exc:
            self.app.call_from_thread(self.note, exc.message, "error")

    def buy_in(self, view: table_pb2.TableView) -> int:
        return default_buy_in(view.options)

    @work(thread=True, group="watched-move")
    def send(self, move: Message, key: str, what: str) -> None:
        """One move (`what` names it for a refusal); the watch shows what it did."""
        try:
            self.croupier.client.tables.send_act(act_request(self.table_id, move, key=key))
        except CroupierError as exc:
            self.app.call_from_thread(self.refused, what, exc)

    def refused(self, what: str, error: CroupierError) -> None:
        self.note(f"{what} refused: {error.message}", "error")

    def note(self, message: str, severity: str = "information") -> None:
        self.log_lines.append(message)
        self.notify(message, severity=severity)  # type: ignore[arg-type]

    def show(self, view: table_pb2.TableView) -> None:
        self.view = view

    def action_back(self) -> None:
        self.app.pop_screen()
