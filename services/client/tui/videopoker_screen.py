"""A video poker machine: the five positions (a split card drawn as its two cards in one
position), the holds as keys, the bet (lines x coins, pay table), every line's result and
win once drawn, and the advisor's hint (the exact best hold, one key to take it).

Keys: 1-5 hold or release a position · enter draw · d deal · l lines · c coins · p pay
table · h hint · a take the hint's hold · x cash out · esc lobby.
"""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Header, Static

from croupier.table.v1 import table_pb2
from croupier.videopoker.v1 import videopoker_pb2 as vp
from services.client.tui.watched import WatchedScreen
from services.client.videopoker import PHASES, position_text
from services.sdk import CroupierError

LINES = (3, 5, 10)
COINS = (1, 2, 3, 4, 5, 10)  # 10: the Split Card feature


class VideoPokerScreen(WatchedScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        *(
            Binding(str(n + 1), f"hold_position({n})", f"hold {n + 1}", show=False)
            for n in range(5)
        ),
        Binding("enter", "draw", "draw"),
        Binding("d", "deal", "deal"),
        Binding("l", "lines", "lines"),
        Binding("c", "coins", "coins"),
        Binding("p", "paytable", "pay table"),
        Binding("h", "hint", "hint"),
        Binding("a", "take_hint", "take the hint"),
        Binding("x", "leave", "cash out"),
        Binding("escape", "back", "lobby"),
    ]

    def __init__(self, table_id: str, *, spectate: bool = False) -> None:
        super().__init__(table_id, spectate=spectate)
        self.holds: set[int] = set()
        self.lines = 5
        self.coins = 1
        self.paytable = ""
        self.hint: vp.AdviseResponse | None = None
        self._round = 0  # the round the holds and the hint belong to

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="header")
        yield Static("", id="hand")
        yield Static("", id="lines")
        yield Static("", id="hint")
        yield Static(
            "keys: 1-5 hold · enter draw · d deal · l lines · c coins · p pay table · "
            "h hint · a take the hint · x cash out · esc lobby",
            id="vp-help",
        )
        yield Footer()

    def buy_in(self, view: table_pb2.TableView) -> int:
        return max(view.options.min_buy_in, min(view.options.max_buy_in or 500, 500))

    # Drawing ----------------------------------------------------------------------------
    def show(self, view: table_pb2.TableView) -> None:
        self.view = view
        machine = view.videopoker
        offered = list(machine.paytables)
        if self.paytable not in offered and offered:
            self.paytable = offered[0]
        current = machine.round.number if machine.HasField("round") else 0
        if current != self._round:  # a new round: fresh holds, no stale hint
            self._round, self.holds, self.hint = current, set(), None
        if not self.is_mounted:
            return
        bet = self.lines * self.coins * (machine.denomination or 1)
        who = "spectator" if view.viewer_seat < 0 else machine.player or "free"
        self.query_one("#header", Static).update(
            Text.assemble(
                (f"machine {view.table_id}", "bold"),
                f"  {who}  credits {machine.credits}",
                f"   next deal: {self.lines} lines x {self.coins} coin"
                f"{'s' if self.coins > 1 else ''} of {self.paytable} = {bet}",
                "" if view.status <= table_pb2.TABLE_STATUS_OPEN else "  (closing)",
            )
        )
        shown = machine.round if machine.HasField("round") else machine.last
        self.query_one("#hand", Static).update(self.hand_table(shown))
        self.query_one("#lines", Static).update(self.lines_text(shown))
        self.query_one("#hint", Static).update(self.hint_text())

    def hand_table(self, round_: vp.RoundView) -> Table:
        grid = Table(box=None, show_header=False, padding=(0, 2))
        holding = round_.phase == vp.PHASE_HOLDING and not round_.held
        held = self.holds if holding else set(round_.held_positions)
        cards = list(round_.cards) or ["??"] * 5
        for _ in cards:
            grid.add_column(justify="center")
        grid.add_row(*(position_text(c) for c in cards))
        marks = [
            Text("HELD", style="bold green") if i in held else Text(f"[{i + 1}]", style="dim")
            for i in range(len(cards))
        ]
        grid.add_row(*marks)
        if round_.split_position >= 0:
            split = [Text("split" if i == round_.split_position else "") for i in range(5)]
            grid.add_row(*split)
        return grid

    def lines_text(self, round_: vp.RoundView) -> Text | Table:
        if not round_.number:
            return Text("press d to deal", style="dim")
        phase = PHASES.get(round_.phase, "")
        if not round_.results:
            coins = f"{round_.coins} coin{'s' if round_.coins > 1 else ''}"
            title = f"round {round_.number}: {round_.lines} lines x {coins}, {phase}"
            return Text(title + ("  (1-5 hold, enter draws)" if phase == "holding" else ""))
        grid = Table(box=None, title=f"round {round_.number}: won {round_.win}", expand=False)
        for column in ("line", "cards", "hand", "win"):
            grid.add_column(column)
        for result in round_.results:
            cards = Text(" ").join(position_text(c) for c in result.cards)
            win = Text(str(result.win), style="bold green" if result.win else "dim")
            grid.add_row(str(result.line), cards, result.hand, win)
        return grid

    def hint_text(self) -> Text:
        if self.hint is None or not self.hint.holds:
            return Text("h: the advisor's best hold", style="dim")
        best = self.hint.holds[0]
        kept = " ".join(str(p + 1) for p in best.positions) or "nothing (draw five)"
        return Text(
            f"advisor: hold {kept}, {best.expected_return:.1%} of the bet back on average "
            "(a takes it)",
            style="bold cyan",
        )

    # Keys -------------------------------------------------------------------------------
    def _round_in_play(self) -> vp.RoundView | None:
        view = self.view
        if view is None or not view.videopoker.HasField("round"):
            return None
        return view.videopoker.round

    def action_hold_position(self, position: int) -> None:
        round_ = self._round_in_play()
        if round_ is None or round_.phase != vp.PHASE_HOLDING or self.spectate:
            self.note("deal first (d): holds are for the five cards dealt", "warning")
            return
        self.holds ^= {position}
        if self.view is not None:
            self.show(self.view)

    def action_draw(self) -> None:
        round_ = self._round_in_play()
        if round_ is None or round_.phase != vp.PHASE_HOLDING or self.spectate:
            self.note("nothing to draw: deal first (d)", "warning")
            return
        move = vp.VideoPokerMove(hold=vp.Hold(round=round_.number, positions=sorted(self.holds)))
        self.send(move, self._key(f"hold/{round_.number}"), "the draw")

    def action_deal(self) -> None:
        view = self.view
        if view is None or self.spectate:
            return
        if not view.videopoker.moves.deal:
            self.note("no deal now: finish the round in play first", "warning")
            return
        number = max(view.videopoker.round.number, view.videopoker.last.number) + 1
        deal = vp.Deal(lines=self.lines, coins=self.coins, paytable=self.paytable)
        self.send(vp.VideoPokerMove(deal=deal), self._key(f"deal/{number}"), "the deal")

    def action_lines(self) -> None:
        self.lines = LINES[(LINES.index(self.lines) + 1) % len(LINES)]
        self._redraw()

    def action_coins(self) -> None:
        self.coins = COINS[(COINS.index(self.coins) + 1) % len(COINS)]
        self._redraw()

    def action_paytable(self) -> None:
        offered = list(self.view.videopoker.paytables) if self.view is not None else []
        if offered:
            at = offered.index(self.paytable) if self.paytable in offered else -1
            self.paytable = offered[(at + 1) % len(offered)]
        self._redraw()

    @work(thread=True, group="vp-hint")
    def action_hint(self) -> None:
        try:
            advice = self.croupier.client.videopoker.hint(self.table_id)
        except CroupierError as exc:
            self.app.call_from_thread(self.note, f"hint: {exc.message}", "warning")
            return
        self.app.call_from_thread(self._hinted, advice)

    def _hinted(self, advice: vp.AdviseResponse) -> None:
        self.hint = advice
        self._redraw()

    def action_take_hint(self) -> None:
        round_ = self._round_in_play()
        if self.hint is None or round_ is None or self.hint.round != round_.number:
            self.note("ask for a hint first (h)", "warning")
            return
        self.holds = set(self.hint.holds[0].positions)
        self._redraw()

    @work(thread=True, group="vp-leave")
    def action_leave(self) -> None:
        try:
            left = self.croupier.client.tables.leave(self.table_id)
        except CroupierError as exc:
            self.app.call_from_thread(self.note, exc.message, "error")
            return
        said = "your credits are back in your account" if left.left else "you leave after it"
        self.app.call_from_thread(self.note, said)

    def _redraw(self) -> None:
        if self.view is not None:
            self.show(self.view)

    def _key(self, what: str) -> str:
        return f"{self.croupier.player}/{self.table_id}/{what}"
