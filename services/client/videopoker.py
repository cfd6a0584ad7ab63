"""`croupier vp open|deal|hold|hint|show|paytables`: video poker machines on the platform.

    croupier --as alice vp paytables                      # what each pays, its exact return
    croupier --as alice vp open --buy-in 500              # a machine of your own, 500 credits
    croupier --as alice vp deal T --lines 5 --coins 1     # five cards
    croupier --as alice vp hint T                         # the best holds, valued exactly
    croupier --as alice vp hold T 0 1 4                   # keep those, every line draws

A machine is a one-seat table against the house (docs/games/video-poker.md): credits are your
stack, bought in from your ledger account, and `croupier leave T` pays them back. The offline
analysis commands (`vp analyze`, `vp advise`) sit beside these in the same group.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from croupier.table.v1 import table_pb2
from croupier.videopoker.v1 import videopoker_pb2 as vp
from services.client.cards import card_text
from services.client.identity import Identity
from services.client.reporting import print_json, reported

Json = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
TableId = Annotated[str, typer.Argument(help="The machine's table id (`croupier vp open`).")]
PHASES = {value: name.removeprefix("PHASE_").lower() for name, value in vp.Phase.items()}


def position_text(card: str, *, wild_rank: str = "") -> Text:
    """One position of the hand: a card, or a split card ("Kh|Qh") as its two cards side by
    side in the one position."""
    out = Text()
    for index, part in enumerate(card.split("|")):
        if index:
            out.append("+", style="bold")
        out.append_text(card_text(part, wild_rank=wild_rank))
    return out


def round_renderable(round_: vp.RoundView, *, wild_rank: str = "") -> RenderableType:
    """A round: its bet, the five positions (held ones marked), every line's result."""
    header = Text.assemble(
        (f"round {round_.number}", "bold"),
        f"  {round_.lines} lines x {round_.coins} coin{'s' if round_.coins > 1 else ''}"
        f" of {round_.paytable}",
        f"  bet {round_.bet}  {PHASES.get(round_.phase, '')}",
    )
    hand = Table(show_header=False, box=None, pad_edge=False)
    held = set(round_.held_positions)
    for _ in round_.cards:
        hand.add_column(justify="center")
    if round_.cards:
        hand.add_row(*(position_text(c, wild_rank=wild_rank) for c in round_.cards))
        marks = ("HELD" if i in held else str(i) for i in range(len(round_.cards)))
        hand.add_row(*(Text(m, style="bold green" if m == "HELD" else "dim") for m in marks))
    parts: list[RenderableType] = [header, hand]
    if round_.results:
        lines = Table(show_header=True, box=None, pad_edge=False)
        for column in ("line", "cards", "hand", "pays"):
            lines.add_column(column)
        for result in round_.results:
            cards = Text(" ").join(position_text(c, wild_rank=wild_rank) for c in result.cards)
            won = Text(str(result.win), style="bold green" if result.win else "dim")
            lines.add_row(str(result.line), cards, result.hand or "-", won)
        parts += [lines, Text(f"won {round_.win}", style="bold")]
    return Group(*parts)


def machine_renderable(view: table_pb2.TableView) -> RenderableType:
    machine = view.videopoker
    header = Text.assemble(
        (f"machine {view.table_id}", "bold"),
        f"  {machine.player or 'free'}  credits {machine.credits}",
        "" if view.status <= table_pb2.TABLE_STATUS_OPEN else "  closing",
    )
    parts: list[RenderableType] = [header]
    if machine.HasField("round"):
        parts.append(round_renderable(machine.round))
        if machine.round.phase == vp.PHASE_HOLDING:
            parts.append(Text(f"hold: croupier vp hold {view.table_id} POSITIONS (0-4, or none)"))
    elif machine.HasField("last"):
        parts.append(round_renderable(machine.last))
    if machine.moves.deal:
        tables = ", ".join(machine.moves.paytables)
        parts.append(Text(f"deal: croupier vp deal {view.table_id} (pay tables: {tables})"))
    return Group(*parts)


@reported
def paytables(ctx: typer.Context, json: Json = False) -> None:
    """The platform's pay tables: what each hand pays and the exact return of optimal play.

    Example: croupier --as alice vp paytables
    """
    identity: Identity = ctx.obj
    with identity.connect() as c:
        found = c.videopoker.paytables()
    if json:
        print_json(found)
        return
    table = Table(title="pay tables")
    for column in ("name", "title", "return (5 coins)", "split card (10 coins)", "royal pays"):
        table.add_column(column)
    for p in found:
        royal = next((line.pays_at_max for line in p.lines), 0)
        table.add_row(
            p.name,
            p.title,
            f"{p.exact_return.percent:.4f}%",
            f"{p.split_exact_return.percent:.4f}%",
            str(royal),
        )
    Console().print(table)


@reported
def open_machine(
    ctx: typer.Context,
    buy_in: Annotated[
        int, typer.Option(help="Credits to bring from your account (0: sit down later).", min=0)
    ] = 500,
    paytable: Annotated[
        list[str] | None, typer.Option("--paytable", "-p", help="Offer this pay table (repeat).")
    ] = None,
    denomination: Annotated[int, typer.Option(help="Chips a coin is worth.", min=1)] = 1,
    table_id: Annotated[
        str, typer.Option("--id", help="The machine's id (default: made up).")
    ] = "",
    json: Json = False,
) -> None:
    """Open a video poker machine (a one-seat table against the house) and sit at it.

    Example: croupier --as alice vp open --buy-in 500 --paytable jacks-9-6
    """
    identity: Identity = ctx.obj
    with identity.connect() as c:
        created = c.videopoker.open_machine(
            paytables=paytable or (), denomination=denomination, table_id=table_id
        )
        if buy_in:
            c.tables.join(created.table_id, buy_in=buy_in, seat=0)
        view = c.videopoker.machine(created.table_id)
    if json:
        print_json(view)
        return
    typer.echo(
        f"machine {created.table_id} open with {view.videopoker.credits} credits: "
        f"`croupier vp deal {created.table_id}`"
    )


@reported
def deal(
    ctx: typer.Context,
    table: TableId,
    lines: Annotated[int, typer.Option(help="Lines to play: 3, 5 or 10.")] = 5,
    coins: Annotated[int, typer.Option(help="Coins a line: 1-5, or 10 for split cards.")] = 1,
    paytable: Annotated[
        str, typer.Option("--paytable", "-p", help="Pay table (default: the machine's first).")
    ] = "",
    json: Json = False,
) -> None:
    """Bet and deal five cards; then `vp hint` and `vp hold`.

    Example: croupier --as alice vp deal T1 --lines 5 --coins 1 --paytable jacks-9-6
    """
    identity: Identity = ctx.obj
    with identity.connect() as c:
        machine = c.videopoker.machine(table)
        if machine.WhichOneof("game_view") != "videopoker":
            raise typer.BadParameter(f"table {table} is no video poker machine", param_hint="TABLE")
        chosen = paytable or (list(machine.videopoker.paytables) or [""])[0]
        view = c.videopoker.deal(
            table, lines=lines, coins=coins, paytable=chosen, wait_s=max(identity.timeout_s, 30)
        )
    _report(view, json)


@reported
def hold(
    ctx: typer.Context,
    table: TableId,
    positions: Annotated[
        list[str] | None,
        typer.Argument(help="Positions to keep, 0-4 (none: draw five new cards)."),
    ] = None,
    json: Json = False,
) -> None:
    """Keep the cards at POSITIONS and draw the rest on every line; shows each line's win.

    Example: croupier --as alice vp hold T1 0 1 4
    """
    kept = _positions(positions or [])
    identity: Identity = ctx.obj
    with identity.connect() as c:
        view = c.videopoker.hold(table, kept, wait_s=max(identity.timeout_s, 30))
    _report(view, json)


@reported
def hint(
    ctx: typer.Context,
    table: TableId,
    top: Annotated[int, typer.Option(help="How many holds to show.", min=1, max=32)] = 5,
    json: Json = False,
) -> None:
    """The advisor: the exact expected win of the best holds of the hand dealt.

    Example: croupier --as alice vp hint T1
    """
    identity: Identity = ctx.obj
    with identity.connect() as c:
        advice = c.videopoker.hint(table)
    if json:
        print_json(advice)
        return
    console = Console()
    console.print(Text(" ").join(position_text(card) for card in advice.cards))
    coins = f"{advice.coins} coin{'s' if advice.coins > 1 else ''} a line"
    holds = Table(title=f"best holds ({advice.paytable}, {coins})")
    for column in ("hold", "keeps", "expected win a line", "return"):
        holds.add_column(column)
    for value in advice.holds[:top]:
        kept = [position_text(advice.cards[p]) for p in value.positions]
        keeps = Text(" ").join(kept) if kept else Text("nothing (draw five)")
        held = " ".join(str(p) for p in value.positions) or "none"
        win = float(_fraction(value.expected_win))
        holds.add_row(held, keeps, f"{win:.4f}", f"{value.expected_return * 100:.2f}%")
    console.print(holds)
    best = " ".join(str(p) for p in advice.holds[0].positions) if advice.holds else ""
    console.print(f"croupier vp hold {table} {best}".rstrip())


@reported
def show(ctx: typer.Context, table: TableId, json: Json = False) -> None:
    """The machine: credits, the round in play (or the last), what you may do.

    Example: croupier --as alice vp show T1
    """
    identity: Identity = ctx.obj
    with identity.connect() as c:
        view = c.videopoker.machine(table)
    _report(view, json)


def _report(view: table_pb2.TableView, json: bool) -> None:
    if json:
        print_json(view)
    else:
        Console().print(machine_renderable(view))


def _positions(words: list[str]) -> list[int]:
    """Hold positions from the command line ("0 1 4", "0,1,4", or "none")."""
    spelled = [p for w in words for p in w.replace(",", " ").split()]
    if spelled in ([], ["none"]):
        return []
    try:
        kept = sorted({int(p) for p in spelled})
    except ValueError:
        raise typer.BadParameter(
            f"positions are 0 to 4 (or none), not {' '.join(words)!r}", param_hint="POSITIONS"
        ) from None
    if any(not 0 <= p <= 4 for p in kept):
        raise typer.BadParameter("positions are 0 to 4", param_hint="POSITIONS")
    return kept


def _fraction(text: str) -> float:
    numerator, _, denominator = text.partition("/")
    return int(numerator) / int(denominator or 1)


def register(group: typer.Typer) -> None:
    """Add these commands to the `croupier vp` group."""
    group.command("paytables")(paytables)
    group.command("open")(open_machine)
    group.command()(deal)
    group.command()(hold)
    group.command()(hint)
    group.command()(show)
