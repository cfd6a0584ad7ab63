"""Mucked and folded hands stay private after the hand: a spectator's watch stream, hand
history and the dealer's public record give no seed, so nobody rebuilds an unshown hand from
them; each player proves the cards it saw (its own, the board) with their openings against the
positions root the table announced before the hand; an auditor's seed checks the whole deck;
the table's seed_reveal policy hands the seed to the hand's players or to everyone instead."""

from __future__ import annotations

import base64
import json
import re
import time
from pathlib import Path

from google.protobuf.json_format import MessageToJson
from typer.testing import CliRunner

from croupier.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.client import cli
from services.games.cards import standard_deck
from services.shared import auth
from services.shared.channels import connect
from services.shuffles.derivation import Contribution
from services.shuffles.history import hand_history_json, history_from_info
from services.shuffles.positions import mixed_order
from tests.integration.table.conftest import KEY, Platform, create_table, seat
from tests.integration.table.test_idempotency import stored_events
from tests.integration.table.test_verify_received import fold, play_hand

runner = CliRunner()
SEED_HEX = re.compile(
    r'"(?:revealed_seed_hex|revealedSeed|revealed_seed|server_seed)"\s*:\s*"([^"]+)"'
)


def three_handed(
    platform: Platform, **options: object
) -> tuple[str, dict[str, table_pb2_grpc.TableServiceStub]]:
    table_id = create_table(platform, seats=3, min_players_to_start=3, **options)  # type: ignore[arg-type]
    stubs = {
        "alice": seat(platform, table_id, "alice", 0, 200),
        "bob": seat(platform, table_id, "bob", 1, 200),
        "carol": seat(platform, table_id, "carol", 2, 200),
    }
    return table_id, stubs


def watched(platform: Platform, table_id: str, viewer: str, hand: int) -> str:
    """Everything `viewer`'s WatchTable streams up to `hand`'s reveal, as JSON text."""
    stream = platform.table(viewer).WatchTable(
        table_pb2.WatchTableRequest(table_id=table_id, from_version=1), timeout=60
    )
    seen: list[str] = []
    for message in stream:
        events = [message.event] if message.HasField("event") else list(message.events.events)
        for event in events:
            seen.append(MessageToJson(event))
            if (
                event.WhichOneof("event") == "shuffle_revealed"
                and event.shuffle_revealed.hand == hand
            ):
                stream.cancel()
                return "\n".join(seen)
    raise AssertionError(f"no reveal of hand {hand} in {viewer}'s stream")


def history_of(
    platform: Platform, table_id: str, viewer: str, hand: int
) -> table_pb2.GetHandHistoryResponse:
    return platform.table(viewer).GetHandHistory(
        table_pb2.GetHandHistoryRequest(table_id=table_id, hand_number=hand)
    )


def seeds_in(text: str) -> list[bytes]:
    """Every seed a text (JSON, or JSON held in JSON strings) carries: hex, or base64 as
    protobuf JSON writes bytes."""
    unescaped = text.replace('\\"', '"')
    found = []
    for value in SEED_HEX.findall(unescaped):
        try:
            found.append(bytes.fromhex(value))
        except ValueError:
            found.append(base64.b64decode(value))
    return [seed for seed in found if seed]


def own_cards(platform: Platform, table_id: str, player: str, hand: int) -> list[str]:
    """`player`'s hole cards, from its own history (PHH: players in order, "d dh pN ...")."""
    phh = history_of(platform, table_id, player, hand).phh
    found = re.search(r"^players = (\[.*\])$", phh, re.MULTILINE)
    assert found, phh
    number = json.loads(found.group(1)).index(player) + 1
    line = next(line for line in phh.splitlines() if f'"d dh p{number} ' in line)
    cards = line.strip().strip('",').split()[-1]
    return [cards[:2], cards[2:]]


def shown_cards(phh: str) -> set[str]:
    """The hole cards shown down ("pN sm XxYy")."""
    shown = re.findall(r'"p\d sm (\w+)"', phh)
    return {cards[i : i + 2] for cards in shown for i in range(0, len(cards), 2)}


def play_with_a_fold(
    platform: Platform, table_id: str, stubs: dict[str, table_pb2_grpc.TableServiceStub], hand: int
) -> str:
    """The first to act folds; the others check or call down. The folder's name."""
    deadline = time.monotonic() + 60
    while True:
        view = stubs["alice"].GetTableView(table_pb2.GetTableViewRequest(table_id=table_id)).view
        if view.hand_number == hand and view.to_act >= 0:
            break
        assert time.monotonic() < deadline
        time.sleep(0.02)
    folder = view.seats[view.to_act].player_id
    fold(stubs, table_id, hand)
    play_hand(stubs, table_id, hand)
    return folder


def announced(redis_url: str, table_id: str, hand: int) -> events_pb2.ShuffleAnnounced:
    return next(
        e
        for e in stored_events(redis_url, table_id)
        if isinstance(e, events_pb2.ShuffleAnnounced) and e.hand == hand
    )


def dealer_as(
    platform: Platform, subject: str, role: auth.Role
) -> dealer_pb2_grpc.DealerServiceStub:
    channel = connect(
        f"127.0.0.1:{platform.dealer_port}", auth.issue_token(KEY, subject, role, 600)
    )
    platform.channels.append(channel)
    return dealer_pb2_grpc.DealerServiceStub(channel)


def test_a_spectator_cannot_rebuild_a_folded_hand_and_each_player_proves_its_own_cards(
    platform: Platform, redis_url: str, tmp_path: Path
) -> None:
    table_id, stubs = three_handed(platform)
    folder = play_with_a_fold(platform, table_id, stubs, 1)
    hidden = own_cards(platform, table_id, folder, 1)
    # Everything a spectator is given: the watch stream, the hand history, the dealer's record.
    stream = watched(platform, table_id, "sam", 1)
    history = history_of(platform, table_id, "sam", 1)
    sid = history.shuffles[0].revealed.shuffle_id
    public = (
        dealer_as(platform, "sam", auth.Role.PLAYER)
        .GetShuffle(dealer_pb2.GetShuffleRequest(shuffle_id=sid))
        .shuffle
    )
    given = "\n".join([stream, MessageToJson(history), MessageToJson(public)])
    # No seed anywhere, so no order to rebuild the folded hand from ...
    seeds = seeds_in(given) + ([public.revealed_seed] if public.revealed_seed else [])
    rebuilt: set[str] = set()
    for seed in seeds:
        contributions = [Contribution(c.contributor, c.entropy) for c in public.contributions]
        rebuilt |= {str(c) for c in mixed_order(seed, sid, contributions, 0, standard_deck())[:6]}
    assert not (set(hidden) & rebuilt), f"a spectator rebuilt {folder}'s folded {hidden}"
    assert not seeds
    # ... and no card of it in the dealer's record, the history or the spectator's proof.
    assert not public.steps
    proof = json.loads(history.shuffles[0].card_proof_json)
    assert not {o["card"] for o in proof["openings"]} & set(hidden)
    assert "????" in history.phh
    shown = shown_cards(history.phh)
    board = {o["card"] for o in proof["openings"] if o["purpose"] == "board"}
    assert len(board) == 5 and len(shown) == 4  # the two hands called down were shown
    assert {o["card"] for o in proof["openings"] if o["purpose"] == "hole"} == shown

    # Each player proves its own hole cards and the board against the announced root.
    root = announced(redis_url, table_id, 1)
    assert root.positions_root and len(root.positions_root) == 64
    for player in ("alice", "bob", "carol"):
        mine = history_of(platform, table_id, player, 1)
        path = tmp_path / f"{player}-proof.json"
        path.write_text(mine.shuffles[0].card_proof_json)
        opened = json.loads(path.read_text())["openings"]
        holes = {o["card"] for o in opened if o["purpose"] == "hole"}
        assert len([o for o in opened if o["purpose"] == "board"]) == 5
        # its own cards and the hands shown down; never another player's unshown card
        assert holes == set(own_cards(platform, table_id, player, 1)) | shown
        assert player == folder or not holes & set(hidden)
        args = ["verify", str(path), "--positions-root", root.positions_root]
        result = runner.invoke(cli.app, [*args, "--commitment", root.commitment])
        assert result.exit_code == 0, result.output
        count = len(opened)
        assert f"OK: {count} of {count} cards proven" in result.output, result.output
        # A card the hand did not deal there fails.
        tampered = json.loads(path.read_text())
        tampered["openings"][0]["card"] = (
            hidden[0] if player != folder else tampered["openings"][-1]["card"]
        )
        path.write_text(json.dumps(tampered))
        bad = runner.invoke(cli.app, [*args])
        assert bad.exit_code == 1 and "MISMATCH" in bad.output, bad.output

    # The auditor reads the seed and every card, and checks the whole deck and the root.
    audited = (
        dealer_as(platform, "audit", auth.Role.AUDITOR)
        .GetShuffle(dealer_pb2.GetShuffleRequest(shuffle_id=sid))
        .shuffle
    )
    assert audited.revealed_seed and audited.steps
    record = tmp_path / "audit.json"
    record.write_text(json.dumps(hand_history_json(history_from_info(audited))))
    result = runner.invoke(cli.app, ["verify", str(record), "--commitment", root.commitment])
    assert result.exit_code == 0 and "OK: all" in result.output, result.output
    dealt = [c for s in audited.steps for c in s.deal.cards]
    assert set(hidden) <= set(dealt)


def test_the_seed_reveal_policy_names_who_gets_the_seed(
    platform: Platform, redis_url: str, tmp_path: Path
) -> None:
    players_only, stubs = three_handed(platform, seed_reveal=events_pb2.SEED_REVEAL_HAND_PLAYERS)
    play_with_a_fold(platform, players_only, stubs, 1)
    assert seeds_in(MessageToJson(history_of(platform, players_only, "alice", 1)))
    assert not seeds_in(MessageToJson(history_of(platform, players_only, "sam", 1)))
    assert not seeds_in(watched(platform, players_only, "sam", 1))
    everyone, stubs = three_handed(platform, seed_reveal=events_pb2.SEED_REVEAL_EVERYONE)
    play_with_a_fold(platform, everyone, stubs, 1)
    assert seeds_in(watched(platform, everyone, "sam", 1))
    assert seeds_in(MessageToJson(history_of(platform, everyone, "sam", 1)))
    # The option reads back as created; unspecified is auditors only.
    default, _ = three_handed(platform)
    for table_id, policy in (
        (players_only, events_pb2.SEED_REVEAL_HAND_PLAYERS),
        (everyone, events_pb2.SEED_REVEAL_EVERYONE),
        (default, events_pb2.SEED_REVEAL_AUDITORS),
    ):
        view = stubs["alice"].GetTableView(table_pb2.GetTableViewRequest(table_id=table_id))
        assert view.view.options.seed_reveal == policy
