"""A bot's turn on a busy table, over real gRPC: when other players' commands beat every
attempt's Act (ABORTED each time), the turn is reported busy (Unavailable: the worker's task
retries, the SDK looks again), never stale. Stale would leave the decision to the timeout,
because the table asks for a decision again only when the hand changes."""

from __future__ import annotations

import random
import uuid

import pytest

from croupier.table.v1 import table_pb2
from services.bots.betting import call_or_check
from services.bots.remote import TurnResult, play_turn
from services.bots.view import BotAction, BotView
from services.shared import auth
from services.shared.errors import Unavailable
from services.table.ports import NoScheduler
from tests.integration.table.conftest import create_table, view_of

from .table_stack import seat_bot, table_stack

pytestmark = pytest.mark.integration


def test_a_turn_that_loses_every_attempt_to_other_writes_is_busy_not_stale(redis_url: str) -> None:
    with table_stack(redis_url, f"ledger-busy-{uuid.uuid4().hex[:6]}", NoScheduler()) as platform:
        table_id = create_table(platform, seats=3)
        names = [f"busy-bot-{seat_no}-{uuid.uuid4().hex[:6]}" for seat_no in range(3)]
        stubs = [
            seat_bot(platform, table_id, name, seat_no, 400) for seat_no, name in enumerate(names)
        ]
        house = platform.table("house", auth.Role.ADMIN)
        table = view_of(house, table_id)
        assert table.hand_number >= 1 and table.to_act >= 0
        bot = stubs[table.to_act]
        other = stubs[next(s for s in range(3) if s != table.to_act)]
        writes: list[int] = []

        def choose_while_others_write(
            view: BotView, _table: table_pb2.TableView, _rng: random.Random
        ) -> BotAction:
            # Another player sits out or back in (for the next hand) while this bot thinks:
            # one more event, so the Act sent with the version decided on is ABORTED.
            key = f"toggle-{len(writes)}"
            if len(writes) % 2 == 0:
                other.SitOut(table_pb2.SitOutRequest(table_id=table_id, idempotency_key=key))
            else:
                other.SitIn(table_pb2.SitInRequest(table_id=table_id, idempotency_key=key))
            writes.append(len(writes))
            return call_or_check(view)

        asked = f"hand {table.hand_number} decision {table.action_number}"
        with pytest.raises(Unavailable, match=f"changed under 3 attempts at {asked}:"):
            play_turn(
                bot,
                (),
                table_id,
                choose_while_others_write,
                random.Random(1),
                "busy-turn",
                hand_number=table.hand_number,
                action_number=table.action_number,
            )
        after = view_of(house, table_id)
        # Nothing was applied for the bot, and the decision is still its own.
        assert (after.hand_number, after.action_number, after.to_act) == (
            table.hand_number,
            table.action_number,
            table.to_act,
        )
        assert after.version > table.version

        # Asked again (as the worker's retry does), with the table quiet: it acts.
        result = play_turn(
            bot,
            (),
            table_id,
            lambda view, _table, _rng: call_or_check(view),
            random.Random(1),
            "busy-turn",
            hand_number=table.hand_number,
            action_number=table.action_number,
        )
        assert result is TurnResult.ACTED
        assert view_of(house, table_id).version > after.version
