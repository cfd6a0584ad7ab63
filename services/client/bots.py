"""`croupier bots run TABLE`: built-in bot policies playing from this terminal through the
bot SDK (their own bot identities, funded by the development cashier), until Ctrl-C.

Bots asked for at `table create --bots` are seated by the platform's workers instead; this
is for playing your own table against bots you run yourself, or trying a policy."""

from __future__ import annotations

import random
import threading
from dataclasses import replace
from typing import Annotated

import typer

from croupier.table.v1 import table_pb2
from services.bots.policies import NAMES, Policy, make_policy
from services.bots.ranker import default_ranker
from services.bots.sdk import BotClient
from services.bots.view import BotAction, BotView
from services.client.identity import Identity
from services.client.reporting import reported
from services.sdk import player_account
from services.shared import auth

app = typer.Typer(name="bots", help="Run bots from this terminal.", no_args_is_help=True)


@app.command("run")
@reported
def run_bots(
    ctx: typer.Context,
    table: Annotated[str, typer.Argument(help="Table id.")],
    policy: Annotated[str, typer.Option(help=f"One of: {', '.join(NAMES)}.")] = "tight",
    count: Annotated[int, typer.Option(help="How many bots to seat.", min=1, max=9)] = 1,
    buy_in: Annotated[int, typer.Option(help="Each bot's buy-in (0: 100 big blinds).", min=0)] = 0,
    difficulty: Annotated[
        float, typer.Option(help="0..1: how hard the equity bot thinks.", min=0, max=1)
    ] = 0.5,
    hands: Annotated[
        int, typer.Option(help="Stop after this many hands (0: until Ctrl-C).", min=0)
    ] = 0,
) -> None:
    """Seat bots at TABLE and play until Ctrl-C (or --hands); they leave when stopped.

    Example: croupier bots run T1 --policy equity --count 2
    """
    if policy not in NAMES:
        raise typer.BadParameter(
            f"no bot policy {policy!r}; one of {', '.join(NAMES)}", param_hint="--policy"
        )
    base: Identity = ctx.obj
    ranker = default_ranker()
    stop = threading.Event()
    clients: list[BotClient] = []
    threads: list[threading.Thread] = []
    start_hand = 0
    errors: list[BaseException] = []
    bots: list[tuple[_Bot, Identity]] = []
    for index in range(count):
        name = f"{policy}-{table}-{index}-{random.randrange(16**6):06x}"
        identity = replace(base, player=name, token="")
        settings = identity.settings(auth.Role.BOT)
        with identity.connect(auth.Role.BOT) as c:
            options = c.tables.view(table).options
            unit = options.poker.big_blind or options.poker.ante * 2 or 1
            chips = buy_in or max(
                options.min_buy_in, min(options.max_buy_in or 100 * unit, 100 * unit)
            )
            c.ledger.open_account(name)
            c.ledger.deposit(player_account(name), chips)
            seat = c.tables.join(table, buy_in=chips).seat
            start_hand = c.tables.view(table).hand_number
        typer.echo(f"{name} ({policy}) sits at seat {seat} with {chips}")
        bot = _Bot(BotClient(settings, name=name), make_policy(policy, ranker, difficulty), index)
        clients.append(bot.client)
        bots.append((bot, identity))

        def play(bot: _Bot = bot) -> None:
            try:
                bot.client.play(table, bot.decide, stop=stop)
            except BaseException as exc:
                errors.append(exc)
                stop.set()

        thread = threading.Thread(target=play, daemon=True)
        thread.start()
        threads.append(thread)
    typer.echo("playing; Ctrl-C to stop")
    try:
        with bots[0][1].connect(auth.Role.BOT) as c:
            while not stop.wait(0.5):
                if hands and c.tables.view(table).hand_number >= start_hand + hands:
                    break
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        for thread in threads:
            thread.join(5)
    decisions = sum(c.decisions for c in clients)
    for client in clients:
        client.close()
    for _, identity in bots:  # their stacks go back to their accounts
        with identity.connect(auth.Role.BOT) as c:
            c.tables.leave(table)
    if errors:
        raise errors[0]
    typer.echo(f"stopped: {decisions} decisions")


class _Bot:
    """One SDK bot: its client and its policy's choice for each decision."""

    def __init__(self, client: BotClient, policy: Policy, seed: int) -> None:
        self.client = client
        self._policy = policy
        self._rng = random.Random(seed)

    def decide(self, view: BotView, _table: table_pb2.TableView) -> BotAction:
        return self._policy.choose(view, self._rng)
