"""`croupier verify --table T --hand N` checks the dealer's reveal against the commitment the
table showed every watcher before the hand (GetHandHistory's shuffles, from the table's own
ShuffleAnnounced / ShuffleSealed / ShuffleCommitted / ShuffleRevealed events), not against
the commitment the dealer reports, over real gRPC (table, dealer, ledger on loopback)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner, Result

from croupier.table.v1 import events_pb2, table_pb2
from services.client.cli import app
from services.shared import auth
from tests.integration.table.conftest import KEY, Platform, create_table, seat
from tests.integration.table.test_idempotency import stored_events
from tests.integration.table.test_verify_received import fold, play_hand

pytestmark = pytest.mark.integration


def _croupier(platform: Platform, *args: str) -> Result:
    env = {
        "CROUPIER_TABLE_TARGET": f"127.0.0.1:{platform.port}",
        "CROUPIER_DEALER_TARGET": f"127.0.0.1:{platform.dealer_port}",
        "CROUPIER_LEDGER_TARGET": f"127.0.0.1:{platform.ledger_port}",
        "CROUPIER_AUTH_KEY": KEY,
        "CROUPIER_PLAYER": "",
        "CROUPIER_TOKEN": "",
    }
    result = CliRunner().invoke(app, list(args), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result


def _two_hands(
    platform: Platform,
    seed_reveal: events_pb2.SeedReveal.ValueType = events_pb2.SEED_REVEAL_UNSPECIFIED,
) -> tuple[str, dict[str, object]]:
    table_id = create_table(platform, seats=2, seed_reveal=seed_reveal)
    alice = seat(platform, table_id, "alice", 0, 200)
    bob = seat(platform, table_id, "bob", 1, 200)
    stubs = {"alice": alice, "bob": bob}
    fold(stubs, table_id, 1)
    play_hand(stubs, table_id, 2)
    return table_id, stubs  # type: ignore[return-value]


def _announced(redis_url: str, table_id: str, hand: int) -> events_pb2.ShuffleAnnounced:
    return next(
        e
        for e in stored_events(redis_url, table_id)
        if isinstance(e, events_pb2.ShuffleAnnounced) and e.hand == hand
    )


def test_a_hands_history_carries_the_shuffle_records_the_table_showed_before_it(
    platform: Platform, redis_url: str
) -> None:
    table_id, _ = _two_hands(platform)
    announced = _announced(redis_url, table_id, 2)
    request = table_pb2.GetHandHistoryRequest(table_id=table_id, hand_number=2)
    mine = platform.table("alice").GetHandHistory(request)
    assert len(mine.shuffles) == 1
    shuffle = mine.shuffles[0]
    assert shuffle.announced == announced
    assert shuffle.committed.shuffle_id == announced.shuffle_id
    assert shuffle.committed.commitment == announced.commitment
    assert shuffle.sealed.shuffle_id == announced.shuffle_id
    assert shuffle.revealed.shuffle_id == announced.shuffle_id and not shuffle.revealed.unused
    # A player's copy carries the public reveal (what a watcher is streamed): the commitment
    # and the positions root, neither the seed nor where each card went; and the player's
    # card proof, the openings of the cards it saw.
    public = json.loads(shuffle.revealed.reveal_json)
    assert public["commitment_hex"] == announced.commitment
    assert public["positions_root_hex"] == announced.positions_root
    assert "steps" not in public and "revealed_seed_hex" not in public
    proof = json.loads(shuffle.card_proof_json)
    assert proof["positions_root"] == announced.positions_root and proof["openings"]
    # A service's copy is the reveal as recorded.
    full = platform.table("ops", auth.Role.SERVICE).GetHandHistory(request)
    assert "steps" in json.loads(full.shuffles[0].revealed.reveal_json)


def test_verify_checks_the_dealers_reveal_against_the_commitment_the_table_showed(
    platform: Platform, redis_url: str
) -> None:
    table_id, _ = _two_hands(platform)
    seen = _announced(redis_url, table_id, 2).commitment
    result = _croupier(platform, "--as", "alice", "verify", "--table", table_id, "--hand", "2")
    assert result.exit_code == 0, result.output
    assert f"the table showed commitment {seen} before the hand" in result.output
    assert "MISMATCH" not in result.output
    # Without the seed (the table's default keeps it for auditors): her card proof, every
    # card she saw opened against the positions root the table showed before the hand.
    root = _announced(redis_url, table_id, 2).positions_root
    assert f"the table showed positions root {root} before the hand" in result.output
    proven = [line for line in result.output.splitlines() if " hole: " in line]
    assert len(proven) >= 2 and all(line.endswith(": ok") for line in proven), result.output
    assert "cards proven against the positions root" in result.output
    # The commitment the player noted before the hand is compared too.
    wrong = "00" * 32
    refused = _croupier(
        platform,
        "--as",
        "alice",
        "verify",
        "--table",
        table_id,
        "--hand",
        "2",
        "--commitment",
        wrong,
    )
    assert refused.exit_code == 1, refused.output
    assert f"MISMATCH (commitment): the table showed {seen}, not the {wrong}" in refused.output


def test_a_tables_hand_players_verify_the_whole_deck_with_the_seed(
    platform: Platform, redis_url: str
) -> None:
    table_id, _ = _two_hands(platform, events_pb2.SEED_REVEAL_HAND_PLAYERS)
    result = _croupier(platform, "--as", "alice", "verify", "--table", table_id, "--hand", "2")
    assert result.exit_code == 0, result.output
    # The hand's history places alice's own two cards in the committed order.
    received = [line for line in result.output.splitlines() if " alice: " in line]
    assert len(received) == 2 and all(line.endswith(": ok") for line in received), result.output
    assert "OK: all" in result.output


def test_verify_of_a_hand_the_table_never_dealt_is_one_line_and_exit_2(
    platform: Platform,
) -> None:
    table_id, _ = _two_hands(platform)
    result = _croupier(platform, "--as", "alice", "verify", "--table", table_id, "--hand", "99")
    assert result.exit_code == 2, result.output
    assert f"cannot verify hand 99 of table {table_id}" in result.output
