"""A closed shuffle's seed and dealt cards are the table's and the auditors', not everyone's:
a player reads only the public part (commitments, positions root, contributions) and proves
its own cards with openings; an auditor's seed still checks the whole deck (real gRPC, real
Redis)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from croupier.dealer.v1 import dealer_pb2
from services.client.cli import app as cli_app
from services.shared import auth
from services.shuffles import wire
from services.shuffles.derivation import entropy_commitment
from services.shuffles.history import hand_history_json, history_from_info
from services.shuffles.openings import open_dealt
from services.shuffles.proof import card_proof_json

from .conftest import player_stub, stub, table_stub

pytestmark = pytest.mark.integration
HOLE = dealer_pb2.DEAL_PURPOSE_HOLE
BOARD = dealer_pb2.DEAL_PURPOSE_BOARD
STANDARD = dealer_pb2.DeckSpec(kind=dealer_pb2.DECK_KIND_STANDARD)


def test_only_the_table_and_auditors_read_a_closed_shuffles_seed_and_cards(
    start_dealer: Callable[..., str], key_prefix: str, tmp_path: Path
) -> None:
    address = start_dealer()
    table = table_stub(address)
    sid = f"{key_prefix}-private"
    created = table.CreateShuffle(dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=STANDARD))
    root = created.shuffle.positions_root
    assert len(root) == 32  # published with the commitment, before any entropy
    entropy = b"alice's entropy, 16 bytes or more"
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
    # (each deal names its place in the shuffle, as the table does: --strict wants it)
    table.Deal(dealer_pb2.DealRequest(shuffle_id=sid, count=6, purpose=HOLE, position=0))
    table.Deal(dealer_pb2.DealRequest(shuffle_id=sid, count=3, purpose=BOARD, burn=1, position=6))
    closed = table.Close(dealer_pb2.CloseRequest(shuffle_id=sid, reason="hand ended")).shuffle
    assert closed.revealed_seed and len(closed.steps) == 3

    # A player (or any spectator) after Close: no seed, no dealt cards, so no unshown hand.
    public = player_stub(address, "mallory").GetShuffle(
        dealer_pb2.GetShuffleRequest(shuffle_id=sid)
    )
    info = public.shuffle
    assert info.status == dealer_pb2.SHUFFLE_STATUS_CLOSED
    assert not info.revealed_seed and not info.steps
    assert info.positions_root == root and info.commitment == created.shuffle.commitment
    assert closed.revealed_seed not in public.SerializeToString()

    # An auditor reads the whole record, and the seed checks every card and the root.
    audited = (
        stub(address, "auditor-1", auth.Role.AUDITOR)
        .GetShuffle(dealer_pb2.GetShuffleRequest(shuffle_id=sid))
        .shuffle
    )
    assert audited.revealed_seed == closed.revealed_seed and len(audited.steps) == 3
    record = tmp_path / "audit.json"
    record.write_text(json.dumps(hand_history_json(history_from_info(audited))))
    result = CliRunner().invoke(cli_app, ["verify", str(record), "--strict"])
    assert result.exit_code == 0 and "all 10 dealt cards" in result.output, result.output

    # Alice's own hole cards (dealing convention: 3 players, alice first: cards 0 and 3) and
    # the board, proven against the root she saw before the hand, without the seed.
    opened = open_dealt(
        closed.revealed_seed,
        sid,
        wire.deck_from_wire(closed.deck).card_multiset(),
        [wire.contribution_from_wire(c) for c in closed.contributions],
        wire.steps_from_wire(closed.steps),
    )
    mine = [opened.openings[i] for i in (0, 3, 7, 8, 9)]
    proof = card_proof_json(
        sid,
        wire.deck_from_wire(info.deck),
        info.commitment,
        info.positions_root,
        list(info.reshuffle_roots),
        [wire.contribution_from_wire(c) for c in info.contributions],
        [(c.contributor, c.commitment, c.revealed) for c in info.commitments],
        [(o, "hole" if o.dealt_index < 6 else "board") for o in mine],
    )
    path = tmp_path / "proof.json"
    path.write_text(json.dumps(proof))
    args = ["verify", str(path), "--positions-root", root.hex(), "--commitment"]
    args += [created.shuffle.commitment.hex(), "--contributor", "alice", "--strict"]
    result = CliRunner().invoke(cli_app, args)
    assert result.exit_code == 0 and "5 of 5 cards proven" in result.output, result.output


def test_a_shuffle_closed_before_its_first_card_shows_its_seed_to_anyone(
    start_dealer: Callable[..., str], key_prefix: str
) -> None:
    address = start_dealer()
    table = table_stub(address)
    sid = f"{key_prefix}-unused"
    table.CreateShuffle(dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=STANDARD))
    closed = table.Close(dealer_pb2.CloseRequest(shuffle_id=sid, reason="withdrawn")).shuffle
    info = player_stub(address).GetShuffle(dealer_pb2.GetShuffleRequest(shuffle_id=sid)).shuffle
    # (no card was dealt from it: its seed hides nobody's, and checks its commitment)
    assert info.revealed_seed == closed.revealed_seed and info.dealt_count == 0
