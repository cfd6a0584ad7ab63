"""Tables, views and events as readable text: what `croupier view`, `watch` and `table list`
print, and what the terminal UI draws from (one place that knows the games' views)."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from croupier.table.v1 import events_pb2, table_pb2
from services.client.cards import cards_text, plain
from services.sdk.poker import ACTION_NAMES, STRUCTURE_NAMES, VARIANT_NAMES


def game_name(options: table_pb2.TableOptions) -> str:
    """ "holdem no-limit 1/2", "spit-in-the-ocean fixed-limit ante 1", ..."""
    member = options.WhichOneof("game_options")
    if member not in ("poker", None) or (member is None and not options.game):
        return member or "unknown game"
    poker = options.poker
    if member == "poker":
        variant = VARIANT_NAMES.get(poker.variant, "poker")
        structure = STRUCTURE_NAMES.get(poker.structure, "")
        sb, bb, ante = poker.small_blind, poker.big_blind, poker.ante
    else:  # the first spelling
        variant = _first_variant(options)
        structure = STRUCTURE_NAMES.get(int(options.structure), "")  # type: ignore[call-overload]
        sb, bb, ante = options.small_blind, options.big_blind, options.ante
    stakes = f"{sb}/{bb}" if bb else ""
    if ante:
        stakes = f"{stakes} ante {ante}".strip()
    return " ".join(part for part in (variant, structure, stakes) if part)


def _first_variant(options: table_pb2.TableOptions) -> str:
    return {
        table_pb2.GAME_TEXAS_HOLDEM: "holdem",
        table_pb2.GAME_HOLDEM_HILO: "holdem-hilo",
        table_pb2.GAME_SPIT_IN_THE_OCEAN: "spit-in-the-ocean",
        table_pb2.GAME_SIX_CARD_OPEN_DRAW: "six-card-open-draw",
    }.get(options.game, "poker")


def wild_rank(view: table_pb2.TableView) -> str:
    """The wild rank of a Spit in the Ocean hand: the spit card's (the board's first card)."""
    is_spit = view.options.poker.variant == 3 or view.options.game == 3
    board = list(view.poker.board or view.board)
    return board[0][0] if is_spit and board and board[0] != "??" else ""


def tables_table(summaries: list[table_pb2.TableSummary]) -> Table:
    table = Table(title="tables", show_lines=False)
    for column in ("table", "game", "seats", "players", "buy-in", "hand", "status"):
        table.add_column(column)
    for s in summaries:
        table.add_row(
            s.table_id,
            game_name(s.options),
            str(s.options.seats),
            str(s.players),
            f"{s.options.min_buy_in}-{s.options.max_buy_in}",
            str(s.hand_number),
            status_name(s.status),
        )
    return table


def status_name(status: table_pb2.TableStatus.ValueType) -> str:
    """ "open", "closing", "closed" ("open" too from a service that predates closing)."""
    if status == table_pb2.TABLE_STATUS_UNSPECIFIED:
        return "open"
    return table_pb2.TableStatus.Name(status).removeprefix("TABLE_STATUS_").lower()


def legal_line(view: table_pb2.TableView) -> str:
    """The viewer's legal moves, with amounts: "fold | call 2 | raise 4..200"."""
    parts = []
    for legal in view.poker.legal_actions:
        name = ACTION_NAMES.get(legal.action, str(legal.action))
        if legal.min_amount or legal.max_amount:
            if legal.min_amount == legal.max_amount:
                parts.append(f"{name} {legal.min_amount}")
            else:
                parts.append(f"{name} {legal.min_amount}..{legal.max_amount}")
        elif legal.max_cards:
            parts.append(f"{name} {legal.min_cards}..{legal.max_cards} cards")
        else:
            parts.append(name)
    return " | ".join(parts)


def seconds_left(deadline_unix_ms: int, now_ms: float | None = None) -> float | None:
    if not deadline_unix_ms:
        return None
    now = time.time() * 1000 if now_ms is None else now_ms
    return max(0.0, (deadline_unix_ms - now) / 1000)


def view_renderable(view: table_pb2.TableView) -> RenderableType:
    """A table as one viewer sees it: header, board, pots, seats, the viewer's moves."""
    poker = view.poker
    wild = wild_rank(view)
    header = Text.assemble(
        (f"table {view.table_id}", "bold"),
        f"  {game_name(view.options)}  hand {view.hand_number}",
        f"  {poker.phase or view.phase or 'waiting'}"
        if view.hand_in_progress
        else "  between hands",
        f"  v{view.version}",
        ("" if view.status <= table_pb2.TABLE_STATUS_OPEN else f"  {status_name(view.status)}"),
    )
    board = Text("board  ")
    board.append_text(cards_text(poker.board, wild_rank=wild) if poker.board else Text("-"))
    pots = " + ".join(str(p.amount) for p in poker.pots) or "0"
    board.append(f"   pot {pots}")
    seats = Table(show_header=True, box=None, pad_edge=False)
    for column in ("", "seat", "player", "stack", "bet", "cards", ""):
        seats.add_column(column)
    poker_seats = {s.seat: s for s in poker.seats}
    deadlines = {d.seat: d for d in view.deadlines}
    for seat in view.seats:
        extra = poker_seats.get(seat.seat)
        acting = "▶" if seat.seat in view.acting_seats else ""
        status = []
        if seat.seat == poker.button and view.hand_number:
            status.append("button")
        if seat.seat == view.viewer_seat:
            status.append("you")
        if seat.is_bot:
            status.append("bot")
        if seat.sitting_out:
            status.append("sitting out")
        if extra is not None and extra.folded:
            status.append("folded")
        if extra is not None and extra.all_in:
            status.append("all-in")
        if extra is not None and extra.hand_label:
            status.append(extra.hand_label)
        deadline = deadlines.get(seat.seat)
        left = seconds_left(deadline.deadline_unix_ms) if deadline else None
        if left is not None:
            status.append(
                f"{left:.0f}s" + (" (time bank)" if deadline and deadline.from_time_bank else "")
            )
        cards = cards_text(extra.cards, wild_rank=wild) if extra is not None else Text()
        if extra is not None and extra.open_discards:
            cards.append("  open: ")
            cards.append_text(cards_text(extra.open_discards, wild_rank=wild))
        seats.add_row(
            acting,
            str(seat.seat),
            seat.player_id or "(free)",
            str(seat.stack) if seat.player_id else "",
            str(extra.bet) if extra is not None and extra.bet else "",
            cards,
            ", ".join(status),
        )
    parts: list[RenderableType] = [header, board, seats]
    if poker.legal_actions:
        parts.append(Text(f"your move: {legal_line(view)}", style="bold green"))
    return Group(*parts)


def event_line(event: events_pb2.TableEvent, names: dict[int, str] | None = None) -> str:
    """One readable line for an event (as `croupier watch` prints it)."""
    names = names or {}

    def who(seat: int) -> str:
        name = names.get(seat)
        return f"seat {seat} ({name})" if name else f"seat {seat}"

    kind = event.WhichOneof("event")
    if kind is None:
        return f"v{event.version:<5} (an event this client does not know)"
    e: Any = getattr(event, kind)
    head = f"v{event.version:<5} "
    if kind == "player_seated":
        names[e.seat] = e.player
        return f"{head}{e.player} sits at seat {e.seat} with {e.stack}"
    if kind == "player_left":
        return f"{head}{e.player} leaves seat {e.seat} with {e.stack}"
    if kind == "hand_started":
        return f"{head}hand {e.hand} starts, button {who(e.button)}"
    if kind == "forced_bet_posted":
        return f"{head}{who(e.seat)} posts {e.kind} {e.amount}"
    if kind == "phase_started":
        return f"{head}-- {e.name} --"
    if kind == "cards_dealt":
        target = who(e.seat) if e.HasField("seat") else "the board"
        return f"{head}{target} is dealt {plain(e.cards)}"
    if kind == "action_taken":
        amount = (
            f" {e.to}" if e.action in ("bet", "raise") or (e.action == "all-in" and e.to) else ""
        )
        if e.action == "call" and e.added:
            amount = f" {e.added}"
        return f"{head}{who(e.seat)} {e.action}s{amount}".replace("checks", "checks").replace(
            "all-ins", "goes all-in"
        )
    if kind == "timed_out":
        return f"{head}{who(e.seat)} timed out"
    if kind == "cards_shown":
        return f"{head}{who(e.seat)} shows {plain(e.cards)}"
    if kind == "hand_mucked":
        return f"{head}{who(e.seat)} mucks"
    if kind == "cards_discarded":
        shown = plain(e.cards) if e.face_up else f"{len(e.cards)} card(s)"
        return f"{head}{who(e.seat)} discards {shown}"
    if kind == "hands_ranked":
        ranked = ", ".join(
            f"{who(r.seat)}: {r.rank.high.label}"
            + (f" / low {r.rank.low.label}" if r.rank.low.label else "")
            for r in e.ranks
        )
        return f"{head}showdown: {ranked}"
    if kind == "pot_awarded":
        shares = ", ".join(
            f"{who(s.seat)} wins {s.amount}" + (f" ({s.half})" if s.half else "") for s in e.shares
        )
        label = "main pot" if e.pot == 0 else f"side pot {e.pot}"
        return f"{head}{label} {e.amount}: {shares}"
    if kind == "uncalled_bet_returned":
        return f"{head}{e.amount} uncalled returned to {who(e.seat)}"
    if kind == "hand_ended":
        stacks = ", ".join(f"{who(s.seat)} {s.amount}" for s in e.stacks)
        return f"{head}hand {e.hand} ends: {stacks}"
    if kind == "action_requested":
        left = seconds_left(e.deadline_unix_ms)
        clock = f" ({left:.0f}s)" if left is not None else ""
        return f"{head}{who(e.seat)} to act{clock}"
    if kind == "procedure_applied":
        return f"{head}{e.explanation}"
    if kind == "irregularity_reported":
        what = f"{e.card} exposed" if e.kind == "card_exposed" else f"a {e.kind}"
        return f"{head}the dealer reports {what}" + (f": {e.reason}" if e.reason else "")
    if kind == "card_reported":
        if e.to == "seat":
            return f"{head}the dealer deals {e.card} to {who(e.seat)}" + (
                " (face up)" if e.face_up else ""
            )
        return f"{head}the dealer {'burns' if e.to == 'burn' else 'turns'} {e.card}"
    if kind == "shuffle_committed":
        return f"{head}hand {e.hand}: the dealer commits to shuffle {e.shuffle_id} ({e.commitment[:16]}...)"  # noqa: E501
    if kind == "shuffle_revealed":
        return f"{head}hand {e.hand}: shuffle {e.shuffle_id} revealed (croupier verify --table {event.table_id} --hand {e.hand})"  # noqa: E501
    if kind == "shuffle_withdrawn":
        return f"{head}hand {e.hand}: shuffle {e.shuffle_id} withdrawn unused ({e.reason}); it is revealed next"  # noqa: E501
    if kind == "table_closing":
        return (
            f"{head}{e.closed_by} closes the table: nobody new sits down; once the round in "
            "play ends every stack goes back to its player's account"
        )
    return f"{head}{kind.replace('_', ' ')}"
