"""gRPC adapters of the table's ports: the dealer and the ledger services.

Each call translates port arguments into one request, with the port's deterministic
idempotency key, and a gRPC failure into a domain error (UNAVAILABLE stays Unavailable, so
the caller may retry the step; anything else means the step cannot be done as asked). The
requests are built by the functions below, shared with the asyncio adapters
(aio_adapters.py), so both send exactly the same ones.

Given a `token` source, an adapter sends it as each call's bearer metadata itself, on a plain
channel: a client interceptor (`channels.connect(target, token)`) costs ~60 us of CPU per call
(grpc's interceptor wrapping, measured in docs/table.md), and the table calls the dealer
about once a street. Without one, the channel must carry the token (an intercepted channel).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar

import grpc
from google.protobuf.json_format import MessageToDict

from croupier.common.v1 import chips_pb2
from croupier.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from services.games.cardtext import Card
from services.games.contract import DealPurpose, DeckSpec
from services.shared import auth, errors
from services.shared.status import error_from_status
from services.table.ports import STANDARD_DECK, BuyInHold, Commitment, ShuffleCall

# Where a service's bearer token comes from (a renewing source, see channels.py).
TokenSource = Callable[[], str]
Metadata = tuple[tuple[str, str], ...] | None

T = TypeVar("T")

# Call deadline for one dependency request, in seconds.
CALL_TIMEOUT_S = 10.0


def call(what: str, rpc: Callable[[], T]) -> T:
    """Run one RPC, turning its failure into a domain error that says which call failed."""
    try:
        return rpc()
    except grpc.RpcError as exc:
        code = exc.code() if hasattr(exc, "code") else grpc.StatusCode.UNKNOWN
        detail = exc.details() if hasattr(exc, "details") else str(exc)
        raise error_from_status(code, f"{what} failed: {detail}") from exc


_PURPOSES: dict[DealPurpose, dealer_pb2.DealPurpose.ValueType] = {
    "hole": dealer_pb2.DEAL_PURPOSE_HOLE,
    "burn": dealer_pb2.DEAL_PURPOSE_BURN,
    "board": dealer_pb2.DEAL_PURPOSE_BOARD,
    "draw": dealer_pb2.DEAL_PURPOSE_DRAW,
    "spit": dealer_pb2.DEAL_PURPOSE_SPIT,
    "up": dealer_pb2.DEAL_PURPOSE_UP,
    "down": dealer_pb2.DEAL_PURPOSE_DOWN,
}

# Test decks: shuffle id -> the exact dealing order, or None for a real (seeded) shuffle.
TestDecks = Callable[[str], Sequence[Card] | None]


def call_metadata(token: TokenSource | None) -> Metadata:
    """The call metadata carrying the current token (None: the channel adds it)."""
    return None if token is None else auth.bearer_metadata(token())


_metadata = call_metadata


# --- the dealer's requests and answers ------------------------------------------------------


def create_shuffle_request(
    shuffle_id: str, order: Sequence[Card] | None, deck_spec: DeckSpec = STANDARD_DECK
) -> dealer_pb2.CreateShuffleRequest:
    return dealer_pb2.CreateShuffleRequest(
        shuffle_id=shuffle_id, deck=_deck(deck_spec), test_deck_order=list(order or ())
    )


def _deck(spec: DeckSpec) -> dealer_pb2.DeckSpec:
    """The dealer's deck spec for a game's: standard decks, or exactly the listed cards (a
    multiset when a card repeats)."""
    if not spec.cards:
        return dealer_pb2.DeckSpec(kind=dealer_pb2.DECK_KIND_STANDARD, copies=spec.copies)
    kind = (
        dealer_pb2.DECK_KIND_CARDS
        if len(set(spec.cards)) == len(spec.cards)
        else dealer_pb2.DECK_KIND_MULTISET
    )
    return dealer_pb2.DeckSpec(kind=kind, cards=list(spec.cards))


def contribute_request(
    shuffle_id: str, contributor: str, commitment: bytes
) -> dealer_pb2.ContributeRequest:
    return dealer_pb2.ContributeRequest(
        shuffle_id=shuffle_id, contributor=contributor, entropy_commitment=commitment
    )


def seal_request(shuffle_id: str) -> dealer_pb2.SealRequest:
    return dealer_pb2.SealRequest(shuffle_id=shuffle_id)


def committers(response: dealer_pb2.SealResponse) -> tuple[str, ...]:
    """Who committed to a sealed shuffle, in commitment order."""
    return tuple(c.contributor for c in response.shuffle.commitments)


def reveal_request(
    shuffle_id: str, contributor: str, entropy: bytes
) -> dealer_pb2.RevealEntropyRequest:
    return dealer_pb2.RevealEntropyRequest(
        shuffle_id=shuffle_id, contributor=contributor, entropy=entropy
    )


def deal_request(
    shuffle_id: str,
    count: int,
    step: str,
    purpose: DealPurpose,
    burn: int,
    position: int | None = None,
) -> dealer_pb2.DealRequest:
    request = dealer_pb2.DealRequest(
        shuffle_id=shuffle_id,
        count=count,
        purpose=_PURPOSES[purpose],
        idempotency_key=step[-200:],
        burn=burn,
    )
    if position is not None:
        request.position = position  # (0 is a position: unset is "the key alone")
    return request


def dealt_cards(
    response: dealer_pb2.DealResponse, step: str, count: int, burn: int
) -> tuple[Card, ...]:
    """The burned cards then the dealt ones, checked against what was asked for."""
    if len(response.burned) != burn or len(response.cards) != count:
        # A retry key recorded for a different request (never by this table's keys).
        raise errors.FailedPrecondition(
            f"dealer Deal {step!r} returned {len(response.burned)} burned + "
            f"{len(response.cards)} cards for a request of {burn} + {count}"
        )
    return (*response.burned, *response.cards)


def reshuffle_request(
    shuffle_id: str, cards: Sequence[Card], step: str, needed: int, position: int | None = None
) -> dealer_pb2.ReshuffleRequest:
    request = dealer_pb2.ReshuffleRequest(
        shuffle_id=shuffle_id,
        cards_to_include=list(cards),
        idempotency_key=step[-200:],
        needed=needed,
    )
    if position is not None:
        request.position = position
    return request


def close_request(shuffle_id: str, reason: str) -> dealer_pb2.CloseRequest:
    return dealer_pb2.CloseRequest(shuffle_id=shuffle_id, reason=reason)


def reveal_json(response: dealer_pb2.CloseResponse) -> str:
    """A closed shuffle's reveal as `croupier verify` reads it."""
    info: dict[str, Any] = MessageToDict(response.shuffle, preserving_proto_field_name=True)
    info["commitment_hex"] = response.shuffle.commitment.hex()
    info["revealed_seed_hex"] = response.shuffle.revealed_seed.hex()
    if response.shuffle.positions_root:
        info["positions_root_hex"] = response.shuffle.positions_root.hex()
    return json.dumps(info, sort_keys=True)


def _create_command(
    test_decks: TestDecks | None, shuffle_id: str, deck_spec: DeckSpec = STANDARD_DECK
) -> dealer_pb2.ShuffleCommand:
    order = test_decks(shuffle_id) if test_decks else None
    return dealer_pb2.ShuffleCommand(create=create_shuffle_request(shuffle_id, order, deck_spec))


def _deal_command(
    shuffle_id: str,
    count: int,
    step: str,
    purpose: DealPurpose,
    burn: int = 0,
    position: int | None = None,
) -> dealer_pb2.ShuffleCommand:
    request = deal_request(shuffle_id, count, step, purpose, burn, position)
    return dealer_pb2.ShuffleCommand(deal=request)


def _seal_command(shuffle_id: str) -> dealer_pb2.ShuffleCommand:
    return dealer_pb2.ShuffleCommand(seal=seal_request(shuffle_id))


def _close_command(shuffle_id: str, reason: str) -> dealer_pb2.ShuffleCommand:
    return dealer_pb2.ShuffleCommand(close=close_request(shuffle_id, reason))


def advance_request(
    calls: Sequence[ShuffleCall], test_decks: TestDecks | None
) -> dealer_pb2.AdvanceShufflesRequest:
    """The AdvanceShuffles batch of port calls: each command the request its own call sends."""
    commands = []
    for method, args, kwargs in calls:
        if method == "open_shuffle":
            commands.append(_create_command(test_decks, *args, **kwargs))
        elif method == "seal":
            commands.append(_seal_command(*args, **kwargs))
        elif method == "deal":
            commands.append(_deal_command(*args, **kwargs))
        elif method == "close":
            commands.append(_close_command(*args, **kwargs))
        else:
            raise ValueError(f"{method} is not a shuffle command AdvanceShuffles takes")
    return dealer_pb2.AdvanceShufflesRequest(commands=commands)


def _dealt(
    result: dealer_pb2.ShuffleCommandResult,
    shuffle_id: str,
    count: int,
    step: str,
    purpose: DealPurpose,
    burn: int = 0,
    position: int | None = None,
) -> tuple[Card, ...]:
    return dealt_cards(result.deal, step, count, burn)


_ANSWER_OF = {"open_shuffle": "create", "seal": "seal", "deal": "deal", "close": "close"}


def advance_answers(
    calls: Sequence[ShuffleCall], response: dealer_pb2.AdvanceShufflesResponse
) -> tuple[Any, ...]:
    """What each port call would have returned, from its command's result."""
    if len(response.results) != len(calls):
        raise errors.FailedPrecondition(
            f"dealer AdvanceShuffles answered {len(response.results)} of {len(calls)} commands"
        )
    answers: list[Any] = []
    for (method, args, kwargs), result in zip(calls, response.results, strict=True):
        if result.WhichOneof("result") != _ANSWER_OF[method]:
            raise errors.FailedPrecondition(
                f"dealer AdvanceShuffles answered {method} with {result.WhichOneof('result')}"
            )
        if method == "open_shuffle":
            created = result.create.shuffle
            answers.append(
                Commitment(args[0], created.commitment.hex(), created.positions_root.hex())
            )
        elif method == "seal":
            answers.append(committers(result.seal))
        elif method == "deal":
            answers.append(_dealt(result, *args, **kwargs))
        else:
            answers.append(reveal_json(result.close))
    return tuple(answers)


class GrpcDealer:
    """DealerPort over croupier.dealer.v1.DealerService."""

    def __init__(
        self,
        channel: grpc.Channel,
        test_decks: TestDecks | None = None,
        token: TokenSource | None = None,
    ) -> None:
        self._stub = dealer_pb2_grpc.DealerServiceStub(channel)
        self._test_decks = test_decks
        self._token = token

    def open_shuffle(self, shuffle_id: str, deck_spec: DeckSpec = STANDARD_DECK) -> Commitment:
        order = self._test_decks(shuffle_id) if self._test_decks else None
        request = create_shuffle_request(shuffle_id, order, deck_spec)
        created = call(
            "dealer CreateShuffle",
            lambda: self._stub.CreateShuffle(request, CALL_TIMEOUT_S, _metadata(self._token)),
        )
        # No Seal call: the first Deal seals the shuffle; the commitment is fixed at creation.
        return Commitment(
            shuffle_id, created.shuffle.commitment.hex(), created.shuffle.positions_root.hex()
        )

    def contribute(self, shuffle_id: str, contributor: str, commitment: bytes) -> int:
        request = contribute_request(shuffle_id, contributor, commitment)
        response = call(
            "dealer Contribute",
            lambda: self._stub.Contribute(request, CALL_TIMEOUT_S, _metadata(self._token)),
        )
        return response.index

    def seal(self, shuffle_id: str) -> tuple[str, ...]:
        request = seal_request(shuffle_id)
        response = call(
            "dealer Seal",
            lambda: self._stub.Seal(request, CALL_TIMEOUT_S, _metadata(self._token)),
        )
        return committers(response)

    def reveal(self, shuffle_id: str, contributor: str, entropy: bytes) -> int:
        request = reveal_request(shuffle_id, contributor, entropy)
        response = call(
            "dealer RevealEntropy",
            lambda: self._stub.RevealEntropy(request, CALL_TIMEOUT_S, _metadata(self._token)),
        )
        return response.index

    def deal(
        self,
        shuffle_id: str,
        count: int,
        step: str,
        purpose: DealPurpose,
        burn: int = 0,
        position: int | None = None,
    ) -> tuple[Card, ...]:
        request = deal_request(shuffle_id, count, step, purpose, burn, position)
        response = call(
            "dealer Deal", lambda: self._stub.Deal(request, CALL_TIMEOUT_S, _metadata(self._token))
        )
        return dealt_cards(response, step, count, burn)

    def reshuffle(
        self,
        shuffle_id: str,
        cards: Sequence[Card],
        step: str,
        needed: int,
        position: int | None = None,
    ) -> None:
        request = reshuffle_request(shuffle_id, cards, step, needed, position)
        call(
            "dealer Reshuffle",
            lambda: self._stub.Reshuffle(request, CALL_TIMEOUT_S, _metadata(self._token)),
        )

    def close(self, shuffle_id: str, reason: str) -> str:
        request = close_request(shuffle_id, reason)
        response = call(
            "dealer Close",
            lambda: self._stub.Close(request, CALL_TIMEOUT_S, _metadata(self._token)),
        )
        return reveal_json(response)

    def advance(self, calls: Sequence[ShuffleCall]) -> tuple[Any, ...]:
        request = advance_request(calls, self._test_decks)
        response = call(
            "dealer AdvanceShuffles",
            lambda: self._stub.AdvanceShuffles(request, CALL_TIMEOUT_S, _metadata(self._token)),
        )
        return advance_answers(calls, response)


# --- the ledger's requests and answers ------------------------------------------------------

_RESERVATION_STATUS = {
    ledger_pb2.RESERVATION_STATUS_PENDING: "pending",
    ledger_pb2.RESERVATION_STATUS_POSTED: "posted",
    ledger_pb2.RESERVATION_STATUS_VOIDED: "voided",
}


def _amount(amount: int, currency: str) -> chips_pb2.ChipAmount:
    return chips_pb2.ChipAmount(currency=currency, amount=amount)


def _leg(account: str, side: int, amount: int, currency: str) -> ledger_pb2.Leg:
    return ledger_pb2.Leg(account_id=account, side=side, amount=_amount(amount, currency))  # type: ignore[arg-type]


def table_account(table_id: str, currency: str) -> str:
    return f"table:{table_id}:{currency}"


def house_account(currency: str) -> str:
    return f"house:rake:{currency}"


def player_account(player: str, currency: str) -> str:
    return f"player:{player}:{currency}"


def table_account_requests(table_id: str, currency: str) -> list[ledger_pb2.OpenAccountRequest]:
    """The OpenAccounts of a table: its escrow and the house rake account (idempotent)."""
    return [
        ledger_pb2.OpenAccountRequest(kind=kind, name=name, currency=currency)
        for kind, name in (
            (ledger_pb2.ACCOUNT_KIND_TABLE, table_id),
            (ledger_pb2.ACCOUNT_KIND_HOUSE, "rake"),
        )
    ]


def reserve_request(
    key: str, table_id: str, account: str, amount: int, currency: str
) -> ledger_pb2.ReserveRequest:
    return ledger_pb2.ReserveRequest(
        idempotency_key=key,
        legs=[
            _leg(account, ledger_pb2.LEG_SIDE_DEBIT, amount, currency),
            _leg(table_account(table_id, currency), ledger_pb2.LEG_SIDE_CREDIT, amount, currency),
        ],
        metadata=ledger_pb2.EntryMetadata(table_id=table_id, reason="buy-in"),
    )


def buy_in_hold(response: ledger_pb2.ReserveResponse) -> BuyInHold:
    # A replayed Reserve tells its reservation's status now; a ledger that sends none
    # (older than the field) reads "unknown", which no buy-in relies on.
    status = _RESERVATION_STATUS.get(response.status, "unknown")
    return BuyInHold(response.reservation_id, status)


def post_request(key: str, reservation_id: str, table_id: str) -> ledger_pb2.PostRequest:
    return ledger_pb2.PostRequest(
        idempotency_key=key,
        reservation_id=reservation_id,
        metadata=ledger_pb2.EntryMetadata(table_id=table_id, reason="buy-in"),
    )


def void_request(key: str, reservation_id: str, reason: str) -> ledger_pb2.VoidRequest:
    return ledger_pb2.VoidRequest(idempotency_key=key, reservation_id=reservation_id, reason=reason)


def transfer_request(
    key: str,
    source: str,
    target: str,
    amount: int,
    currency: str,
    table_id: str,
    hand: str,
    reason: str,
) -> ledger_pb2.TransferRequest:
    return ledger_pb2.TransferRequest(
        idempotency_key=key,
        legs=[
            _leg(source, ledger_pb2.LEG_SIDE_DEBIT, amount, currency),
            _leg(target, ledger_pb2.LEG_SIDE_CREDIT, amount, currency),
        ],
        metadata=ledger_pb2.EntryMetadata(table_id=table_id, hand_id=hand, reason=reason),
    )


def pay_out_request(
    key: str, table_id: str, account: str, amount: int, currency: str, reason: str
) -> ledger_pb2.TransferRequest:
    source = table_account(table_id, currency)
    return transfer_request(key, source, account, amount, currency, table_id, "", reason)


def rake_request(
    key: str, table_id: str, hand: int, amount: int, currency: str
) -> ledger_pb2.TransferRequest:
    source, house = table_account(table_id, currency), house_account(currency)
    return transfer_request(key, source, house, amount, currency, table_id, str(hand), "rake")


def from_house_request(
    key: str, table_id: str, hand: int, amount: int, currency: str
) -> ledger_pb2.TransferRequest:
    house, target = house_account(currency), table_account(table_id, currency)
    return transfer_request(key, house, target, amount, currency, table_id, str(hand), "house pays")


class GrpcLedger:
    """LedgerPort over croupier.ledger.v1.LedgerService (one escrow account per table)."""

    def __init__(self, channel: grpc.Channel, token: TokenSource | None = None) -> None:
        self._stub = ledger_pb2_grpc.LedgerServiceStub(channel)
        self._token = token

    table_account = staticmethod(table_account)
    house_account = staticmethod(house_account)

    def player_account(self, player: str, currency: str) -> str:
        return player_account(player, currency)

    def ensure_accounts(self, table_id: str, currency: str) -> None:
        for request in table_account_requests(table_id, currency):
            call("ledger OpenAccount", partial(self._open, request))

    def _open(self, request: ledger_pb2.OpenAccountRequest) -> ledger_pb2.OpenAccountResponse:
        return self._stub.OpenAccount(request, CALL_TIMEOUT_S, _metadata(self._token))

    def reserve_buy_in(
        self, key: str, table_id: str, account: str, amount: int, currency: str
    ) -> BuyInHold:
        request = reserve_request(key, table_id, account, amount, currency)
        response = call(
            "ledger Reserve",
            lambda: self._stub.Reserve(request, CALL_TIMEOUT_S, _metadata(self._token)),
        )
        return buy_in_hold(response)

    def post(self, key: str, reservation_id: str, table_id: str) -> None:
        request = post_request(key, reservation_id, table_id)
        call(
            "ledger Post", lambda: self._stub.Post(request, CALL_TIMEOUT_S, _metadata(self._token))
        )

    def void(self, key: str, reservation_id: str, reason: str) -> None:
        request = void_request(key, reservation_id, reason)
        call(
            "ledger Void", lambda: self._stub.Void(request, CALL_TIMEOUT_S, _metadata(self._token))
        )

    def pay_out(
        self, key: str, table_id: str, account: str, amount: int, currency: str, reason: str
    ) -> None:
        request = pay_out_request(key, table_id, account, amount, currency, reason)
        self._transfer(request)

    def rake(self, key: str, table_id: str, hand: int, amount: int, currency: str) -> None:
        self._transfer(rake_request(key, table_id, hand, amount, currency))

    def from_house(self, key: str, table_id: str, hand: int, amount: int, currency: str) -> None:
        self._transfer(from_house_request(key, table_id, hand, amount, currency))

    def _transfer(self, request: ledger_pb2.TransferRequest) -> None:
        call(
            "ledger Transfer",
            lambda: self._stub.Transfer(request, CALL_TIMEOUT_S, _metadata(self._token)),
        )
