"""A Spit table: the opponent's layout on top, the middle piles, your layout below (a
spectator sees both as any spectator may), every move you may make now as a numbered key,
and instant word when a play lost a race (the pile's top card changed first).

Keys: 1-9 the numbered move · r ready · esc lobby.
"""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Header, Static

from croupier.spit.v1 import spit_pb2 as sp
from croupier.table.v1 import table_pb2
from services.client.cards import card_text, plain
from services.client.tui.watched import WatchedScreen
from services.sdk import CroupierError

PHASES = {value: name.removeprefix("PHASE_").lower() for name, value in sp.Phase.items()}
VARIATIONS = {
    value: name.removeprefix("VARIATION_").lower() for name, value in sp.Variation.items()
}
MOVE_KEYS = 9


def describe(move: sp.SpitMove, spit: sp.SpitView, seat: int) -> str:
    """A legal move in words: "play 9♥ from place 1 onto pile 1 (on 8♣)"."""
    places = _places(spit, seat)
    kind = move.WhichOneof("move")
    if kind == "play_card":
        play = move.play_card
        card = _shown(places[play.source].up) if play.source < len(places) else "?"
        top = _shown(_top(spit, play.target))
        return f"play {card} from place {play.source + 1} onto pile {play.target + 1} (on {top})"
    if kind == "move_to_space":
        shift = move.move_to_space
        card = _shown(places[shift.source].up) if shift.source < len(places) else "?"
        return f"move {card} from place {shift.source + 1} to space {shift.target + 1}"
    if kind == "slap":
        return f"slap pile {move.slap.pile + 1} ({len(spit.middle[move.slap.pile].cards)} cards)"
    return "ready"


def _shown(card: str) -> str:
    """A card with its suit symbol ("9♥"); "empty" stays as it is."""
    return plain([card]) if len(card) == 2 else card


def _places(spit: sp.SpitView, seat: int) -> list[sp.Place]:
    mine = next((s for s in spit.seats if s.seat == seat), None)
    return list(mine.places) if mine is not None else []


def _top(spit: sp.SpitView, pile: int) -> str:
    cards = spit.middle[pile].cards if pile < len(spit.middle) else []
    return cards[-1] if cards else "empty"


class SpitScreen(WatchedScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n), f"play({n - 1})", f"move {n}", show=False) for n in range(1, 10)),
        Binding("r", "ready", "ready"),
        Binding("escape", "back", "lobby"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="header")
        yield Static("", id="them")
        yield Static("", id="middle")
        yield Static("", id="me")
        yield Static("", id="spit-moves")
        yield Static("keys: 1-9 the numbered move · r ready · esc lobby", id="spit-help")
        yield Footer()

    def show(self, view: table_pb2.TableView) -> None:
        self.view = view
        if not self.is_mounted:
            return
        spit = view.spit
        phase = PHASES.get(spit.phase, "waiting for players")
        game = f"game {spit.game}, deal {spit.deal}" if spit.HasField("game") else "no game yet"
        header = Text.assemble(
            (f"{view.table_id}", "bold"),
            f"  {VARIATIONS.get(spit.variation, 'spit')}  stake {spit.stake}  {game}  {phase}",
        )
        if spit.result:
            winner = next((s.player for s in spit.seats if s.seat == spit.winner), "nobody")
            header.append(f"  won by {winner} ({spit.result})", style="bold yellow")
        self.query_one("#header", Static).update(header)
        me = view.viewer_seat
        others = [s for s in spit.seats if s.seat != me]
        mine = [s for s in spit.seats if s.seat == me]
        top, bottom = (others, mine) if mine else (others[1:], others[:1])
        self.query_one("#them", Static).update(self.seats_grid(top, view))
        self.query_one("#middle", Static).update(self.middle(spit))
        self.query_one("#me", Static).update(self.seats_grid(bottom, view))
        self.query_one("#spit-moves", Static).update(self.moves_text(view))

    def seats_grid(self, seats: list[sp.SpitSeat], view: table_pb2.TableView) -> Table:
        grid = Table(box=None, show_header=False, padding=(0, 2))
        width = max((len(s.places) for s in seats), default=0)
        for _ in range(width + 2):
            grid.add_column(justify="center")
        for seat in seats:
            label = Text(seat.player or "(free)", style="bold")
            label.append(f"  {seat.stack} chips")
            if seat.ready:
                label.append("  ready", style="green")
            if seat.seat in view.acting_seats:
                label.append("  ▶", style="bold green")
            places = [self.place_text(p, n) for n, p in enumerate(seat.places)]
            spit_pile = Text(f"spit {seat.spit}", style="dim")
            grid.add_row(label, *places, spit_pile)
        return grid

    @staticmethod
    def place_text(place: sp.Place, number: int) -> Text:
        out = Text(f"{number + 1}:", style="dim")
        out.append_text(card_text(place.up) if place.up else Text("  ", style="on grey23"))
        if place.down:
            out.append(f" +{place.down}", style="dim")
        return out

    @staticmethod
    def middle(spit: sp.SpitView) -> Text:
        out = Text("middle  ", style="bold")
        for n, pile in enumerate(spit.middle):
            out.append(f"pile {n + 1}: ")
            out.append_text(card_text(pile.cards[-1]) if pile.cards else Text("empty", "dim"))
            out.append(f" ({len(pile.cards)})   ")
        if spit.side_stacks:
            out.append("side stacks " + " ".join(str(n) for n in spit.side_stacks), style="dim")
        return out

    def moves_plain(self) -> str:
        """The moves panel as plain text (tests, screen readers)."""
        return str(self.query_one("#spit-moves", Static).render())

    def moves_text(self, view: table_pb2.TableView) -> Text:
        if self.spectate or view.viewer_seat < 0:
            return Text("watching: a player's hidden cards stay hidden", style="dim")
        legal = list(view.spit.legal)
        if not legal:
            return Text("no move for you now", style="dim")
        out = Text("your moves: ", style="bold green")
        for n, move in enumerate(legal[:MOVE_KEYS]):
            out.append(f"\n [{n + 1}] {describe(move, view.spit, view.viewer_seat)}")
        return out

    def action_play(self, index: int) -> None:
        view = self.view
        if view is None or self.spectate:
            return
        legal = list(view.spit.legal)
        if index >= len(legal):
            self.note(f"no move {index + 1} now", "warning")
            return
        move = sp.SpitMove()
        move.CopyFrom(legal[index])
        if move.WhichOneof("move") == "play_card":
            # The top card this screen shows: a play that lost a race to it is refused
            # (or decided again on the new top card) instead of landing somewhere unseen.
            move.expected.top = _top(view.spit, move.play_card.target).replace("empty", "")
            move.expected.deal = view.spit.deal
        what = describe(legal[index], view.spit, view.viewer_seat)
        self.send(move, f"{self.croupier.player}/{self.table_id}/{view.version}/{index}", what)

    def action_ready(self) -> None:
        view = self.view
        if view is None or self.spectate:
            return
        ready = sp.SpitMove(ready=sp.Ready())
        if not any(m.WhichOneof("move") == "ready" for m in view.spit.legal):
            self.note("nothing to be ready for now", "warning")
            return
        self.send(ready, f"{self.croupier.player}/{self.table_id}/ready/{view.version}", "ready")

    def refused(self, what: str, error: CroupierError) -> None:
        if "top card" in error.message or "is now" in error.message:
            self.note(f"too late: {error.message}", "warning")
            return
        super().refused(what, error)
