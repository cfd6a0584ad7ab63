"""Video poker rounds served end to end: the real dealer, ledger and table services as their
own processes (bench_table's `Stack`, a private Redis), one player on a grpc.aio channel.

A round is the player's two Acts and what the table does after each: Deal (the bet moves to
the house through the ledger, the deal deck is opened, five cards dealt), then Hold (each
line's own draw deck opened and dealt, the lines settled, the win paid, every deck closed).
The player waits for the event that ends each step on its own WatchTable stream (HandDealt,
then RoundEnded), as a front end does, so the row is a closed loop of one machine: rounds/s
and the round's latency are what one player at one machine sees, and the CPU columns say
what a round costs each service.

`python -m bench.videopoker_served --rounds 40` prints the row; bench_videopoker includes it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
import uuid
from typing import Any

import grpc

from bench.bench_table import Client, Stack
from bench.percentiles import percentile
from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from croupier.table.v1 import table_pb2
from croupier.videopoker.v1 import videopoker_pb2 as vp
from services.shared import auth

# The account that banks a machine's wins (services/table/games/videopoker.py).
HOUSE = "house:rake:CHIP"
LINES, COINS, PAYTABLE = 10, 5, "jacks-9-6"
STEP_TIMEOUT_S = 60.0


async def _fund(stack: Stack, player: str | None, amount: int) -> None:
    """Open and fund a player's account, or (None) fund the house's bank."""
    bank = Client(stack.ports["ledger"], "bench", auth.Role.SERVICE)
    ledger = ledger_pb2_grpc.LedgerServiceStub(bank.channel)
    try:
        if player is not None:
            await ledger.OpenAccount(
                ledger_pb2.OpenAccountRequest(
                    kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name=player, currency="CHIP"
                ),
                metadata=bank.metadata,
            )
        account = HOUSE if player is None else f"player:{player}:CHIP"
        await ledger.Deposit(
            ledger_pb2.DepositRequest(
                idempotency_key=f"fund/{account}/{uuid.uuid4().hex}",
                account_id=account,
                amount=chips_pb2.ChipAmount(currency="CHIP", amount=amount),
            ),
            metadata=bank.metadata,
        )
    finally:
        await bank.channel.close()


class Events:
    """The player's WatchTable stream: waits for the next event of one kind."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    async def next_of(self, kind: str) -> None:
        async with asyncio.timeout(STEP_TIMEOUT_S):
            while True:
                message = await self.stream.read()
                if message is grpc.aio.EOF:
                    raise RuntimeError("the watch stream ended")
                for event in message.events.events:
                    if event.WhichOneof("event") != "videopoker":
                        continue
                    if event.videopoker.WhichOneof("event") == kind:
                        return


async def _play(stack: Stack, rounds: int) -> dict[str, Any]:
    table_id = f"vp{uuid.uuid4().hex[:12]}"
    player_name = f"{table_id}-player"
    stake = LINES * COINS
    await _fund(stack, player_name, 10 * stake * (rounds + 1) + 1_000_000)
    port = stack.table_port(0)
    admin = Client(port, "house", auth.Role.ADMIN)
    player = Client(port, player_name, auth.Role.PLAYER)
    try:
        await admin.table.CreateTable(
            table_pb2.CreateTableRequest(
                table_id=table_id,
                idempotency_key="create",
                options=table_pb2.TableOptions(
                    min_buy_in=stake,
                    max_buy_in=10**12,
                    videopoker=vp.VideoPokerOptions(paytables=[PAYTABLE]),
                ),
            ),
            metadata=admin.metadata,
        )
        # (the table opens the house's account; the house banks the machine's wins)
        await _fund(stack, None, 10**9)
        await player.table.JoinTable(
            table_pb2.JoinTableRequest(
                table_id=table_id,
                seat=0,
                buy_in=stake * (rounds + 1) * 10,
                idempotency_key="join",
            ),
            metadata=player.metadata,
        )
        stream = player.table.WatchTable(
            table_pb2.WatchTableRequest(table_id=table_id, batch=True),
            metadata=player.metadata,
        )
        events = Events(stream)
        rng = random.Random(7)
        latencies: list[float] = []
        cpu_before, started = stack.cpu(), time.perf_counter()
        for number in range(1, rounds + 1):
            began = time.perf_counter()
            deal = vp.VideoPokerMove(deal=vp.Deal(lines=LINES, coins=COINS, paytable=PAYTABLE))
            await player.table.Act(
                table_pb2.ActRequest(
                    table_id=table_id, idempotency_key=f"deal-{number}", videopoker=deal
                ),
                metadata=player.metadata,
            )
            await events.next_of("hand_dealt")
            held = [p for p in range(5) if rng.random() < 0.4]
            hold = vp.VideoPokerMove(hold=vp.Hold(positions=held))
            await player.table.Act(
                table_pb2.ActRequest(
                    table_id=table_id, idempotency_key=f"hold-{number}", videopoker=hold
                ),
                metadata=player.metadata,
            )
            await events.next_of("round_ended")
            latencies.append((time.perf_counter() - began) * 1000)
        seconds = time.perf_counter() - started
        cpu_after = stack.cpu()
        stream.cancel()
    finally:
        await admin.channel.close()
        await player.channel.close()
    cpu_ms = {
        role: round((cpu_after[role] - cpu_before.get(role, 0.0)) * 1000 / rounds, 2)
        for role in cpu_after
    }
    return {
        "variant": f"rounds through gRPC, {LINES} lines x {COINS} coins, one player",
        "rounds": rounds,
        "rounds_per_s": round(rounds / seconds, 2),
        "round_ms_p50": round(percentile(latencies, 0.5), 1),
        "round_ms_p99": round(percentile(latencies, 0.99), 1),
        **{f"{role}_cpu_ms_per_round": value for role, value in sorted(cpu_ms.items())},
        "load_1m": round(os.getloadavg()[0], 1),
    }


def served_rounds_row(rounds: int) -> dict[str, Any]:
    """The row: `rounds` rounds on a fresh stack (started and stopped here)."""
    stack = Stack(1)
    try:
        return asyncio.run(_play(stack, rounds))
    finally:
        stack.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    print(json.dumps(served_rounds_row(parser.parse_args().rounds), indent=2))


if __name__ == "__main__":
    main()
