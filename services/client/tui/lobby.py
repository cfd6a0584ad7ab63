"""The lobby: every table (game, stakes, seats, players), create one with bots, join, watch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DataTable, Footer, Header, Input, Label, Select, Static

from croupier.table.v1 import table_pb2
from services.client.render import game_name
from services.sdk import CroupierError, player_account, poker_options
from services.sdk.poker import VARIANTS
from services.shared import auth

if TYPE_CHECKING:
    from services.client.tui.app import CroupierApp

DEPOSIT = 1000
# Games the lobby creates besides poker's variants: a Spit table, a video poker machine.
OTHER_GAMES = ("spit", "video-poker")


def other_game_options(game: str) -> table_pb2.TableOptions:
    """A Spit table (two seats, no stake) or a video poker machine (one seat)."""
    options = table_pb2.TableOptions(min_buy_in=10, max_buy_in=100_000)
    if game == "spit":
        options.seats = 2
        options.spit.SetInParent()
    else:
        options.seats = 1
        options.videopoker.SetInParent()
    return options


def default_buy_in(options: table_pb2.TableOptions) -> int:
    """100 big blinds (or 50 antes), within the table's buy-in range."""
    unit = options.poker.big_blind or options.poker.ante * 2 or 1
    wanted = 100 * unit
    return max(options.min_buy_in, min(options.max_buy_in or wanted, wanted))


class CreateTableScreen(ModalScreen[dict[str, Any] | None]):
    """A form: the game, blinds, seats and bots of a new table."""

    BINDINGS: ClassVar[list[BindingType]] = [("escape", "cancel", "cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(id="create-form"):
            yield Label("New table")
            yield Select(
                [(name, name) for name in (*VARIANTS, *OTHER_GAMES)],
                value="holdem",
                id="game",
                allow_blank=False,
            )
            yield Label("blinds (small/big; the draw games use an ante instead)")
            yield Input("1/2", id="blinds")
            yield Label("seats")
            yield Input("3", id="seats")
            yield Label("bots (random, tight, equity; comma separated)")
            yield Input("tight,equity", id="bots")
            yield Button("create and sit down", id="create", variant="primary")

    def on_button_pressed(self, _event: Button.Pressed) -> None:
        self._submit()

    def on_input_submitted(self, _event: Input.Submitted) -> None:
        self._submit()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def _submit(self) -> None:
        try:
            small, big = (int(x) for x in self.query_one("#blinds", Input).value.split("/"))
            seats = int(self.query_one("#seats", Input).value)
        except ValueError:
            self.notify("blinds are SMALL/BIG (1/2) and seats a number", severity="error")
            return
        bots = [b.strip() for b in self.query_one("#bots", Input).value.split(",") if b.strip()]
        game = str(self.query_one("#game", Select).value)
        self.dismiss({"game": game, "small": small, "big": big, "seats": seats, "bots": bots})


class LobbyScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        ("c", "create", "create table"),
        ("j", "join", "join"),
        ("w", "watch", "watch"),
        ("dollar_sign", "deposit", f"deposit {DEPOSIT}"),
        ("r", "refresh", "refresh"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.games: dict[str, str | None] = {}  # table -> its game_options member

    @property
    def croupier(self) -> CroupierApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(
            "↑↓ choose a table · j join · w watch · c create a table with bots · "
            f"$ deposit {DEPOSIT} chips (development cashier) · q quit",
            id="lobby-help",
        )
        yield Static("", id="balance")
        table: DataTable[str] = DataTable(id="tables", cursor_type="row")
        table.add_columns("table", "game", "seats", "players", "buy-in", "hand")
        yield table
        yield Footer()

    def on_mount(self) -> None:
        self.action_refresh()
        self.set_interval(2.0, self.action_refresh)

    @work(thread=True, exclusive=True, group="lobby")
    def action_refresh(self) -> None:
        client = self.croupier.client
        try:
            tables = list(client.tables.list_tables())
            balance = client.ledger.balance(player_account(self.croupier.player))
            money = f"{self.croupier.player}: {balance.available} chips available"
        except CroupierError as exc:
            self.app.call_from_thread(self.notify, exc.message, severity="error")
            return
        self.app.call_from_thread(self._show, tables, money)

    def _show(self, tables: list[table_pb2.TableSummary], money: str) -> None:
        self.games.update({s.table_id: s.options.WhichOneof("game_options") for s in tables})
        self.query_one("#balance", Static).update(money)
        grid: DataTable[str] = self.query_one("#tables", DataTable)
        keep = grid.cursor_row
        grid.clear()
        for s in tables:
            grid.add_row(
                s.table_id,
                game_name(s.options),
                str(s.options.seats),
                str(s.players),
                f"{s.options.min_buy_in}-{s.options.max_buy_in}",
                str(s.hand_number),
                key=s.table_id,
            )
        if tables:
            grid.move_cursor(row=min(keep, len(tables) - 1))

    def selected(self) -> str | None:
        grid: DataTable[str] = self.query_one("#tables", DataTable)
        if not grid.row_count:
            self.notify("no table yet: press c to create one")
            return None
        return str(grid.get_row_at(grid.cursor_row)[0])

    def action_join(self) -> None:
        table = self.selected()
        if table:
            self.open_table(table, spectate=False)

    def action_watch(self) -> None:
        table = self.selected()
        if table:
            self.open_table(table, spectate=True)

    def open_table(self, table: str, *, spectate: bool) -> None:
        from services.client.tui.screens import screen_for

        self.app.push_screen(screen_for(self.games.get(table), table, spectate=spectate))

    def _open_new(self, table: str, game: str) -> None:
        self.games[table] = "spit" if game == "spit" else "videopoker"
        self.open_table(table, spectate=False)

    @work(thread=True, group="lobby-deposit")
    def action_deposit(self) -> None:
        client = self.croupier.client
        me = self.croupier.player
        try:
            client.ledger.open_account(me)
            client.ledger.deposit(player_account(me), DEPOSIT)
        except CroupierError as exc:
            self.app.call_from_thread(self.notify, exc.message, severity="error")
            return
        self.app.call_from_thread(self.notify, f"deposited {DEPOSIT} chips")
        self.action_refresh()

    def action_create(self) -> None:
        self.app.push_screen(CreateTableScreen(), self._created)

    def _created(self, form: dict[str, Any] | None) -> None:
        if form:
            self._create(form)

    @work(thread=True, group="lobby-create")
    def _create(self, form: dict[str, Any]) -> None:
        game = form["game"]
        draw = game in ("spit-in-the-ocean", "six-card-open-draw")
        try:
            if game in OTHER_GAMES:
                with self.croupier.connect(auth.Role.PLAYER) as player:
                    made = player.tables.create_table(other_game_options(game))
                self.app.call_from_thread(self._open_new, made.table_id, game)
                return
            options = poker_options(
                variant=game,
                structure="fixed-limit" if draw else "no-limit",
                small_blind=0 if draw else form["small"],
                big_blind=0 if draw else form["big"],
                ante=1 if draw else 0,
                seats=form["seats"],
            )
            role = auth.Role.ADMIN if form["bots"] else auth.Role.PLAYER
            with self.croupier.connect(role) as operator:
                created = operator.tables.create_table(
                    options, bots=[(policy, 0.5) for policy in form["bots"]]
                )
        except (CroupierError, ValueError) as exc:
            message = exc.message if isinstance(exc, CroupierError) else str(exc)
            self.app.call_from_thread(self.notify, message, severity="error")
            return
        self.app.call_from_thread(self.open_table, created.table_id, spectate=False)
