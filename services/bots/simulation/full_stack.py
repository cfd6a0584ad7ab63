"""Full-stack simulation: built-in bots play a real table through the running platform.

The table service, dealer, ledger and at least one worker must be running (`croupier run`).
The simulator creates one table, funds every bot's ledger account, seats the bots with `bot`
tokens and then only watches: every decision is a Celery task that plays the bot through
GetTableView -> policy -> Act. Per-hand results come from the `HandEnded` events' stacks. At
the end every bot leaves; the ledger must then show the table's escrow account empty and the
bots' accounts holding every chip they brought (no rake at this table). Stacks are deep
(`stack_units` big blinds) and not reset between hands: a bot that busts buys back in (TopUp,
from a bankroll of `BANKROLL_BUY_INS` buy-ins deposited up front), so the table never stops for
want of players, and the chips a top-up adds are not counted as winnings.
"""

from __future__ import annotations

import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.bots.identity import bot_id
from services.bots.simulation.deals import seating
from services.bots.simulation.engine_runner import SimulationReport, SimulationSpec
from services.bots.simulation.presets import preset
from services.bots.simulation.stats import summarize
from services.shared import auth
from services.shared.channels import connect

GAMES = {
    "texas-holdem": table_pb2.GAME_TEXAS_HOLDEM,
    "holdem-hilo": table_pb2.GAME_HOLDEM_HILO,
    "spit-in-the-ocean": table_pb2.GAME_SPIT_IN_THE_OCEAN,
    "six-card-open-draw": table_pb2.GAME_SIX_CARD_OPEN_DRAW,
}
STRUCTURES = {
    "no-limit": table_pb2.STRUCTURE_NO_LIMIT,
    "pot-limit": table_pb2.STRUCTURE_POT_LIMIT,
    "fixed-limit": table_pb2.STRUCTURE_FIXED_LIMIT,
}
CURRENCY = "CHIP"
BANKROLL_BUY_INS = 100  # deposited per bot: enough to buy back in after every bust


@dataclass(frozen=True, slots=True)
class Platform:
    table_target: str
    ledger_target: str
    auth_key: str | auth.Credentials


def run_full_stack(
    spec: SimulationSpec,
    platform: Platform,
    progress: Callable[[int], None] | None = None,
    timeout: float = 3600.0,
) -> SimulationReport:
    if spec.duplicate:
        raise ValueError("--duplicate needs pinned decks: use it with --engine-only")
    chosen = preset(spec.game)
    admin = _table_stub(platform, "simulate", auth.Role.ADMIN)
    ledger = ledger_pb2_grpc.LedgerServiceStub(
        connect(
            platform.ledger_target,
            auth.issue_token(platform.auth_key, "simulate", auth.Role.SERVICE, 7200),
        )
    )
    stack = spec.stack_units * chosen.unit
    config = chosen.config(spec.seats, 0, spec.stack_units)
    options = table_pb2.TableOptions(
        game=GAMES[config.game.name],
        structure=STRUCTURES[config.limit.value],
        seats=spec.seats,
        currency=CURRENCY,
        small_blind=config.small_blind if chosen.blinds else 0,
        big_blind=config.big_blind if chosen.blinds else 0,
        ante=config.ante,
        small_bet=config.small_bet,
        min_buy_in=stack,
        max_buy_in=stack,
        action_time_ms=30_000,  # a stalled bot is timed out rather than hanging the run
    )
    run_id = uuid.uuid4().hex[:8]
    created = admin.CreateTable(
        table_pb2.CreateTableRequest(options=options, idempotency_key=f"simulate-{run_id}")
    )
    table_id = created.table_id
    # The stream ends at `timeout`: a table that stalls cannot hang the run.
    watch = admin.WatchTable(
        table_pb2.WatchTableRequest(table_id=table_id, batch=True), timeout=timeout
    )
    seated = seating(spec.bots, spec.seats)
    players: dict[str, table_pb2_grpc.TableServiceStub] = {}
    deposited = BANKROLL_BUY_INS * stack
    for seat, policy in enumerate(seated):
        player = bot_id(policy, f"sim{run_id}s{seat}", spec.difficulty)
        _fund(ledger, player, deposited, run_id)
        players[player] = _table_stub(platform, player, auth.Role.BOT)
        players[player].JoinTable(
            table_pb2.JoinTableRequest(
                table_id=table_id, seat=seat, buy_in=stack, idempotency_key=f"join-{run_id}"
            )
        )
    started = time.perf_counter()
    watched = _watch_hands(watch, table_id, spec.hands, list(players.values()), stack, progress)
    deltas = watched.deltas
    seconds = time.perf_counter() - started
    # Everyone leaves (after the hand in progress): the table stops and the chips go home.
    for stub in players.values():
        stub.LeaveTable(
            table_pb2.LeaveTableRequest(table_id=table_id, idempotency_key=f"leave-{run_id}")
        )
    _wait_until_empty(admin, table_id, timeout=120)
    samples: dict[str, list[float]] = defaultdict(list)
    net: dict[str, int] = defaultdict(int)
    for hand in deltas:
        for seat, delta in enumerate(hand):
            samples[seated[seat]].append(delta)
            net[seated[seat]] += delta
    results = [
        summarize(bot, samples[bot], len(samples[bot]), net[bot], chosen.unit)
        for bot in dict.fromkeys(seated)
    ]
    # Cash-outs reach the ledger as a process step after the seats empty: give them time.
    escrow_account = f"table:{table_id}:{CURRENCY}"
    settle_by = time.monotonic() + 30
    while (escrow := _balance(ledger, escrow_account)) != 0 and time.monotonic() < settle_by:
        time.sleep(0.1)
    returned = sum(_balance(ledger, f"player:{player}:{CURRENCY}") for player in players)
    # Ledger check: the table's escrow is empty and the bots' accounts hold every chip
    # deposited for them (no rake at this table), and the hands counted are zero-sum.
    conserved = escrow == 0 and returned == deposited * spec.seats and sum(net.values()) == 0
    return SimulationReport(
        spec=spec,
        results=results,
        hands=len(deltas),
        decisions=watched.decisions,
        seconds=seconds,
        conserved=conserved,
        mode=f"full-stack, table {table_id}",
        timed_out=watched.timed_out,
    )


def _balance(ledger: ledger_pb2_grpc.LedgerServiceStub, account: str) -> int:
    response = ledger.GetBalance(ledger_pb2.GetBalanceRequest(account_id=account))
    return int(response.balance.balance)


def _wait_until_empty(
    admin: table_pb2_grpc.TableServiceStub, table_id: str, timeout: float
) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        view = admin.GetTableView(table_pb2.GetTableViewRequest(table_id=table_id)).view
        if not any(seat.player_id for seat in view.seats):
            return
        time.sleep(0.1)
    raise TimeoutError(f"the bots did not leave table {table_id} within {timeout:.0f} s")


def _table_stub(
    platform: Platform, subject: str, role: auth.Role
) -> table_pb2_grpc.TableServiceStub:
    token = auth.issue_token(platform.auth_key, subject, role, 7200)
    return table_pb2_grpc.TableServiceStub(connect(platform.table_target, token))


def _fund(ledger: ledger_pb2_grpc.LedgerServiceStub, player: str, amount: int, run: str) -> None:
    try:
        ledger.OpenAccount(
            ledger_pb2.OpenAccountRequest(
                kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name=player, currency=CURRENCY
            )
        )
    except grpc.RpcError as exc:
        if not isinstance(exc, grpc.Call) or exc.code() is not grpc.StatusCode.ALREADY_EXISTS:
            raise
    ledger.Deposit(
        ledger_pb2.DepositRequest(
            idempotency_key=f"simulate/{run}/{player}",
            account_id=f"player:{player}:{CURRENCY}",
            amount=chips_pb2.ChipAmount(currency=CURRENCY, amount=amount),
        )
    )


@dataclass(frozen=True)
class _Watched:
    deltas: list[list[int]]  # per hand, per seat
    decisions: int
    timed_out: int


def _watch_hands(
    watch: Any,  # the WatchTable response stream
    table_id: str,
    hands: int,
    bots: list[table_pb2_grpc.TableServiceStub],  # each seat's own stub, by seat
    stack: int,
    progress: Callable[[int], None] | None,
) -> _Watched:
    """Per-hand chip results per seat, from the `HandEnded` events' stacks, and the
    decisions the table asked for (`ActionRequested`) and the ones nobody made in time
    (`TimedOut`: the workers' bots should make every one).

    A seat left with nothing after a hand buys back in (it sits out of the next hand, so it
    may); the `ChipsAdded` event, in stream order, moves its starting point, so a top-up is
    never counted as winnings. Stops at `hands` hands, or early when the stream's deadline
    (`run_full_stack`'s `timeout`) ends it: a stalled table reports the hands it did play.
    """
    before = [stack] * len(bots)
    results: list[list[int]] = []
    decisions = timed_out = 0
    # Seats whose top-up the stream has not shown yet: a quick next hand can end (stack still
    # 0) before the ChipsAdded lands, and a second top-up would then exceed the max buy-in.
    topping: set[int] = set()
    try:
        for event in (event for message in watch for event in message.events.events):
            kind = event.WhichOneof("event")
            if kind == "action_requested":
                decisions += 1
                continue
            if kind == "timed_out":
                timed_out += 1
                continue
            if kind == "chips_added":
                added = event.chips_added
                before[added.seat] += added.amount
                topping.discard(added.seat)
                continue
            if kind != "hand_ended":
                continue
            ended = event.hand_ended
            after = list(before)
            for entry in ended.stacks:
                after[entry.seat] = entry.amount
            results.append([a - b for a, b in zip(after, before, strict=True)])
            before = after
            if progress is not None:
                progress(1)
            if len(results) >= hands:
                break
            for entry in ended.stacks:
                if entry.amount == 0 and entry.seat not in topping:
                    _top_up(bots[entry.seat], table_id, ended.hand, stack)
                    topping.add(entry.seat)
    except grpc.RpcError as exc:
        if not isinstance(exc, grpc.Call) or exc.code() is not grpc.StatusCode.DEADLINE_EXCEEDED:
            raise
    finally:
        watch.cancel()
    return _Watched(results, decisions, timed_out)


def _top_up(bot: table_pb2_grpc.TableServiceStub, table_id: str, hand: int, stack: int) -> None:
    try:
        bot.TopUp(
            table_pb2.TopUpRequest(
                table_id=table_id, amount=stack, idempotency_key=f"simulate-topup-{hand}"
            )
        )
    except grpc.RpcError as exc:
        # Refused when the seat is in the next hand after all, or already gone: not busted.
        if not isinstance(exc, grpc.Call) or exc.code() is not grpc.StatusCode.FAILED_PRECONDITION:
            raise
