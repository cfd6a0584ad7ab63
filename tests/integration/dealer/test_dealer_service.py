"""The dealer over real gRPC and real Redis: full flow, permissions, errors, secrets at rest."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import cast

import grpc
import jwt
import pytest
import redis
from google.protobuf.json_format import MessageToDict
from typer.testing import CliRunner

from croupier.dealer.v1 import dealer_pb2
from services.client.cli import app as cli_app
from services.shared import auth
from services.shared.eventstore.redis_store import Entry
from services.shuffles.derivation import commitment, entropy_commitment
from services.shuffles.history import hand_history_json, history_from_info, parse_hand_history

from .conftest import player_stub, stub, table_stub

pytestmark = pytest.mark.integration
HOLE = dealer_pb2.DEAL_PURPOSE_HOLE
BOARD = dealer_pb2.DEAL_PURPOSE_BOARD
BURN = dealer_pb2.DEAL_PURPOSE_BURN
STANDARD = dealer_pb2.DeckSpec(kind=dealer_pb2.DECK_KIND_STANDARD)


def _code(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details() or ""


def test_full_hand_commit_contribute_deal_close_and_verify(
    start_dealer: Callable[..., str], key_prefix: str, tmp_path: Path
) -> None:
    address = start_dealer()
    table, alice = table_stub(address), player_stub(address)
    sid = f"{key_prefix}-hand"
    created = table.CreateShuffle(dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=STANDARD))
    assert len(created.shuffle.commitment) == 32 and not created.shuffle.revealed_seed
    entropy = b"alice-seed, 16 bytes or more"
    table.Contribute(
        dealer_pb2.ContributeRequest(
            shuffle_id=sid,
            contributor="alice",
            entropy_commitment=entropy_commitment(sid, "alice", entropy),
        )
    )
    table.Seal(dealer_pb2.SealRequest(shuffle_id=sid))
    table.RevealEntropy(
        dealer_pb2.RevealEntropyRequest(shuffle_id=sid, contributor="alice", entropy=entropy)
    )
    dealt: list[str] = []
    for count, purpose in [(2, HOLE), (2, HOLE), (1, BURN), (3, BOARD), (1, BURN), (1, BOARD)]:
        reply = table.Deal(dealer_pb2.DealRequest(shuffle_id=sid, count=count, purpose=purpose))
        assert reply.first_position == len(dealt)
        dealt += reply.cards
    info = alice.GetShuffle(dealer_pb2.GetShuffleRequest(shuffle_id=sid)).shuffle
    assert info.status == dealer_pb2.SHUFFLE_STATUS_DEALING and info.dealt_count == 10
    assert not info.revealed_seed and not info.steps  # nothing secret before close
    closed = table.Close(dealer_pb2.CloseRequest(shuffle_id=sid)).shuffle
    assert commitment(sid, closed.revealed_seed) == created.shuffle.commitment
    assert [c for s in closed.steps for c in s.deal.cards] == dealt
    verdict = alice.Verify(dealer_pb2.VerifyRequest(shuffle_id=sid))
    assert verdict.ok and verdict.cards_checked == 10
    exported = hand_history_json(history_from_info(closed))  # what `croupier verify` reads
    assert parse_hand_history(json.loads(json.dumps(exported))).verify().ok
    # The table records Close's ShuffleInfo as protobuf JSON (plus keys of its own):
    # `croupier verify` takes that file as it is.
    recorded = MessageToDict(closed, preserving_proto_field_name=True) | {"seat_count": 3}
    path = tmp_path / "revealed.json"
    path.write_text(json.dumps(recorded))
    result = CliRunner().invoke(cli_app, ["verify", str(path)])
    assert result.exit_code == 0 and "all 10 dealt cards" in result.output, result.output
    history = dealer_pb2.HandHistory(
        shuffle_id=sid,
        deck=closed.deck,
        commitment=closed.commitment,
        server_seed=closed.revealed_seed,
        contributions=closed.contributions,
        steps=closed.steps,
    )
    history.steps[0].deal.cards[0], history.steps[0].deal.cards[1] = (
        history.steps[0].deal.cards[1],
        history.steps[0].deal.cards[0],
    )
    tampered = alice.Verify(dealer_pb2.VerifyRequest(history=history))
    assert not tampered.ok and tampered.mismatch.kind == "card" and tampered.mismatch.position == 0


def test_players_may_not_create_contribute_deal_reshuffle_or_close(
    start_dealer: Callable[..., str], key_prefix: str
) -> None:
    address = start_dealer()
    sid = f"{key_prefix}-perm"
    table_stub(address).CreateShuffle(
        dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=STANDARD)
    )
    alice = player_stub(address)
    calls = [
        lambda: alice.CreateShuffle(
            dealer_pb2.CreateShuffleRequest(shuffle_id=sid + "x", deck=STANDARD)
        ),
        lambda: alice.Deal(dealer_pb2.DealRequest(shuffle_id=sid, count=1, purpose=HOLE)),
        lambda: alice.Reshuffle(dealer_pb2.ReshuffleRequest(shuffle_id=sid)),
        lambda: alice.Contribute(
            dealer_pb2.ContributeRequest(
                shuffle_id=sid, contributor="alice", entropy_commitment=bytes(32)
            )
        ),
        lambda: alice.Close(dealer_pb2.CloseRequest(shuffle_id=sid)),
        lambda: stub(address, "worker", auth.Role.SERVICE).Close(
            dealer_pb2.CloseRequest(shuffle_id=sid)
        ),
    ]
    for call in calls:
        assert _code(call)[0] == grpc.StatusCode.PERMISSION_DENIED


def test_test_decks_need_the_dealers_explicit_test_flag(
    start_dealer: Callable[..., str], key_prefix: str
) -> None:
    order = ["As", "Kd", "7h"]
    deck = dealer_pb2.DeckSpec(kind=dealer_pb2.DECK_KIND_CARDS, cards=order)
    request = dealer_pb2.CreateShuffleRequest(
        shuffle_id=f"{key_prefix}-t", deck=deck, test_deck_order=order
    )
    code, details = _code(lambda: table_stub(start_dealer()).CreateShuffle(request))
    assert (
        code == grpc.StatusCode.PERMISSION_DENIED and "CROUPIER_DEALER_ALLOW_TEST_DECKS" in details
    )
    testing = table_stub(start_dealer(CROUPIER_DEALER_ALLOW_TEST_DECKS="1"))
    testing.CreateShuffle(request)
    reply = testing.Deal(
        dealer_pb2.DealRequest(shuffle_id=request.shuffle_id, count=3, purpose=HOLE)
    )
    assert list(reply.cards) == order


def test_errors_are_the_documented_status_codes(
    start_dealer: Callable[..., str], key_prefix: str
) -> None:
    table = table_stub(start_dealer())
    sid = f"{key_prefix}-err"
    bad_deck = dealer_pb2.DeckSpec(kind=dealer_pb2.DECK_KIND_CARDS, cards=["As", "Td", "Td"])
    code, details = _code(
        lambda: table.CreateShuffle(dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=bad_deck))
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "Td" in details
    malformed = dealer_pb2.DeckSpec(kind=dealer_pb2.DECK_KIND_CARDS, cards=["As", "1x"])
    code, details = _code(
        lambda: table.CreateShuffle(dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=malformed))
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "1x" in details
    code, _ = _code(
        lambda: table.Deal(
            dealer_pb2.DealRequest(shuffle_id=f"{key_prefix}-none", count=1, purpose=HOLE)
        )
    )
    assert code == grpc.StatusCode.NOT_FOUND
    small = dealer_pb2.DeckSpec(kind=dealer_pb2.DECK_KIND_CARDS, cards=["As", "Kd", "Qh"])
    table.CreateShuffle(dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=small))
    table.Deal(dealer_pb2.DealRequest(shuffle_id=sid, count=2, purpose=HOLE))
    code, details = _code(
        lambda: table.Deal(dealer_pb2.DealRequest(shuffle_id=sid, count=2, purpose=HOLE))
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "1 remain" in details
    code, _ = _code(
        lambda: table.Contribute(
            dealer_pb2.ContributeRequest(
                shuffle_id=sid, contributor="alice", entropy_commitment=bytes(32)
            )
        )
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    table.Close(dealer_pb2.CloseRequest(shuffle_id=sid))
    code, details = _code(
        lambda: table.Deal(dealer_pb2.DealRequest(shuffle_id=sid, count=1, purpose=HOLE))
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "1 remained" in details


def test_redis_never_holds_an_unrevealed_seed(
    start_dealer: Callable[..., str],
    key_prefix: str,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from services.dealer import seeds

    drawn: list[bytes] = []
    original = seeds.new_server_seed

    def spy() -> bytes:
        drawn.append(original())
        return drawn[-1]

    monkeypatch.setattr("services.dealer.application.new_server_seed", spy)
    table = table_stub(start_dealer())
    sid = f"{key_prefix}-rest"
    table.CreateShuffle(dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=STANDARD))
    table.Deal(dealer_pb2.DealRequest(shuffle_id=sid, count=5, purpose=HOLE))
    (seed,) = drawn
    # A client without decode_responses: every reply below is bytes, as the casts say.
    client = redis.Redis.from_url(redis_url)
    raw = b""
    for key in client.scan_iter(match=f"{{shuffle:{sid}}}*"):
        kind = client.type(key)
        if kind == b"stream":
            for _id, fields in cast(list[Entry], client.xrange(key)):
                raw += b"".join(k + v for k, v in fields.items())
        elif kind == b"string":
            raw += cast(bytes | None, client.get(key)) or b""
        elif kind == b"hash":
            hash_fields = cast(dict[bytes, bytes], client.hgetall(key))
            raw += b"".join(k + v for k, v in hash_fields.items())
    assert raw, "expected the shuffle's keys in Redis"
    for form in (seed, seed.hex().encode(), seed.hex().upper().encode()):
        assert form not in raw
    info = table.GetShuffle(dealer_pb2.GetShuffleRequest(shuffle_id=sid)).shuffle
    assert seed not in info.SerializeToString()
    table.Close(dealer_pb2.CloseRequest(shuffle_id=sid))
    revealed = b"".join(
        v
        for _id, f in cast(list[Entry], client.xrange(f"{{shuffle:{sid}}}:events"))
        for v in f.values()
    )
    assert seed in revealed  # after Close the seed is public, in the stream


def test_one_deal_burns_then_deals_and_croupier_verify_checks_both(
    start_dealer: Callable[..., str], key_prefix: str, tmp_path: Path
) -> None:
    address = start_dealer()
    table = table_stub(address)
    sid = f"{key_prefix}-burn"
    table.CreateShuffle(dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=STANDARD))
    hole = table.Deal(dealer_pb2.DealRequest(shuffle_id=sid, count=4, purpose=HOLE))
    board = dealer_pb2.DEAL_PURPOSE_BOARD
    flop = dealer_pb2.DealRequest(
        shuffle_id=sid, count=3, purpose=board, burn=1, idempotency_key="flop"
    )
    reply = table.Deal(flop)
    assert len(reply.burned) == 1 and len(reply.cards) == 3
    assert reply.first_position == 4 and reply.remaining == 44
    assert table.Deal(flop) == reply  # a retry deals nothing new
    closed = table.Close(dealer_pb2.CloseRequest(shuffle_id=sid)).shuffle
    assert [(s.deal.purpose, list(s.deal.cards)) for s in closed.steps] == [
        (HOLE, list(hole.cards)),
        (dealer_pb2.DEAL_PURPOSE_BURN, list(reply.burned)),
        (board, list(reply.cards)),
    ]
    path = tmp_path / "revealed.json"
    path.write_text(json.dumps(MessageToDict(closed, preserving_proto_field_name=True)))
    result = CliRunner().invoke(cli_app, ["verify", str(path)])
    assert result.exit_code == 0 and "all 8 dealt cards" in result.output, result.output


def test_with_service_identities_the_workers_key_cannot_close_a_shuffle(
    dealer_env: dict[str, str], key_prefix: str, tmp_path: Path
) -> None:
    # The audit closed an open shuffle mid-hand with a service token minted from the key every
    # process held. Now the dealer verifies with public keys only: the table's own key works,
    # the workers' key (which runs bot code) cannot pass for the table, however it signs.
    from croupier.dealer.v1 import dealer_pb2_grpc
    from services.dealer.server import build
    from services.dealer.settings import DealerSettings
    from services.shared.channels import connect
    from services.shared.grpc_server import create_server

    keys = auth.write_keys(tmp_path / "keys")
    env = {k: v for k, v in dealer_env.items() if k != "CROUPIER_AUTH_KEY"}
    env["CROUPIER_AUTH_PUBLIC_KEYS_FILE"] = str(keys["public"])
    settings = DealerSettings.from_env(env)
    server, port = create_server(build(settings), settings.runtime)
    try:
        address = f"127.0.0.1:{port}"

        def as_(issuer: str, subject: str, role: auth.Role) -> dealer_pb2_grpc.DealerServiceStub:
            signer = auth.service_keys(keys["public"], issuer, keys[issuer])
            return dealer_pb2_grpc.DealerServiceStub(
                connect(address, auth.issue_token(signer, subject, role, 60))
            )

        sid = f"{key_prefix}-identities"
        table = as_("table", "table", auth.Role.SERVICE)
        table.CreateShuffle(dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=STANDARD))
        table.Deal(dealer_pb2.DealRequest(shuffle_id=sid, count=2, purpose=HOLE))
        workers = as_("workers", "workers", auth.Role.SERVICE)
        code, _ = _code(lambda: workers.Close(dealer_pb2.CloseRequest(shuffle_id=sid)))
        assert code == grpc.StatusCode.PERMISSION_DENIED
        stolen = auth.service_keys(keys["public"], "workers", keys["workers"]).private_key
        assert stolen is not None
        forged = jwt.encode(
            {"iss": "workers", "sub": "table", "role": "service", "exp": 2**31 - 1},
            stolen,
            algorithm="EdDSA",
            headers={"kid": "workers"},
        )
        impostor = dealer_pb2_grpc.DealerServiceStub(connect(address, forged))
        code, details = _code(lambda: impostor.Close(dealer_pb2.CloseRequest(shuffle_id=sid)))
        assert code == grpc.StatusCode.UNAUTHENTICATED and "may not sign" in details
        info = as_("croupier", "alice", auth.Role.PLAYER).GetShuffle(
            dealer_pb2.GetShuffleRequest(shuffle_id=sid)
        )
        assert info.shuffle.status == dealer_pb2.SHUFFLE_STATUS_DEALING
        assert not info.shuffle.revealed_seed
    finally:
        server.stop(0).wait()
