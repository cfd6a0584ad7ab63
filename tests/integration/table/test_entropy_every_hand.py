"""Every hand's deck takes every seated player's entropy, hand 1 included: the players' SDK
(`EntropyContributor`) answers the rounds the table shows, the deck depends on each revealed
contribution, and `croupier verify` reproduces it from the record with the commitment the
player saw before the hand. A player who commits and never reveals is left out when the
reveal window ends: the hand neither stalls nor takes an entropy chosen after the others'.

Real Redis, the real dealer, ledger and table service (grpc.aio) over loopback; the players
use the client SDK as any program would.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from typer.testing import CliRunner

from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.client import cli
from services.games.cards import standard_deck
from services.sdk import ClientSettings, EntropyContributor, TableClient
from services.shared import auth
from services.shuffles.derivation import Contribution, entropy_commitment
from services.shuffles.positions import mixed_order
from tests.fixtures.conditions import wait_until
from tests.integration.table.conftest import KEY, Platform, act, create_table, seat, view_of
from tests.integration.table.test_idempotency import stored_events

A = table_pb2
COMMIT_MS = 3_000
REVEAL_MS = 1_500
pytestmark = pytest.mark.entropy_windows(COMMIT_MS, REVEAL_MS)


class Contributing:
    """A player's SDK client answering the table's entropy rounds from its watch."""

    def __init__(self, platform: Platform, player: str, table_id: str) -> None:
        token = auth.issue_token(KEY, player, auth.Role.PLAYER, 600)
        self.tables = TableClient(ClientSettings(table=f"127.0.0.1:{platform.port}", token=token))
        self.entropy = EntropyContributor(self.tables)
        self.watch = self.tables.watch(table_id)
        self.thread = threading.Thread(target=self._run, args=(table_id,), daemon=True)
        self.thread.start()

    def _run(self, table_id: str) -> None:
        for item in self.watch:
            self.entropy.on_item(table_id, item)

    def sent(self, shuffle_id: str) -> bytes:
        return next(c.entropy for c in self.entropy.contributed if c.shuffle_id == shuffle_id)

    def close(self) -> None:
        self.watch.close()
        self.thread.join(10)
        self.tables.close()


@pytest.fixture
def contributors() -> Iterator[list[Contributing]]:
    started: list[Contributing] = []
    yield started
    for c in started:
        c.close()


def revealed(redis_url: str, table_id: str, hand: int) -> dict[str, Any]:
    """The dealer's record of `hand`'s shuffle, from the table's ShuffleRevealed."""

    def reveals() -> list[events_pb2.ShuffleRevealed]:
        stored = stored_events(redis_url, table_id)
        return [e for e in stored if isinstance(e, events_pb2.ShuffleRevealed) and e.hand == hand]

    wait_until(lambda: bool(reveals()), 30, f"hand {hand}'s shuffle revealed")
    record: dict[str, Any] = json.loads(reveals()[0].reveal_json)
    return record


def announced(redis_url: str, table_id: str, hand: int) -> str:
    """The commitment a player saw for `hand`'s shuffle before the hand (ShuffleAnnounced)."""
    found = [
        e.commitment
        for e in stored_events(redis_url, table_id)
        if isinstance(e, events_pb2.ShuffleAnnounced) and e.hand == hand
    ]
    assert found, f"hand {hand}'s shuffle was never announced"
    return found[0]


def play_hand(stubs: dict[str, table_pb2_grpc.TableServiceStub], table_id: str, hand: int) -> None:
    """Check or call every decision of `hand` (once it is dealt) until it ends."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        view = view_of(next(iter(stubs.values())), table_id)
        if view.hand_number > hand or (view.hand_number == hand and not view.hand_in_progress):
            return
        if view.hand_number < hand or view.to_act < 0:
            time.sleep(0.02)  # (dealing, or waiting for the players' entropy)
            continue
        player = view.seats[view.to_act].player_id
        legal = {a.action for a in view_of(stubs[player], table_id).legal_actions}
        for action in (A.ACTION_CHECK, A.ACTION_CALL, A.ACTION_SHOW):
            if action in legal:
                act(stubs[player], table_id, hand, action)
                break
    raise AssertionError(f"hand {hand} did not end")


def dealt_cards(record: dict[str, Any]) -> list[str]:
    return [card for s in record["steps"] for card in s["deal"]["cards"]]


def order(record: dict[str, Any], contributions: list[Contribution]) -> list[str]:
    seed = bytes.fromhex(record["revealed_seed_hex"])
    shuffle_id = record["shuffle_id"]
    return [str(c) for c in mixed_order(seed, shuffle_id, contributions, 0, standard_deck())]


def verify(path: Path, *options: str) -> str:
    result = CliRunner().invoke(cli.app, ["verify", str(path), *options])
    assert result.exit_code == 0, result.output
    return result.output


def test_every_hand_mixes_in_every_players_entropy_and_the_verifier_reproduces_it(
    platform: Platform, redis_url: str, tmp_path: Path, contributors: list[Contributing]
) -> None:
    table_id = create_table(platform, seats=2)
    stubs = {}
    for i, player in enumerate(("alice", "bob")):
        stubs[player] = seat(platform, table_id, player, i, 200)
        contributors.append(Contributing(platform, player, table_id))
    for hand in (1, 2, 3):
        play_hand(stubs, table_id, hand)
    for hand in (1, 2, 3):
        record = revealed(redis_url, table_id, hand)
        shuffle_id = record["shuffle_id"]
        sent = {
            name: c.sent(shuffle_id) for name, c in zip(("alice", "bob"), contributors, strict=True)
        }
        contributions = [
            Contribution(c["contributor"], base64.b64decode(c["entropy"]))
            for c in record["contributions"]
        ]
        assert {c.contributor: c.entropy for c in contributions} == sent, hand
        dealt = dealt_cards(record)
        assert order(record, contributions)[: len(dealt)] == dealt
        for dropped in range(len(contributions)):
            fewer = contributions[:dropped] + contributions[dropped + 1 :]
            assert order(record, fewer)[: len(dealt)] != dealt  # every entropy counts
        path = tmp_path / f"hand-{hand}.json"
        path.write_text(json.dumps(record))
        output = verify(
            path,
            "--commitment",
            announced(redis_url, table_id, hand),
            "--contributor",
            "alice",
            "--entropy",
            sent["alice"].hex(),
            "--strict",  # no warning either: no withheld commitment, player entropy in
        )
        assert "alice" in output and "bob" in output


def test_a_player_who_commits_and_never_reveals_neither_stalls_nor_steers_the_hand(
    platform: Platform, redis_url: str, tmp_path: Path, contributors: list[Contributing]
) -> None:
    table_id = create_table(platform, seats=2)
    mallory = seat(platform, table_id, "mallory", 0, 200)
    alice = seat(platform, table_id, "alice", 1, 200)  # hand 1's shuffle is announced now
    shuffle_id = f"{table_id}.hand-1"
    withheld = b"mallory keeps these bytes to herself"
    mallory.ContributeEntropy(
        A.ContributeEntropyRequest(
            table_id=table_id,
            hand_number=1,
            entropy_commitment=entropy_commitment(shuffle_id, "mallory", withheld),
        )
    )
    contributors.append(Contributing(platform, "alice", table_id))
    # Both committed: sealed at once; alice reveals, mallory never does. The hand starts when
    # the reveal window ends, without her.
    play_hand({"mallory": mallory, "alice": alice}, table_id, 1)
    record = revealed(redis_url, table_id, 1)
    assert [(c["contributor"], c.get("revealed", False)) for c in record["commitments"]] == [
        ("mallory", False),
        ("alice", True),
    ]
    alice_entropy = contributors[0].sent(shuffle_id)
    assert [(c["contributor"], c["entropy"]) for c in record["contributions"]] == [
        ("alice", base64.b64encode(alice_entropy).decode())
    ]
    dealt = dealt_cards(record)
    assert order(record, [Contribution("alice", alice_entropy)])[: len(dealt)] == dealt
    # Revealing now, after the first card, is refused: her entropy can no longer count.
    with pytest.raises(grpc.RpcError) as late:
        mallory.ContributeEntropy(
            A.ContributeEntropyRequest(table_id=table_id, hand_number=1, entropy=withheld)
        )
    assert late.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    path = tmp_path / "hand-1.json"
    path.write_text(json.dumps(record))
    output = verify(path, "--commitment", announced(redis_url, table_id, 1))
    assert "withheld" in output.lower() or "mallory" in output


def test_the_first_hands_shuffle_waits_for_the_table_to_fill_and_takes_every_players_entropy(
    platform: Platform, redis_url: str, contributors: list[Contributing]
) -> None:
    table_id = create_table(platform, seats=3, min_players_to_start=3)
    stubs = {}
    for i, player in enumerate(("alice", "bob", "carol")):
        stubs[player] = seat(platform, table_id, player, i, 200)
        contributors.append(Contributing(platform, player, table_id))
        if i < 2:
            # Seated players who answer at once: nothing is announced (and so nothing sealed
            # without the player still to come) while the table waits for its third.
            shuffles = [
                e
                for e in stored_events(redis_url, table_id)
                if isinstance(e, events_pb2.ShuffleAnnounced | events_pb2.ShuffleSealed)
            ]
            assert shuffles == [], shuffles
    play_hand(stubs, table_id, 1)
    record = revealed(redis_url, table_id, 1)
    assert sorted(c["contributor"] for c in record["contributions"]) == ["alice", "bob", "carol"]
