"""`croupier verify` reads what a player actually gets: the table's ShuffleRevealed record (as
standard protobuf JSON), the commitment the player saw before the hand, and the player's own
hand history, and checks every card the history shows against its committed position."""

from __future__ import annotations

import time
from pathlib import Path

from google.protobuf.json_format import MessageToJson
from typer.testing import CliRunner

from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.client import cli
from tests.integration.table.conftest import Platform, act, create_table, seat, view_of
from tests.integration.table.test_idempotency import stored_events

A = table_pb2
runner = CliRunner()


def play_hand(stubs: dict[str, table_pb2_grpc.TableServiceStub], table_id: str, hand: int) -> None:
    """Check or call every decision of `hand`, to its showdown."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        view = view_of(stubs["alice"], table_id)
        if view.hand_number > hand or (view.hand_number == hand and not view.hand_in_progress):
            return
        if view.hand_number < hand or view.to_act < 0:
            time.sleep(0.02)
            continue
        player = view.seats[view.to_act].player_id
        legal = {a.action for a in view_of(stubs[player], table_id).legal_actions}
        for action in (A.ACTION_CHECK, A.ACTION_CALL, A.ACTION_SHOW):
            if action in legal:
                act(stubs[player], table_id, hand, action)
                break
    raise AssertionError(f"hand {hand} did not end")


def fold(stubs: dict[str, table_pb2_grpc.TableServiceStub], table_id: str, hand: int) -> None:
    deadline = time.monotonic() + 60
    while True:
        view = view_of(stubs["alice"], table_id)
        if view.hand_number == hand and view.to_act >= 0:
            break
        assert time.monotonic() < deadline
        time.sleep(0.02)
    act(stubs[view.seats[view.to_act].player_id], table_id, hand, A.ACTION_FOLD)


def reveal_record(redis_url: str, table_id: str, hand: int, tmp_path: Path) -> Path:
    """The table's ShuffleRevealed for `hand`, as standard (camelCase) protobuf JSON."""
    deadline = time.monotonic() + 30
    while True:
        found = [
            e
            for e in stored_events(redis_url, table_id)
            if isinstance(e, events_pb2.ShuffleRevealed) and e.hand == hand
        ]
        if found or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    path = tmp_path / f"revealed-{hand}.json"
    path.write_text(MessageToJson(found[0]))
    assert '"revealJson"' in path.read_text()
    return path


def watched_reveal(
    stub: table_pb2_grpc.TableServiceStub, table_id: str, hand: int
) -> events_pb2.TableEvent:
    """The ShuffleRevealed of `hand` as the table streams it to a watcher (a TableEvent)."""
    stream = stub.WatchTable(
        table_pb2.WatchTableRequest(table_id=table_id, from_version=1), timeout=60
    )
    for message in stream:
        events = [message.event] if message.HasField("event") else list(message.events.events)
        for event in events:
            if (
                event.WhichOneof("event") == "shuffle_revealed"
                and event.shuffle_revealed.hand == hand
            ):
                stream.cancel()
                return event
    raise AssertionError(f"no ShuffleRevealed for hand {hand}")


def phh_of(stub: table_pb2_grpc.TableServiceStub, table_id: str, hand: int, path: Path) -> Path:
    reply = stub.GetHandHistory(
        table_pb2.GetHandHistoryRequest(table_id=table_id, hand_number=hand)
    )
    path.write_text(reply.phh)
    return path


def test_a_player_verifies_the_commitment_they_saw_and_every_card_they_received(
    platform: Platform, redis_url: str, tmp_path: Path
) -> None:
    # (a table that gives every watcher the seed: its watchers' reveal checks the cards too;
    # by default the seed stays with auditors, tests/integration/table/test_private_reveal.py)
    table_id = create_table(platform, seats=2, seed_reveal=events_pb2.SEED_REVEAL_EVERYONE)
    alice = seat(platform, table_id, "alice", 0, 200)
    bob = seat(platform, table_id, "bob", 1, 200)
    stubs = {"alice": alice, "bob": bob}
    fold(stubs, table_id, 1)
    # Hand 2's commitment, announced (and public) before hand 2 dealt a card.
    seen = next(
        e.commitment
        for e in stored_events(redis_url, table_id)
        if isinstance(e, events_pb2.ShuffleAnnounced) and e.hand == 2
    )
    play_hand(stubs, table_id, 2)
    record = reveal_record(redis_url, table_id, 2, tmp_path)
    history = phh_of(alice, table_id, 2, tmp_path / "alice-2.phh")
    result = runner.invoke(
        cli.app, ["verify", str(record), "--commitment", seen, "--history", str(history)]
    )
    assert result.exit_code == 0, result.output
    assert "MISMATCH" not in result.output
    mine = [line for line in result.output.splitlines() if " alice: " in line]
    assert len(mine) == 2 and all(line.endswith(": ok") for line in mine), result.output
    assert "board: " in result.output
    # What a watcher of the table receives is a shorter reveal (seed, commitment and
    # contributions): her cards still check against the order it derives.
    watched = tmp_path / "watched-2.json"
    watched.write_text(MessageToJson(watched_reveal(alice, table_id, 2)))
    result = runner.invoke(
        cli.app, ["verify", str(watched), "--commitment", seen, "--history", str(history)]
    )
    assert result.exit_code == 0, result.output
    assert "the revealed seed matches the commitment" in result.output
    assert len([line for line in result.output.splitlines() if " alice: " in line]) == 2
    assert "MISMATCH" not in result.output
    # The commitment she saw must be the record's: another one fails.
    other = runner.invoke(cli.app, ["verify", str(record), "--commitment", "00" * 32])
    assert other.exit_code == 1 and "MISMATCH (commitment)" in other.output
    # A history that gives her another card than the committed order does fails.
    text = history.read_text()
    dealt = next(line for line in text.splitlines() if "d dh p" in line and "????" not in line)
    cards = dealt.strip().strip('",').split()[-1]
    swapped = cards[2:] + cards[:2]
    history.write_text(text.replace(cards, swapped, 1))
    tampered = runner.invoke(cli.app, ["verify", str(record), "--history", str(history)])
    assert tampered.exit_code == 1 and "MISMATCH: the committed order has" in tampered.output


def test_hand_one_warns_it_took_no_player_entropy_and_hides_the_opponents_cards(
    platform: Platform, redis_url: str, tmp_path: Path
) -> None:
    table_id = create_table(platform, seats=2)
    alice = seat(platform, table_id, "alice", 0, 200)
    stubs = {"alice": alice, "bob": seat(platform, table_id, "bob", 1, 200)}
    fold(stubs, table_id, 1)
    record = reveal_record(redis_url, table_id, 1, tmp_path)
    history = phh_of(alice, table_id, 1, tmp_path / "alice-1.phh")
    result = runner.invoke(cli.app, ["verify", str(record), "--history", str(history)])
    assert result.exit_code == 0, result.output
    assert "WARNING: no player entropy" in result.output
    assert "(2 hidden in this history)" in result.output  # bob's cards, never shown
    strict = runner.invoke(cli.app, ["verify", str(record), "--strict"])
    assert strict.exit_code == 1
