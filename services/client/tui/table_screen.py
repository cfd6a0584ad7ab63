"""One table, to play or to watch: the felt (board or spit card, pots), every seat (stack,
bet, cards with suit symbols and colours, wild cards marked, hand descriptions at showdown),
the acting seat with a countdown of its decision time and time bank, the viewer's legal
moves as keys with their bet range, a live event log, and "show odds" from the evaluator.

A spectator (`spectate`) never sits down and sees what any spectator may: no hidden card.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, ClassVar

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, ProgressBar, RichLog, Static

from croupier.evaluator.v1 import evaluator_pb2
from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import events_pb2, table_pb2
from services.client.cards import cards_text
from services.client.render import event_line, game_name, legal_line, status_name, wild_rank
from services.client.tui.lobby import default_buy_in
from services.sdk import CroupierError, EntropyContributor, PlayStream, TableWatch, poker_move
from services.sdk.poker import ACTION_NAMES

if TYPE_CHECKING:
    from services.client.tui.app import CroupierApp

# Keys of the moves: (key, action name, what it says in the footer).
MOVE_KEYS = (
    ("f", "fold", "fold"),
    ("k", "check", "check"),
    ("c", "call", "call"),
    ("b", "bet", "bet"),
    ("r", "raise", "raise"),
    ("a", "all-in", "all-in"),
    ("d", "discard", "discard / stand pat"),
    ("o", "open-discard", "open discard"),
    ("s", "show", "show"),
    ("m", "muck", "muck"),
    ("p", "declare-board", "play the board"),
)
EQUITY_GAMES = {
    poker_pb2.VARIANT_TEXAS_HOLDEM: evaluator_pb2.EQUITY_GAME_HOLDEM,
    poker_pb2.VARIANT_HOLDEM_HILO: evaluator_pb2.EQUITY_GAME_HOLDEM_HI_LO,
    poker_pb2.VARIANT_SPIT_IN_THE_OCEAN: evaluator_pb2.EQUITY_GAME_SPIT_IN_THE_OCEAN,
}
NEEDS_INPUT = ("bet", "raise", "discard", "open-discard")


class TableScreen(Screen[None]):
    # The moves are keys of the screen: nothing takes the focus (and the keys) until a bet
    # amount or cards are asked for.
    AUTO_FOCUS = None
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(key, f"move('{name}')", label, show=False) for key, name, label in MOVE_KEYS),
        Binding("e", "odds", "show odds"),
        Binding("l", "leave", "leave"),
        Binding("escape", "back", "lobby"),
    ]

    def __init__(self, table_id: str, *, spectate: bool = False) -> None:
        super().__init__()
        self.table_id = table_id
        self.spectate = spectate
        self.view: table_pb2.TableView | None = None
        self.names: dict[int, str] = {}
        self.results: list[str] = []  # this hand's awards, shown on the felt
        self.last_results: list[str] = []  # the hand before's, until this one is awarded
        self.log_lines: list[str] = []  # what the log shows, for tests and screenshots
        self.pending: str = ""  # a move waiting for its amount or cards
        self._watch: TableWatch | None = None
        self._stream: PlayStream | None = None
        self._stream_lock = threading.Lock()

    @property
    def croupier(self) -> CroupierApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="header")
        yield Static("", id="felt")
        yield Static("", id="seats")
        with Horizontal(id="clock-row"):
            yield Static("", id="clock-label")
            yield ProgressBar(total=100, show_eta=False, id="clock")
        yield Static("", id="moves")
        yield Input(id="amount", disabled=True)
        yield Static("", id="odds")
        yield RichLog(id="log", markup=False, wrap=True)
        yield Static(
            "keys: f fold · k check · c call · b bet · r raise · a all-in · d discard · "
            "o open discard · s show · m muck · p play the board · e odds · l leave · "
            "esc lobby",
            id="table-help",
        )
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = ("watching " if self.spectate else "at ") + self.table_id
        self.start()
        self.set_interval(0.25, self.tick)

    def on_unmount(self) -> None:
        if self._watch is not None:
            self._watch.close()
        if self._stream is not None:
            self._stream.close()

    # Talking to the platform (worker threads) ------------------------------------------
    @work(thread=True, exclusive=True, group="table-watch")
    def start(self) -> None:
        client = self.croupier.client
        try:
            # Watch first, then sit down: the log shows the seating and the first hand whole.
            self._watch = client.tables.watch(self.table_id)
            view = next(self._watch, None)
            if not isinstance(view, table_pb2.TableView):  # closed before it began
                return
            self.app.call_from_thread(self.show, view)
            if not self.spectate and view.viewer_seat < 0:
                joined = client.tables.join(self.table_id, buy_in=default_buy_in(view.options))
                self.app.call_from_thread(
                    self.note, f"you sit at seat {joined.seat}", "information"
                )
            # Every hand's deck takes this player's entropy (docs/dealer.md 1.1).
            entropy = None if self.spectate else EntropyContributor(client.tables)
            for item in self._watch:
                if entropy is not None:
                    entropy.on_item(self.table_id, item)
                if isinstance(item, table_pb2.TableView):
                    self.app.call_from_thread(self.show, item)
                    continue
                self.app.call_from_thread(self.record, item)
                if self._watch.buffered == 0:
                    self.app.call_from_thread(self.show, client.tables.view(self.table_id))
        except CroupierError as exc:
            self.app.call_from_thread(self.note, exc.message, "error")

    @work(thread=True, group="table-move")
    def send(self, action: str, amount: int = 0, cards: tuple[str, ...] = ()) -> None:
        view = self.view
        if view is None:
            return
        key = f"{self.croupier.player}/{self.table_id}/{view.hand_number}/{view.action_number}"
        try:
            with self._stream_lock:
                if self._stream is None:
                    self._stream = self.croupier.client.tables.play()
                self._stream.act(
                    self.table_id,
                    poker_move(action, amount, cards),
                    hand_number=view.hand_number,
                    key=key,
                )
        except CroupierError as exc:
            self.app.call_from_thread(self.note, f"{action} refused: {exc.message}", "error")

    @work(thread=True, group="table-odds")
    def action_odds(self) -> None:
        view = self.view
        if view is None or view.viewer_seat < 0:
            self.app.call_from_thread(
                self.note, "odds are for a seated player's own cards", "warning"
            )
            return
        game = EQUITY_GAMES.get(view.options.poker.variant)
        if game is None:
            self.app.call_from_thread(
                self.note, "odds: hold'em and Spit in the Ocean only", "warning"
            )
            return
        seats = {s.seat: s for s in view.poker.seats}
        mine = [c for c in seats[view.viewer_seat].cards if c != "??"]
        others = [
            [c for c in s.cards if c != "??"]
            for seat_no, s in seats.items()
            if seat_no != view.viewer_seat and not s.folded and s.cards
        ]
        if not mine or not others:
            self.app.call_from_thread(self.note, "no hand in play to give odds for", "warning")
            return
        try:
            odds = self.croupier.client.evaluator.equity(
                [mine, *others], board=list(view.poker.board), game=game, samples=5000
            )
        except CroupierError as exc:
            self.app.call_from_thread(self.note, f"odds: {exc.message}", "error")
            return
        me = odds.players[0]
        text = (
            f"your equity {me.equity:.1%} (win {me.win:.1%}, tie {me.tie:.1%}) against "
            f"{len(others)} hand(s) {'exactly' if odds.exact else f'over {odds.trials} deals'}"
        )
        self.app.call_from_thread(self.query_one("#odds", Static).update, text)

    @work(thread=True, group="table-leave")
    def action_leave(self) -> None:
        if self.spectate:
            self.app.call_from_thread(self.action_back)
            return
        try:
            left = self.croupier.client.tables.leave(self.table_id)
        except CroupierError as exc:
            self.app.call_from_thread(self.note, exc.message, "error")
            return
        self.app.call_from_thread(
            self.note, "you left" if left.left else "you leave after this hand", "information"
        )

    # Drawing (UI thread) ----------------------------------------------------------------
    def note(self, message: str, severity: str = "information") -> None:
        self.notify(message, severity=severity)  # type: ignore[arg-type]
        self.write_log(("! " if severity == "error" else "") + message)

    def write_log(self, line: str) -> None:
        self.log_lines.append(line)
        if self.is_mounted:
            self.query_one("#log", RichLog).write(line)

    def record(self, event: events_pb2.TableEvent) -> None:
        if not self.is_mounted:
            return
        kind = event.WhichOneof("event")
        if kind == "hand_started":
            self.last_results = self.results or self.last_results
            self.results = []
            self.query_one("#odds", Static).update("")
        line = event_line(event, self.names)
        if kind == "pot_awarded":
            self.results.append(line.split(" ", 1)[1].strip())
        if kind != "action_requested":
            self.write_log(line)

    def show(self, view: table_pb2.TableView) -> None:
        self.view = view
        if not self.is_mounted:
            return
        self.names.update({s.seat: s.player_id for s in view.seats if s.player_id})
        poker = view.poker
        wild = wild_rank(view)
        phase = (poker.phase or view.phase) if view.hand_in_progress else "between hands"
        who = "spectator" if view.viewer_seat < 0 else f"seat {view.viewer_seat}"
        self.query_one("#header", Static).update(
            Text.assemble(
                (f"{view.table_id}", "bold"),
                f"  {game_name(view.options)}  hand {view.hand_number}  {phase}  ({who})",
                (
                    ""
                    if view.status <= table_pb2.TABLE_STATUS_OPEN
                    else f"  {status_name(view.status)}"
                ),
            )
        )
        felt = Text("board  ", style="bold white")
        felt.append_text(cards_text(poker.board, wild_rank=wild) if poker.board else Text("—"))
        if wild:
            felt.append(f"   {wild}s are wild", style="gold1")
        pots = " + ".join(str(p.amount) for p in poker.pots) or "0"
        felt.append(f"\npot    {pots}", style="bold white")
        for result in self.results:
            felt.append(f"\n{result}", style="bold yellow")
        for result in [] if self.results else self.last_results:
            felt.append(f"\nlast hand: {result}", style="yellow")
        self.query_one("#felt", Static).update(felt)
        self.query_one("#seats", Static).update(self.seats_table(view, wild))
        self.query_one("#moves", Static).update(self.moves_text(view))

    def seats_table(self, view: table_pb2.TableView, wild: str) -> Table:
        grid = Table(box=None, expand=True, show_header=True)
        for column in ("", "seat", "player", "stack", "bet", "cards", "", "time bank"):
            grid.add_column(column)
        poker = {s.seat: s for s in view.poker.seats}
        for seat in view.seats:
            if not seat.player_id:
                grid.add_row("", str(seat.seat), Text("(free)", style="dim"))
                continue
            p = poker.get(seat.seat)
            notes = []
            if seat.seat == view.poker.button and view.hand_number:
                notes.append("D")
            if seat.is_bot:
                notes.append("bot")
            if seat.sitting_out:
                notes.append("sitting out")
            if p is not None:
                notes += [x for x, on in (("folded", p.folded), ("all-in", p.all_in)) if on]
                if p.hand_label:
                    notes.append(p.hand_label)
            cards = cards_text(p.cards, wild_rank=wild) if p is not None else Text()
            if p is not None and p.open_discards:
                cards.append(" open ")
                cards.append_text(cards_text(p.open_discards, wild_rank=wild))
            name = Text(seat.player_id, style="bold" if seat.seat == view.viewer_seat else "")
            grid.add_row(
                Text("▶", style="bold green") if seat.seat in view.acting_seats else "",
                str(seat.seat),
                name,
                str(seat.stack),
                str(p.bet) if p is not None and p.bet else "",
                cards,
                ", ".join(notes),
                f"{seat.time_bank_ms / 1000:.0f}s" if seat.time_bank_ms else "",
            )
        return grid

    def moves_text(self, view: table_pb2.TableView) -> Text:
        if self.spectate or view.viewer_seat < 0:
            return Text("watching: hidden cards stay hidden until they are shown", style="dim")
        if not view.poker.legal_actions:
            return Text(
                "waiting for the others" if view.hand_in_progress else "waiting for the next hand",
                style="dim",
            )
        keys = {name: key for key, name, _ in MOVE_KEYS}
        text = Text("your move: ", style="bold green")
        for legal in view.poker.legal_actions:
            name = ACTION_NAMES.get(legal.action, "")
            text.append(f"[{keys.get(name, '?')}] ", style="bold")
            one = table_pb2.TableView()
            one.poker.legal_actions.append(legal)
            text.append(legal_line(one) + "   ")
        return text

    def tick(self) -> None:
        """The acting seat's clock: its decision time, then its time bank, counting down."""
        view = self.view
        bar = self.query_one("#clock", ProgressBar)
        label = self.query_one("#clock-label", Static)
        if view is None or not view.deadlines or not view.deadlines[0].deadline_unix_ms:
            bar.update(total=100, progress=0)
            label.update("")
            return
        deadline = view.deadlines[0]
        left_ms = max(0.0, deadline.deadline_unix_ms - time.time() * 1000)
        budget = view.options.action_time_ms or 1
        if deadline.from_time_bank:
            budget = max(budget, view.options.time_bank_ms or budget)
        bar.update(total=budget, progress=min(left_ms, budget))
        who = "you" if deadline.seat == view.viewer_seat else self.names.get(deadline.seat, "")
        bank = " time bank" if deadline.from_time_bank else ""
        label.update(f"seat {deadline.seat} ({who}){bank}: {left_ms / 1000:4.1f} s ")

    # Keys ---------------------------------------------------------------------------------
    def action_move(self, name: str) -> None:
        view = self.view
        if view is None or self.spectate:
            return
        legal = {ACTION_NAMES.get(a.action, ""): a for a in view.poker.legal_actions}
        if name not in legal:
            offer = legal_line(view) or "nothing: it is not your turn"
            self.note(f"{name} is not possible now; you may {offer}", "warning")
            return
        if name not in NEEDS_INPUT:
            self.write_log(f"→ {name}")
            self.send(name)
            return
        choice = legal[name]
        amount = self.query_one("#amount", Input)
        self.pending = name
        if name in ("bet", "raise"):
            amount.placeholder = f"{name} to ({choice.min_amount}..{choice.max_amount}), enter"
            amount.value = str(choice.min_amount)
        elif name == "discard":
            amount.placeholder = "cards to throw, e.g. 2c 7d (empty: stand pat), enter"
            amount.value = ""
        else:
            amount.placeholder = "the card to show face up, e.g. 2c, enter"
            amount.value = choice.discardable[0] if choice.discardable else ""
        amount.disabled = False
        amount.add_class("asking")
        amount.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        name, self.pending = self.pending, ""
        self._close_input()
        if not name:
            return
        value = event.value.strip()
        if name in ("bet", "raise"):
            try:
                self.send(name, int(value))
            except ValueError:
                self.note(f"{name}: {value!r} is not a number of chips", "error")
        else:
            self.send(name, 0, tuple(value.replace(",", " ").split()))

    def _close_input(self) -> None:
        amount = self.query_one("#amount", Input)
        amount.remove_class("asking")
        amount.disabled = True
        self.set_focus(None)

    def action_back(self) -> None:
        if self.pending:  # escape while an amount is asked for: no move, stay at the table
            self.pending = ""
            self._close_input()
            return
        self.app.pop_screen()
