"""A closed table reveals every shuffle it committed ahead of time: the shuffles announced for
hands it will never deal are closed at the dealer and their records published in the
table's stream (ShuffleRevealed, `unused`), so every commitment a player was shown can be
checked with `croupier verify --commitment`. The table reads as closed only once they are.

Real Redis, dealer, ledger and table service over loopback."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from croupier.table.v1 import events_pb2, table_pb2
from services.client import cli
from services.shared import auth
from tests.fixtures.conditions import wait_until
from tests.integration.table.conftest import (
    Platform,
    act,
    create_table,
    passive_action,
    seat,
    view_of,
    wait_for_turn,
)
from tests.integration.table.test_idempotency import stored_events

pytestmark = pytest.mark.parametrize("platform", ["aio", "sync"], indirect=True)


def test_a_closed_table_reveals_every_shuffle_it_announced(
    platform: Platform, redis_url: str, tmp_path: Path
) -> None:
    table_id = create_table(platform, seats=2)
    players = {
        0: seat(platform, table_id, "alice", 0, 200),
        1: seat(platform, table_id, "bob", 1, 200),
    }
    assert wait_for_turn(players[0], table_id).hand_number == 1
    close = table_pb2.CloseTableRequest(table_id=table_id, idempotency_key="close")
    platform.table("house", auth.Role.ADMIN).CloseTable(close)
    deadline = time.monotonic() + 60
    while (view := view_of(players[0], table_id)).hand_in_progress:
        assert time.monotonic() < deadline, view
        mine = view_of(players[view.to_act], table_id) if view.to_act >= 0 else None
        if mine is None or mine.to_act != view.to_act or not mine.legal_actions:
            time.sleep(0.01)
            continue
        action, amount, cards = passive_action(mine)
        act(players[view.to_act], table_id, mine.hand_number, action, amount, cards)
    wait_until(
        lambda: view_of(players[0], table_id).status == table_pb2.TABLE_STATUS_CLOSED,
        60,
        "the table closed",
    )
    assert list(view_of(players[0], table_id).entropy_rounds) == []

    stored = stored_events(redis_url, table_id)
    announced = {
        e.shuffle_id: e.commitment for e in stored if isinstance(e, events_pb2.ShuffleAnnounced)
    }
    reveals = {e.shuffle_id: e for e in stored if isinstance(e, events_pb2.ShuffleRevealed)}
    assert set(announced) == {f"{table_id}.hand-{n}" for n in (1, 2, 3)}
    assert set(reveals) == set(announced)  # every commitment is revealed
    assert not reveals[f"{table_id}.hand-1"].unused  # (dealt, then revealed after the hand)
    for hand in (2, 3):
        reveal = reveals[f"{table_id}.hand-{hand}"]
        assert reveal.unused and reveal.hand == hand
        record = json.loads(reveal.reveal_json)
        assert record.get("steps", []) == []  # no card was dealt from it
        path = tmp_path / f"hand-{hand}.json"
        path.write_text(reveal.reveal_json)
        verified = CliRunner().invoke(
            cli.app, ["verify", str(path), "--commitment", announced[reveal.shuffle_id]]
        )
        assert verified.exit_code == 0, verified.output
