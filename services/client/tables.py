"""`croupier table ...` and the seat commands: create, list, show, close; join, leave, sit
out, sit in, top up, act, view, watch.

    croupier --as alice table create --blinds 1/2 --bots tight,equity
    croupier --as alice join T1 --buy-in 200
    croupier --as alice act T1 raise 6
    croupier --as alice watch T1
"""

from __future__ import annotations

import json as jsonlib
import time
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn

from croupier.spit.v1 import spit_pb2
from croupier.table.v1 import table_pb2
from croupier.videopoker.v1 import videopoker_pb2
from services.client.identity import Identity
from services.client.render import event_line, tables_table, view_renderable
from services.client.reporting import fail, print_json, reported, to_json
from services.sdk import EntropyContributor, TableClient, poker_move, poker_options
from services.sdk.poker import ACTIONS, STRUCTURES, VARIANTS
from services.shared import auth

app = typer.Typer(name="table", help="Tables: create, list, show, close.", no_args_is_help=True)
Json = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
TableId = Annotated[str, typer.Argument(help="Table id (`croupier table list`).")]
BOT_POLICIES = ("random", "tight", "equity")
SPIT_POLICY = "spit"  # the real-time bot (services/bots/hosted.py): 1 - difficulty sets its pace
# Games `table create` makes besides poker's variants (each its own options).
OTHER_GAMES = ("spit", "video-poker")


def _blinds(text: str) -> tuple[int, int]:
    try:
        small, big = (int(part) for part in text.split("/"))
    except ValueError:
        raise typer.BadParameter(f"write the blinds as SMALL/BIG, e.g. 1/2, not {text!r}") from None
    if small < 0 or big < small:
        raise typer.BadParameter(f"blinds {text}: the big blind must be at least the small one")
    return small, big


@app.command()
@reported
def create(
    ctx: typer.Context,
    game: Annotated[
        str, typer.Option(help=f"One of: {', '.join((*VARIANTS, *OTHER_GAMES))}.")
    ] = "holdem",
    structure: Annotated[str, typer.Option(help=f"One of: {', '.join(STRUCTURES)}.")] = "no-limit",
    blinds: Annotated[str, typer.Option(help="SMALL/BIG blinds (hold'em games).")] = "1/2",
    ante: Annotated[int, typer.Option(help="Ante (the draw games need one).", min=0)] = 0,
    seats: Annotated[
        int, typer.Option(help="Seats at the table (spit: 2, video-poker: 1).", min=1, max=10)
    ] = 6,
    min_buy_in: Annotated[int, typer.Option(help="0: 20 big blinds.", min=0)] = 0,
    max_buy_in: Annotated[int, typer.Option(help="0: 200 big blinds.", min=0)] = 0,
    action_time: Annotated[
        float, typer.Option(help="Seconds per decision (0: no clock).", min=0)
    ] = 30,
    time_bank: Annotated[float, typer.Option(help="Seconds of time bank per player.", min=0)] = 30,
    bots: Annotated[
        str,
        typer.Option(
            help=f"Bots to seat, comma separated: {', '.join(BOT_POLICIES)}; "
            f"spit: {SPIT_POLICY} (one or two)."
        ),
    ] = "",
    difficulty: Annotated[
        float,
        typer.Option(help="Bots' strength, 0..1 (spit: speed, 1 reacts at once).", min=0, max=1),
    ] = 0.5,
    stake: Annotated[int, typer.Option(help="Spit: chips each player puts up a game.", min=0)] = 0,
    table_id: Annotated[str, typer.Option("--id", help="The table's id (default: made up).")] = "",
    live_dealer: Annotated[
        bool,
        typer.Option(
            "--live-dealer",
            help="Poker dealt at a physical table: `croupier dealer report` gives the cards.",
        ),
    ] = False,
    json: Json = False,
) -> None:
    """Open a table, optionally with bots (seated by the platform's workers): poker, Spit
    (`--game spit`, two seats) or a video poker machine (`--game video-poker`, one seat).

    Example: croupier --as alice table create --blinds 1/2 --seats 3 --bots tight,equity
    Example: croupier --as alice table create --game spit --stake 10
    Example: croupier --as alice table create --game spit --stake 10 --bots spit
    """
    identity: Identity = ctx.obj
    if game in OTHER_GAMES:
        options = _other_game_options(game, seats, min_buy_in, max_buy_in, stake)
        hosted = _spit_bots(game, bots)
        # (tables with bots are the operator's to open, as for poker)
        with identity.connect(auth.Role.ADMIN if hosted else auth.Role.PLAYER) as c:
            created = c.tables.create_table(
                options, bots=[(p, difficulty) for p in hosted], table_id=table_id
            )
            view = c.tables.view(created.table_id)
        if json:
            print_json(view)
            return
        tid = created.table_id
        if len(hosted) == 2:
            typer.echo(f"{game} table {tid} created with two bots: `croupier watch {tid}`")
            return
        against = " against a bot" if hosted else ""
        typer.echo(f"{game} table {tid} created{against}: join it with `croupier join {tid}`")
        return
    if game not in VARIANTS:
        raise typer.BadParameter(
            f"no game {game!r}; one of {', '.join((*VARIANTS, *OTHER_GAMES))}",
            param_hint="--game",
        )
    if seats < 2:
        raise typer.BadParameter("a poker table has 2 to 10 seats", param_hint="--seats")
    if structure not in STRUCTURES:
        raise typer.BadParameter(f"one of {', '.join(STRUCTURES)}", param_hint="--structure")
    small, big = _blinds(blinds) if game in ("holdem", "holdem-hilo") else (0, 0)
    policies = [p.strip() for p in bots.split(",") if p.strip()]
    unknown = [p for p in policies if p not in BOT_POLICIES]
    if unknown:
        raise typer.BadParameter(
            f"no bot policy {unknown[0]!r}; one of {', '.join(BOT_POLICIES)}", param_hint="--bots"
        )
    if len(policies) >= seats:
        raise typer.BadParameter(
            f"{len(policies)} bots leave no seat free at a {seats}-seat table", param_hint="--bots"
        )
    options = poker_options(
        variant=game,
        structure="fixed-limit"
        if game in ("spit-in-the-ocean", "six-card-open-draw") and structure == "no-limit"
        else structure,
        small_blind=small,
        big_blind=big,
        ante=ante or (0 if big else 1),
        seats=seats,
        min_buy_in=min_buy_in,
        max_buy_in=max_buy_in,
        action_time_ms=int(action_time * 1000),
        time_bank_ms=int(time_bank * 1000),
        live_dealer=live_dealer,
    )
    # Tables with bots are the operator's to open; under `croupier run` the development key
    # signs that for you.
    role = auth.Role.ADMIN if policies else auth.Role.PLAYER
    with identity.connect(role) as c:
        created = c.tables.create_table(
            options, bots=[(p, difficulty) for p in policies], table_id=table_id
        )
        view = c.tables.view(created.table_id)
    if json:
        print_json(view)
        return
    typer.echo(f"table {created.table_id} created: join it with `croupier join {created.table_id}`")


def _spit_bots(game: str, bots: str) -> list[str]:
    """The policies `--bots` asks for at a Spit table (`spit`, once or twice: a person against
    a bot, or a bot game to watch); a video poker machine takes none."""
    policies = [p.strip() for p in bots.split(",") if p.strip()]
    if not policies:
        return []
    if game != "spit":
        raise typer.BadParameter(
            f"a {game} table takes no bots at creation: leave out --bots", param_hint="--bots"
        )
    unknown = [p for p in policies if p != SPIT_POLICY]
    if unknown:
        raise typer.BadParameter(
            f"no Spit bot policy {unknown[0]!r}: a Spit table's bots play `{SPIT_POLICY}` "
            f"(--bots {SPIT_POLICY}, or {SPIT_POLICY},{SPIT_POLICY} for a bot game to watch)",
            param_hint="--bots",
        )
    if len(policies) > 2:
        raise typer.BadParameter(
            f"{len(policies)} bots at a 2-seat Spit table: at most 2", param_hint="--bots"
        )
    return policies


def _other_game_options(
    game: str, seats: int, min_buy_in: int, max_buy_in: int, stake: int
) -> table_pb2.TableOptions:
    """The options of a Spit table or a video poker machine (their own seat counts)."""
    wanted = {"spit": 2, "video-poker": 1}[game]
    if seats not in (wanted, 6):  # (6: the option's default, left as it was)
        raise typer.BadParameter(
            f"a {game} table has {wanted} seat{'s' if wanted > 1 else ''}", param_hint="--seats"
        )
    options = table_pb2.TableOptions(
        seats=wanted, min_buy_in=min_buy_in or 10, max_buy_in=max_buy_in or 100_000
    )
    if game == "spit":
        options.spit.CopyFrom(spit_pb2.SpitOptions(stake=stake))
    else:
        if stake:
            raise typer.BadParameter("video poker has no stake: bet per deal", param_hint="--stake")
        options.videopoker.CopyFrom(videopoker_pb2.VideoPokerOptions())
    return options


@app.command("list")
@reported
def list_tables(ctx: typer.Context, json: Json = False) -> None:
    """Every table: game, stakes, seats, players.

    Example: croupier --as alice table list
    """
    identity: Identity = ctx.obj
    with identity.connect() as c:
        summaries = list(c.tables.list_tables())
    if json:
        print_json(summaries)
        return
    if not summaries:
        typer.echo("no tables yet: `croupier table create`")
        return
    Console().print(tables_table(summaries))


@app.command()
@reported
def show(ctx: typer.Context, table: TableId, json: Json = False) -> None:
    """A table as you may see it (same as `croupier view`).

    Example: croupier --as alice table show T1
    """
    _show(ctx.obj, table, json)


@app.command()
@reported
def close(
    ctx: typer.Context,
    table: TableId,
    wait: Annotated[
        bool, typer.Option(help="Wait until every seat is paid out (the hand in play ends).")
    ] = False,
    json: Json = False,
) -> None:
    """Close a table you created (admins and services close any): nobody joins or tops up
    from now on, the hand in play is played out, then every stack goes back to its player's
    account and the table deals no more (bot-only tables stop too). Closing again is a no-op.

    Example: croupier --as alice table close T1 --wait
    """
    identity: Identity = ctx.obj
    with identity.connect() as c:
        answer = c.tables.close_table(table)
        if wait and answer.status != table_pb2.TABLE_STATUS_CLOSED:
            answer = _closed(c.tables, table, identity.timeout_s, spinner=not json)
    if json:
        print_json(answer)
    elif answer.status == table_pb2.TABLE_STATUS_CLOSED:
        typer.echo(f"table {table} is closed: every stack is back in its player's account")
    else:
        typer.echo(
            f"table {table} is closing: the hand in play finishes, then every stack is paid "
            f"back (`croupier table show {table}` says when it is closed)"
        )


def _closed(
    tables: TableClient, table: str, timeout_s: float, *, spinner: bool
) -> table_pb2.CloseTableResponse:
    """The close's answer once the table is closed (a spinner on stderr meanwhile); a
    refusal when it is not within the time a hand may take (its decisions' clocks, with
    slack)."""
    view = tables.view(table)
    deadline = time.monotonic() + max(timeout_s, 30 + 10 * view.options.action_time_ms / 1000)
    columns = (SpinnerColumn(), TextColumn("{task.description}"))
    console = Console(stderr=True)
    with Progress(*columns, console=console, transient=True, disable=not spinner) as bar:
        bar.add_task(f"waiting for the hand at {table} to end and its stacks to be paid")
        while view.status != table_pb2.TABLE_STATUS_CLOSED:
            if time.monotonic() > deadline:
                fail(f"table {table} is still closing: the hand in play has not ended yet")
            time.sleep(0.2)
            view = tables.view(table)
    return table_pb2.CloseTableResponse(version=view.version, status=view.status)


def _show(identity: Identity, table: str, json: bool) -> None:
    with identity.connect() as c:
        view = c.tables.view(table)
    if json:
        print_json(view)
    else:
        Console().print(view_renderable(view))


@reported
def view(ctx: typer.Context, table: TableId, json: Json = False) -> None:
    """The table as you may see it: board, pots, seats, your cards, your legal moves.

    Example: croupier --as alice view T1
    """
    _show(ctx.obj, table, json)


@reported
def join(
    ctx: typer.Context,
    table: TableId,
    buy_in: Annotated[
        int,
        typer.Option(help="Chips to bring (0: 100 big blinds, within the table's range).", min=0),
    ] = 0,
    seat: Annotated[int, typer.Option(help="Seat to take (-1: the first free one).", min=-1)] = -1,
    json: Json = False,
) -> None:
    """Take a seat with chips from your account; the hand starts once enough players sit.

    Example: croupier --as alice join T1 --buy-in 200
    """
    identity: Identity = ctx.obj
    with identity.connect() as c:
        options = c.tables.view(table).options
        if not buy_in:
            unit = options.poker.big_blind or options.poker.ante * 2 or 1
            buy_in = max(options.min_buy_in, min(options.max_buy_in or 100 * unit, 100 * unit))
        joined = c.tables.join(table, buy_in=buy_in, seat=seat)
    if json:
        print_json(joined)
    else:
        typer.echo(f"seated at {table} seat {joined.seat} with {buy_in}")


@reported
def leave(ctx: typer.Context, table: TableId, json: Json = False) -> None:
    """Leave the table: now, or after the current hand; your stack goes back to your account.

    Example: croupier --as alice leave T1
    """
    identity: Identity = ctx.obj
    with identity.connect() as c:
        answer = c.tables.leave(table)
    if json:
        print_json(answer)
    else:
        typer.echo("left" if answer.left else "leaving after this hand")


@reported
def sit_out(ctx: typer.Context, table: TableId) -> None:
    """Stop being dealt in (your seat and stack stay).

    Example: croupier --as alice sit-out T1
    """
    identity: Identity = ctx.obj
    with identity.connect() as c:
        c.tables.sit_out(table)
    typer.echo("sitting out from the next hand")


@reported
def sit_in(
    ctx: typer.Context,
    table: TableId,
    post_big_blind: Annotated[
        bool, typer.Option(help="Post the big blind now instead of waiting for it.")
    ] = False,
) -> None:
    """Be dealt in again.

    Example: croupier --as alice sit-in T1
    """
    identity: Identity = ctx.obj
    with identity.connect() as c:
        c.tables.sit_in(table, post_big_blind=post_big_blind)
    typer.echo("sitting in")


@reported
def top_up(
    ctx: typer.Context,
    table: TableId,
    amount: Annotated[int, typer.Argument(help="Chips to add.", min=1)],
) -> None:
    """Add chips to your stack between hands.

    Example: croupier --as alice top-up T1 100
    """
    identity: Identity = ctx.obj
    with identity.connect() as c:
        answer = c.tables.top_up(table, amount)
    typer.echo(f"stack {answer.stack}")


@reported
def act(
    ctx: typer.Context,
    table: TableId,
    action: Annotated[str, typer.Argument(help=f"One of: {', '.join(ACTIONS)}.")],
    amount: Annotated[
        int, typer.Argument(help="bet/raise: the total your bet becomes.", min=0)
    ] = 0,
    cards: Annotated[str, typer.Option(help="discard/open-discard: cards, e.g. 2c,7d.")] = "",
    hand: Annotated[
        int, typer.Option(help="The hand the move is for (0: the current one).", min=0)
    ] = 0,
    json: Json = False,
) -> None:
    """Make your move (`croupier view` lists the legal ones and their amounts).

    Examples: croupier --as alice act T1 call;  croupier --as alice act T1 raise 6
    """
    if action not in ACTIONS:
        raise typer.BadParameter(
            f"no action {action!r}; one of {', '.join(ACTIONS)}", param_hint="ACTION"
        )
    identity: Identity = ctx.obj
    chosen = [c.strip() for c in cards.split(",") if c.strip()]
    with identity.connect() as c:
        answer = c.tables.act(table, poker_move(action, amount, chosen), hand_number=hand)
        after = c.tables.view(table)
    if json:
        print_json(after)
        return
    typer.echo(f"{action}{f' {amount}' if amount else ''}: done (table version {answer.version})")
    Console().print(view_renderable(after))


@reported
def watch(
    ctx: typer.Context,
    table: TableId,
    events: Annotated[
        int, typer.Option(help="Stop after this many events (0: until Ctrl-C).", min=0)
    ] = 0,
    until_hand_ends: Annotated[
        bool, typer.Option(help="Stop when the current (or next) hand ends.")
    ] = False,
    from_version: Annotated[
        int, typer.Option(help="Replay every event after this version.", min=0)
    ] = 0,
    json: Json = False,
) -> None:
    """Follow a table live, as you may see it (others' cards stay hidden until shown). A
    seated player's watch also adds their entropy to every hand's deck (docs/dealer.md).

    Example: croupier --as alice watch T1 --until-hand-ends
    """
    identity: Identity = ctx.obj
    console = Console()
    seen = 0
    names: dict[int, str] = {}
    with identity.connect() as c, c.tables.watch(table, from_version=from_version) as stream:
        entropy = EntropyContributor(c.tables)
        for item in stream:
            entropy.on_item(table, item)
            if isinstance(item, table_pb2.TableView):
                names.update({s.seat: s.player_id for s in item.seats if s.player_id})
                if json:
                    typer.echo(jsonlib.dumps({"view": to_json(item)}))
                else:
                    console.print(view_renderable(item))
                continue
            seen += 1
            if json:
                typer.echo(jsonlib.dumps({"event": to_json(item)}))
            else:
                typer.echo(event_line(item, names))
            if (events and seen >= events) or (
                until_hand_ends and item.WhichOneof("event") in ("hand_ended", "hand_voided")
            ):
                return
