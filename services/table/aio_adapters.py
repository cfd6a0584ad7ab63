"""The table's dealer and ledger ports for asyncio callers, over grpc.aio channels.

The same requests, idempotency keys and error mapping as `adapters.GrpcDealer` and
`adapters.GrpcLedger` (each request is built by the same function), awaited: a call holds no
thread while it waits, so one event loop can have every table's dependency calls in flight
at once. A grpc.aio failure becomes the same domain error (UNAVAILABLE stays Unavailable, so
the step is retried); a cancelled caller cancels its RPC, and because every mutating request
carries its step's deterministic key, the retry of a step whose reply was lost finds the
first attempt's effect (the same cards, the same ledger entry) instead of repeating it.

`advance` sends several shuffle commands (a hand's boundary: close, seal, create, deal) as one
AdvanceShuffles request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any, Protocol, TypeVar

import grpc

from croupier.dealer.v1 import dealer_pb2_grpc
from croupier.ledger.v1 import ledger_pb2_grpc
from services.games.cardtext import Card
from services.games.contract import DealPurpose, DeckSpec
from services.shared.status import error_from_status
from services.table import adapters
from services.table.adapters import CALL_TIMEOUT_S, TestDecks, TokenSource
from services.table.ports import STANDARD_DECK, BuyInHold, Commitment, ShuffleCall

T = TypeVar("T")


async def call(what: str, rpc: Awaitable[T]) -> T:
    """Await one RPC, turning its failure into a domain error that says which call failed."""
    try:
        return await rpc
    except grpc.aio.AioRpcError as exc:
        raise error_from_status(exc.code(), f"{what} failed: {exc.details()}") from exc


class AsyncDealerPort(Protocol):
    """`ports.DealerPort`, awaited (each method's rules are the sync port's)."""

    async def open_shuffle(
        self, shuffle_id: str, deck_spec: DeckSpec = STANDARD_DECK
    ) -> Commitment: ...

    async def contribute(self, shuffle_id: str, contributor: str, commitment: bytes) -> int: ...

    async def seal(self, shuffle_id: str) -> tuple[str, ...]: ...

    async def reveal(self, shuffle_id: str, contributor: str, entropy: bytes) -> int: ...

    async def deal(
        self,
        shuffle_id: str,
        count: int,
        step: str,
        purpose: DealPurpose,
        burn: int = 0,
        position: int | None = None,
    ) -> tuple[Card, ...]: ...

    async def reshuffle(
        self,
        shuffle_id: str,
        cards: Sequence[Card],
        step: str,
        needed: int,
        position: int | None = None,
    ) -> None: ...

    async def close(self, shuffle_id: str, reason: str) -> str: ...

    async def advance(self, calls: Sequence[ShuffleCall]) -> tuple[Any, ...]: ...


class AsyncLedgerPort(Protocol):
    """`ports.LedgerPort`, awaited."""

    async def ensure_accounts(self, table_id: str, currency: str) -> None: ...

    def player_account(self, player: str, currency: str) -> str: ...

    async def reserve_buy_in(
        self, key: str, table_id: str, account: str, amount: int, currency: str
    ) -> BuyInHold: ...

    async def post(self, key: str, reservation_id: str, table_id: str) -> None: ...

    async def void(self, key: str, reservation_id: str, reason: str) -> None: ...

    async def pay_out(
        self, key: str, table_id: str, account: str, amount: int, currency: str, reason: str
    ) -> None: ...

    async def rake(
        self, key: str, table_id: str, hand: int, amount: int, currency: str
    ) -> None: ...

    async def from_house(
        self, key: str, table_id: str, hand: int, amount: int, currency: str
    ) -> None: ...


class AioGrpcDealer:
    """AsyncDealerPort over croupier.dealer.v1.DealerService on a grpc.aio channel."""

    def __init__(
        self,
        channel: grpc.aio.Channel,
        test_decks: TestDecks | None = None,
        token: TokenSource | None = None,
    ) -> None:
        self._stub = dealer_pb2_grpc.DealerServiceStub(channel)
        self._test_decks = test_decks
        self._token = token

    def _metadata(self) -> adapters.Metadata:
        return adapters.call_metadata(self._token)

    async def open_shuffle(
        self, shuffle_id: str, deck_spec: DeckSpec = STANDARD_DECK
    ) -> Commitment:
        order = self._test_decks(shuffle_id) if self._test_decks else None
        request = adapters.create_shuffle_request(shuffle_id, order, deck_spec)
        created = await call(
            "dealer CreateShuffle",
            self._stub.CreateShuffle(request, timeout=CALL_TIMEOUT_S, metadata=self._metadata()),
        )
        return Commitment(
            shuffle_id, created.shuffle.commitment.hex(), created.shuffle.positions_root.hex()
        )

    async def contribute(self, shuffle_id: str, contributor: str, commitment: bytes) -> int:
        request = adapters.contribute_request(shuffle_id, contributor, commitment)
        response = await call(
            "dealer Contribute",
            self._stub.Contribute(request, timeout=CALL_TIMEOUT_S, metadata=self._metadata()),
        )
        return int(response.index)

    async def seal(self, shuffle_id: str) -> tuple[str, ...]:
        request = adapters.seal_request(shuffle_id)
        response = await call(
            "dealer Seal",
            self._stub.Seal(request, timeout=CALL_TIMEOUT_S, metadata=self._metadata()),
        )
        return adapters.committers(response)

    async def reveal(self, shuffle_id: str, contributor: str, entropy: bytes) -> int:
        request = adapters.reveal_request(shuffle_id, contributor, entropy)
        response = await call(
            "dealer RevealEntropy",
            self._stub.RevealEntropy(request, timeout=CALL_TIMEOUT_S, metadata=self._metadata()),
        )
        return int(response.index)

    async def deal(
        self,
        shuffle_id: str,
        count: int,
        step: str,
        purpose: DealPurpose,
        burn: int = 0,
        position: int | None = None,
    ) -> tuple[Card, ...]:
        request = adapters.deal_request(shuffle_id, count, step, purpose, burn, position)
        response = await call(
            "dealer Deal",
            self._stub.Deal(request, timeout=CALL_TIMEOUT_S, metadata=self._metadata()),
        )
        return adapters.dealt_cards(response, step, count, burn)

    async def reshuffle(
        self,
        shuffle_id: str,
        cards: Sequence[Card],
        step: str,
        needed: int,
        position: int | None = None,
    ) -> None:
        request = adapters.reshuffle_request(shuffle_id, cards, step, needed, position)
        await call(
            "dealer Reshuffle",
            self._stub.Reshuffle(request, timeout=CALL_TIMEOUT_S, metadata=self._metadata()),
        )

    async def close(self, shuffle_id: str, reason: str) -> str:
        request = adapters.close_request(shuffle_id, reason)
        response = await call(
            "dealer Close",
            self._stub.Close(request, timeout=CALL_TIMEOUT_S, metadata=self._metadata()),
        )
        return adapters.reveal_json(response)

    async def advance(self, calls: Sequence[ShuffleCall]) -> tuple[Any, ...]:
        request = adapters.advance_request(calls, self._test_decks)
        response = await call(
            "dealer AdvanceShuffles",
            self._stub.AdvanceShuffles(request, timeout=CALL_TIMEOUT_S, metadata=self._metadata()),
        )
        return adapters.advance_answers(calls, response)


class AioGrpcLedger:
    """AsyncLedgerPort over croupier.ledger.v1.LedgerService on a grpc.aio channel."""

    def __init__(self, channel: grpc.aio.Channel, token: TokenSource | None = None) -> None:
        self._stub = ledger_pb2_grpc.LedgerServiceStub(channel)
        self._token = token

    def _metadata(self) -> adapters.Metadata:
        return adapters.call_metadata(self._token)

    table_account = staticmethod(adapters.table_account)
    house_account = staticmethod(adapters.house_account)

    def player_account(self, player: str, currency: str) -> str:
        return adapters.player_account(player, currency)

    async def ensure_accounts(self, table_id: str, currency: str) -> None:
        for request in adapters.table_account_requests(table_id, currency):
            await call(
                "ledger OpenAccount",
                self._stub.OpenAccount(request, timeout=CALL_TIMEOUT_S, metadata=self._metadata()),
            )

    async def reserve_buy_in(
        self, key: str, table_id: str, account: str, amount: int, currency: str
    ) -> BuyInHold:
        request = adapters.reserve_request(key, table_id, account, amount, currency)
        response = await call(
            "ledger Reserve",
            self._stub.Reserve(request, timeout=CALL_TIMEOUT_S, metadata=self._metadata()),
        )
        return adapters.buy_in_hold(response)

    async def post(self, key: str, reservation_id: str, table_id: str) -> None:
        request = adapters.post_request(key, reservation_id, table_id)
        await call(
            "ledger Post",
            self._stub.Post(request, timeout=CALL_TIMEOUT_S, metadata=self._metadata()),
        )

    async def void(self, key: str, reservation_id: str, reason: str) -> None:
        request = adapters.void_request(key, reservation_id, reason)
        await call(
            "ledger Void",
            self._stub.Void(request, timeout=CALL_TIMEOUT_S, metadata=self._metadata()),
        )

    async def pay_out(
        self, key: str, table_id: str, account: str, amount: int, currency: str, reason: str
    ) -> None:
        request = adapters.pay_out_request(key, table_id, account, amount, currency, reason)
        await call(
            "ledger Transfer",
            self._stub.Transfer(request, timeout=CALL_TIMEOUT_S, metadata=self._metadata()),
        )

    async def rake(self, key: str, table_id: str, hand: int, amount: int, currency: str) -> None:
        request = adapters.rake_request(key, table_id, hand, amount, currency)
        await call(
            "ledger Transfer",
            self._stub.Transfer(request, timeout=CALL_TIMEOUT_S, metadata=self._metadata()),
        )

    async def from_house(
        self, key: str, table_id: str, hand: int, amount: int, currency: str
    ) -> None:
        request = adapters.from_house_request(key, table_id, hand, amount, currency)
        await call(
            "ledger Transfer",
            self._stub.Transfer(request, timeout=CALL_TIMEOUT_S, metadata=self._metadata()),
        )
