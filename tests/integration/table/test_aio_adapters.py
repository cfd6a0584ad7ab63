"""The table's asyncio dealer and ledger adapters against the real services: the same
requests as the sync adapters (a step sent by one is found again by the other under its key),
a cancelled call whose retry finds the first attempt's effect, two calls in flight at once,
and a dependency that goes away mid-hand answering Unavailable (the step is retried)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import uuid
from collections.abc import Iterator

import grpc
import pytest

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2
from services.dealer.server import build as build_dealer
from services.dealer.settings import DealerSettings
from services.shared import auth, errors
from services.shared.channels import connect
from services.shared.grpc_server import create_server
from services.shared.settings import RuntimeSettings
from services.table.adapters import GrpcDealer, GrpcLedger
from services.table.aio_adapters import AioGrpcDealer, AioGrpcLedger
from tests.integration.ledger.conftest import KEY, LedgerServer, balance, start_ledger

pytestmark = pytest.mark.integration


def token() -> str:
    return auth.issue_token(KEY, "table", auth.Role.SERVICE, 600)


@pytest.fixture
def dealer_server(redis_url: str) -> Iterator[tuple[grpc.Server, int]]:
    runtime = RuntimeSettings(service_name="dealer", address="127.0.0.1:0", auth_key=KEY)
    settings = DealerSettings(
        runtime=runtime, redis_url=redis_url, dealer_key=secrets.token_bytes(32)
    )
    server, port = create_server(build_dealer(settings), runtime)
    yield server, port
    server.stop(0).wait()


@pytest.fixture
def ledger_server(redis_url: str, key_prefix: str) -> Iterator[LedgerServer]:
    server, handle = start_ledger(redis_url, key_prefix)
    yield handle
    for channel in handle.channels:
        channel.close()
    server.stop(0).wait()
    handle.client.close()


def shuffle_id() -> str:
    return f"t{uuid.uuid4().hex[:10]}.hand-1"


def test_the_asyncio_dealer_sends_the_sync_adapter_s_requests(
    dealer_server: tuple[grpc.Server, int],
) -> None:
    _, port = dealer_server
    sync = GrpcDealer(connect(f"127.0.0.1:{port}"), token=token)
    shuffle = shuffle_id()

    async def scenario() -> None:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            dealer = AioGrpcDealer(channel, token=token)
            opened = await dealer.open_shuffle(shuffle)
            assert sync.open_shuffle(shuffle) == opened  # found again, not a second shuffle
            hole = await dealer.deal(shuffle, 4, f"{shuffle}/deal/1", "hole")
            # The same step through the other adapter: the same cards, none dealt twice.
            assert sync.deal(shuffle, 4, f"{shuffle}/deal/1", "hole") == hole
            flop = await dealer.deal(shuffle, 3, f"{shuffle}/deal/2", "board", burn=1)
            assert len(flop) == 4 and not set(flop) & set(hole)
            nxt = shuffle.replace("hand-1", "hand-2")
            # Two independent calls in flight on one channel at once.
            announced, reveal = await asyncio.gather(
                dealer.open_shuffle(nxt), dealer.close(shuffle, "hand ended")
            )
            assert json.loads(reveal)["commitment_hex"] == opened.commitment
            assert sync.open_shuffle(nxt) == announced
            assert sync.close(shuffle, "hand ended") == reveal  # closing again: the same reveal

    asyncio.run(scenario())


def test_a_cancelled_deal_is_retried_under_its_key_and_no_card_is_lost_or_doubled(
    dealer_server: tuple[grpc.Server, int],
) -> None:
    _, port = dealer_server
    shuffle = shuffle_id()

    async def scenario() -> None:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            dealer = AioGrpcDealer(channel, token=token)
            await dealer.open_shuffle(shuffle)
            dealt: list[str] = []
            for step in range(6):
                key = f"{shuffle}/deal/{step}"
                task = asyncio.create_task(dealer.deal(shuffle, 2, key, "hole"))
                for _ in range(step):  # cancelled at a different point each time
                    await asyncio.sleep(0)
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
                cards = await dealer.deal(shuffle, 2, key, "hole")
                assert await dealer.deal(shuffle, 2, key, "hole") == cards
                dealt += cards
            assert len(set(dealt)) == len(dealt) == 12

    asyncio.run(scenario())


def test_a_dealer_that_goes_away_mid_hand_answers_unavailable(
    dealer_server: tuple[grpc.Server, int],
) -> None:
    server, port = dealer_server
    shuffle = shuffle_id()

    async def scenario() -> None:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            dealer = AioGrpcDealer(channel, token=token)
            await dealer.open_shuffle(shuffle)
            await dealer.deal(shuffle, 2, f"{shuffle}/deal/1", "hole")
            server.stop(0).wait()
            with pytest.raises(errors.Unavailable, match="dealer Deal failed"):
                await dealer.deal(shuffle, 3, f"{shuffle}/deal/2", "board")

    asyncio.run(scenario())


def test_the_asyncio_ledger_moves_chips_once_per_key(ledger_server: LedgerServer) -> None:
    stub = ledger_server.stub()
    table_id = f"t{uuid.uuid4().hex[:10]}"
    player = f"p{uuid.uuid4().hex[:8]}"
    stub.OpenAccount(
        ledger_pb2.OpenAccountRequest(
            kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name=player, currency="CHIP"
        )
    )
    account = f"player:{player}:CHIP"
    stub.Deposit(
        ledger_pb2.DepositRequest(
            idempotency_key=f"fund-{player}",
            account_id=account,
            amount=chips_pb2.ChipAmount(currency="CHIP", amount=1000),
        )
    )
    sync = GrpcLedger(connect(f"127.0.0.1:{ledger_server.port}"), token=token)

    async def scenario() -> None:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{ledger_server.port}") as channel:
            ledger = AioGrpcLedger(channel, token=token)
            assert ledger.player_account(player, "CHIP") == account
            await ledger.ensure_accounts(table_id, "CHIP")
            await ledger.ensure_accounts(table_id, "CHIP")  # idempotent
            key = f"{table_id}/join/{player}/k"
            hold = await ledger.reserve_buy_in(key, table_id, account, 400, "CHIP")
            assert hold.status == "pending"
            # The sync adapter's retry of the same Reserve finds the same hold.
            assert sync.reserve_buy_in(key, table_id, account, 400, "CHIP") == hold
            await asyncio.gather(
                ledger.post(f"{key}/post", hold.reservation_id, table_id),
                ledger.post(f"{key}/post", hold.reservation_id, table_id),
            )
            await ledger.pay_out(f"{table_id}/out/1", table_id, account, 150, "CHIP", "cash-out")
            await ledger.pay_out(f"{table_id}/out/1", table_id, account, 150, "CHIP", "cash-out")
            await ledger.rake(f"{table_id}/1/settle", table_id, 1, 10, "CHIP")

    asyncio.run(scenario())
    assert balance(stub, account).available == 1000 - 400 + 150
    assert balance(stub, f"table:{table_id}:CHIP").available == 400 - 150 - 10


def test_the_asyncio_adapters_have_every_call_of_the_sync_ones() -> None:
    for sync, aio in ((GrpcDealer, AioGrpcDealer), (GrpcLedger, AioGrpcLedger)):
        calls = {name for name in vars(sync) if not name.startswith("_")}
        assert calls <= set(dir(aio)), calls - set(dir(aio))
