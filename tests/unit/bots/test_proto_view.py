"""The TableView proto as the bots read it, and bot ids that name their policy."""

from __future__ import annotations

from croupier.table.v1 import table_pb2
from services.bots.identity import bot_id, bot_identity
from services.bots.proto_view import is_my_decision, to_act_request, to_bot_view
from services.bots.view import BotAction, Kind, Variant

A = table_pb2


def spit_view() -> table_pb2.TableView:
    return A.TableView(
        table_id="t1",
        version=41,
        options=A.TableOptions(game=A.GAME_SPIT_IN_THE_OCEAN, ante=1, small_bet=2),
        seats=[
            A.SeatView(
                seat=0, stack=90, bet=4, committed=5, in_hand=True, cards=["Ah", "Ad", "9h", "4c"]
            ),
            A.SeatView(seat=1, stack=80, bet=6, committed=7, in_hand=True, cards=["??"] * 4),
            A.SeatView(seat=2, stack=50, in_hand=True, folded=True, cards=["??"] * 4),
        ],
        hand_number=3,
        hand_in_progress=True,
        board=["9s"],
        pots=[A.PotView(amount=12)],
        to_act=0,
        viewer_seat=0,
        current_bet=6,
        action_number=5,
        legal_actions=[
            A.LegalAction(action=A.ACTION_FOLD),
            A.LegalAction(action=A.ACTION_CALL),
            A.LegalAction(action=A.ACTION_RAISE, min_amount=8, max_amount=8),
        ],
    )


def test_a_table_view_becomes_the_bot_view_of_the_seat_to_act() -> None:
    view = spit_view()
    assert is_my_decision(view)
    bot = to_bot_view(view)
    assert bot.variant is Variant.SPIT and bot.wild_rank == "9"
    assert bot.hole == ("Ah", "Ad", "9h", "4c") and bot.board == ("9s",)
    assert (bot.pot, bot.to_call, bot.bet, bot.opponents, bot.unit) == (12, 2, 4, 1, 2)
    raise_range = bot.find(Kind.RAISE)
    assert raise_range is not None
    assert raise_range.min_amount == 8


def test_a_bot_action_becomes_an_act_request_pinned_to_the_view() -> None:
    request = to_act_request(spit_view(), BotAction(Kind.RAISE, amount=8), "bot/t1/3/5")
    assert (request.hand_number, request.action, request.amount) == (3, A.ACTION_RAISE, 8)
    assert (request.expected_version, request.idempotency_key) == (41, "bot/t1/3/5")


def test_not_my_turn_is_not_my_decision() -> None:
    view = spit_view()
    view.to_act = 1
    assert not is_my_decision(view)


def test_bot_ids_name_policy_and_difficulty_and_other_players_get_the_default() -> None:
    assert bot_identity(bot_id("equity", "ann", 0.75)) == ("equity", 0.75)
    assert bot_identity("alice") == ("tight", 0.5)
    assert "-" in bot_id("random", "x") and ":" not in bot_id("random", "x")
