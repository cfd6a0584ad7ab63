"""AdvanceShuffles over real gRPC and real Redis: a hand's boundary in one call, with each
command's own rules (idempotency, phases, permissions) and nothing dealt twice on a retry."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import grpc
import pytest

from croupier.dealer.v1 import dealer_pb2
from services.shared import auth
from services.shuffles.derivation import commitment, entropy_commitment

from .conftest import player_stub, stub, table_stub

pytestmark = pytest.mark.integration
HOLE = dealer_pb2.DEAL_PURPOSE_HOLE
BOARD = dealer_pb2.DEAL_PURPOSE_BOARD
STANDARD = dealer_pb2.DeckSpec(kind=dealer_pb2.DECK_KIND_STANDARD)
Command = dealer_pb2.ShuffleCommand


def _code(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details() or ""


def create(sid: str) -> Command:
    return Command(create=dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=STANDARD))


def boundary(prefix: str, hand: int) -> dealer_pb2.AdvanceShufflesRequest:
    """What the table sends when hand `hand` ends: close it, seal hand+2, create hand+3 and
    deal hand+1's hole cards (hand+1 was sealed a hand earlier)."""
    return dealer_pb2.AdvanceShufflesRequest(
        commands=[
            Command(close=dealer_pb2.CloseRequest(shuffle_id=f"{prefix}.{hand}", reason="ended")),
            Command(seal=dealer_pb2.SealRequest(shuffle_id=f"{prefix}.{hand + 2}")),
            create(f"{prefix}.{hand + 3}"),
            Command(
                deal=dealer_pb2.DealRequest(
                    shuffle_id=f"{prefix}.{hand + 1}",
                    count=12,
                    purpose=HOLE,
                    idempotency_key=f"t/{hand + 1}/deal/7",
                )
            ),
        ]
    )


def test_a_hands_boundary_is_one_call_and_a_retry_answers_the_same(
    start_dealer: Callable[..., str], key_prefix: str
) -> None:
    address = start_dealer()
    table, alice = table_stub(address), player_stub(address)
    prefix = f"{key_prefix}-adv"
    opened = table.AdvanceShuffles(
        dealer_pb2.AdvanceShufflesRequest(commands=[create(f"{prefix}.{n}") for n in (1, 2, 3)])
    )
    commitments = [r.create.shuffle.commitment for r in opened.results]
    assert len(commitments) == 3 and all(len(c) == 32 for c in commitments)
    # Alice commits to hand 3 while hand 1 plays; hand 2 was sealed when hand 1 started.
    entropy = b"alice's entropy, 16 bytes or more"
    table.Contribute(
        dealer_pb2.ContributeRequest(
            shuffle_id=f"{prefix}.3",
            contributor="alice",
            entropy_commitment=entropy_commitment(f"{prefix}.3", "alice", entropy),
        )
    )
    table.Seal(dealer_pb2.SealRequest(shuffle_id=f"{prefix}.2"))
    table.Deal(dealer_pb2.DealRequest(shuffle_id=f"{prefix}.1", count=4, purpose=HOLE))

    first = table.AdvanceShuffles(boundary(prefix, 1))
    closed, sealed, created, dealt = first.results
    assert commitment(f"{prefix}.1", closed.close.shuffle.revealed_seed) == commitments[0]
    assert closed.close.shuffle.status == dealer_pb2.SHUFFLE_STATUS_CLOSED
    assert [c.contributor for c in sealed.seal.shuffle.commitments] == ["alice"]
    assert sealed.seal.shuffle.status == dealer_pb2.SHUFFLE_STATUS_SEALED
    assert len(created.create.shuffle.commitment) == 32
    assert len(dealt.deal.cards) == 12 and dealt.deal.first_position == 0

    # A retry (a lost reply, another table instance) replays every command: the same reveal,
    # the same commitment, the same cards; nothing dealt twice.
    again = table.AdvanceShuffles(boundary(prefix, 1))
    assert again == first
    info = alice.GetShuffle(dealer_pb2.GetShuffleRequest(shuffle_id=f"{prefix}.2")).shuffle
    assert info.dealt_count == 12 and info.status == dealer_pb2.SHUFFLE_STATUS_DEALING
    # The same commands one at a time answer what the batch did.
    alone = table.Deal(boundary(prefix, 1).commands[3].deal)
    assert list(alone.cards) == list(dealt.deal.cards)
    verdict = alice.Verify(dealer_pb2.VerifyRequest(shuffle_id=f"{prefix}.1"))
    assert verdict.ok and verdict.cards_checked == 4


def test_every_command_keeps_its_own_rules_and_the_first_failure_ends_the_batch(
    start_dealer: Callable[..., str], key_prefix: str
) -> None:
    table = table_stub(start_dealer())
    sid = f"{key_prefix}-rules"
    table.CreateShuffle(dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=STANDARD))
    unkeyed = Command(deal=dealer_pb2.DealRequest(shuffle_id=sid, count=2, purpose=HOLE))
    code, details = _code(
        lambda: table.AdvanceShuffles(dealer_pb2.AdvanceShufflesRequest(commands=[unkeyed]))
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "idempotency_key" in details
    code, details = _code(lambda: table.AdvanceShuffles(dealer_pb2.AdvanceShufflesRequest()))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "1..8 commands" in details
    code, details = _code(
        lambda: table.AdvanceShuffles(dealer_pb2.AdvanceShufflesRequest(commands=[Command()]))
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "one of create" in details
    # Command 1 fails (a shuffle never created): command 0 stays done, command 2 never runs.
    keyed = Command(
        deal=dealer_pb2.DealRequest(shuffle_id=sid, count=2, purpose=HOLE, idempotency_key="k")
    )
    batch = dealer_pb2.AdvanceShufflesRequest(
        commands=[
            Command(seal=dealer_pb2.SealRequest(shuffle_id=sid)),
            Command(close=dealer_pb2.CloseRequest(shuffle_id=f"{sid}-missing")),
            keyed,
        ]
    )
    code, details = _code(lambda: table.AdvanceShuffles(batch))
    assert code == grpc.StatusCode.NOT_FOUND and details.startswith("command 1 (close): ")
    info = table.GetShuffle(dealer_pb2.GetShuffleRequest(shuffle_id=sid)).shuffle
    assert info.status == dealer_pb2.SHUFFLE_STATUS_SEALED and info.dealt_count == 0
    # A closed shuffle deals nothing through a batch either.
    table.Close(dealer_pb2.CloseRequest(shuffle_id=sid))
    code, details = _code(
        lambda: table.AdvanceShuffles(dealer_pb2.AdvanceShufflesRequest(commands=[keyed]))
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "closed" in details


def test_only_the_table_service_advances_shuffles(
    start_dealer: Callable[..., str], key_prefix: str
) -> None:
    address = start_dealer()
    sid = f"{key_prefix}-perm"
    table_stub(address).CreateShuffle(
        dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=STANDARD)
    )
    close = dealer_pb2.AdvanceShufflesRequest(
        commands=[Command(close=dealer_pb2.CloseRequest(shuffle_id=sid))]
    )
    for caller in (player_stub(address), stub(address, "workers", auth.Role.SERVICE)):
        code, details = _code(partial(caller.AdvanceShuffles, close))
        assert code == grpc.StatusCode.PERMISSION_DENIED and "table service" in details
    info = table_stub(address).GetShuffle(dealer_pb2.GetShuffleRequest(shuffle_id=sid)).shuffle
    assert info.status == dealer_pb2.SHUFFLE_STATUS_OPEN and not info.revealed_seed


def test_a_deal_named_by_its_position_answers_the_same_cards_under_any_key(
    start_dealer: Callable[..., str], key_prefix: str
) -> None:
    """Over the wire, alone and in a batch: the position names the deal, so a retaken step
    under a new key gets the cards recorded there; a mismatch or a skip is refused."""
    address = start_dealer()
    table = table_stub(address)
    sid = f"{key_prefix}-pos.1"
    table.CreateShuffle(dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=STANDARD))

    def deal(key: str, position: int, count: int = 4, burn: int = 0) -> dealer_pb2.DealRequest:
        return dealer_pb2.DealRequest(
            shuffle_id=sid,
            count=count,
            purpose=HOLE,
            idempotency_key=key,
            burn=burn,
            position=position,
        )

    first = table.Deal(deal("t/1/deal/7", 0))
    batch = dealer_pb2.AdvanceShufflesRequest(commands=[Command(deal=deal("t/1/deal/8", 0))])
    again = table.AdvanceShuffles(batch).results[0].deal
    assert (list(again.cards), again.first_position) == (list(first.cards), 0)
    code, details = _code(lambda: table.Deal(deal("t/1/deal/9", 0, count=2)))
    assert code is grpc.StatusCode.FAILED_PRECONDITION
    assert "position 0 holds 4 hole card(s), not the 2 hole card(s)" in details
    code, details = _code(lambda: table.Deal(deal("t/1/deal/9", 5)))
    assert code is grpc.StatusCode.FAILED_PRECONDITION and "would skip cards" in details
    # Unset is "the key alone", never "at 0", and it is refused once positions are used.
    unset = dealer_pb2.DealRequest(shuffle_id=sid, count=1, purpose=HOLE, idempotency_key="x")
    code, details = _code(lambda: table.Deal(unset))
    assert code is grpc.StatusCode.FAILED_PRECONDITION and "dealt by position" in details
    info = table.GetShuffle(dealer_pb2.GetShuffleRequest(shuffle_id=sid)).shuffle
    assert info.dealt_count == 4
