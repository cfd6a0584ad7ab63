from croupier.table.v1 import table_pb2
from services.bots.identity import bot_identity
from services.workers.bot_seats import all_bought_in, buy_in_for, seated_bot_id, unseated_bots
from services.workers.ports import BotSeatRequest
from services.workers.seat_give_ups import InMemorySeatGiveUps, backoff, resend_due


def test_a_seated_bot_brings_100_big_blinds_within_the_buy_in_range() -> None:
    assert buy_in_for(table_pb2.TableOptions(big_blind=2, min_buy_in=20, max_buy_in=1000)) == 200
    assert buy_in_for(table_pb2.TableOptions(big_blind=20, min_buy_in=20, max_buy_in=1000)) == 1000
    assert buy_in_for(table_pb2.TableOptions(big_blind=1, min_buy_in=500, max_buy_in=1000)) == 500


def test_an_ante_table_bot_brings_200_antes() -> None:
    assert buy_in_for(table_pb2.TableOptions(ante=5, min_buy_in=10)) == 1000


def test_a_seated_bot_id_names_its_policy_and_difficulty() -> None:
    player = seated_bot_id("t1", 2, "tight", 0.5)
    assert player == "bot-tight-50-t1-s2"
    assert bot_identity(player) == ("tight", 0.5)


def test_only_requested_bots_that_never_bought_in_are_seated_again() -> None:
    requested = [("random", 0.0), ("tight", 0.5), ("equity", 0.75)]
    ever = [seated_bot_id("t1", 1, "tight", 0.5), "bot-random-0-someone-else"]
    missing = unseated_bots("t1", requested, ever, free_seats=4)
    assert missing == [
        BotSeatRequest("t1", 0, "random", 0.0),
        BotSeatRequest("t1", 2, "equity", 0.75),
    ]


def test_no_bot_is_seated_again_at_a_full_table_and_at_most_one_per_free_seat() -> None:
    requested = [("random", 0.0), ("tight", 0.5)]
    assert unseated_bots("t1", requested, [], free_seats=0) == []
    assert unseated_bots("t1", requested, [], free_seats=1) == [
        BotSeatRequest("t1", 0, "random", 0.0)
    ]


def test_the_backoff_doubles_from_ten_seconds_up_to_ten_minutes() -> None:
    assert [backoff(n) for n in range(8)] == [0.0, 10.0, 20.0, 40.0, 80.0, 160.0, 320.0, 600.0]
    assert backoff(10_000) == 600.0
    assert resend_due(0, 0.0, now=0.0)
    assert not resend_due(1, 50.0, now=59.9)
    assert resend_due(1, 50.0, now=60.0)


def test_a_table_is_done_once_every_requested_bot_bought_in_or_none_was_requested() -> None:
    requested = [("random", 0.0), ("tight", 0.5)]
    first = seated_bot_id("t1", 0, "random", 0.0)
    second = seated_bot_id("t1", 1, "tight", 0.5)
    assert all_bought_in("t1", [], [])
    assert not all_bought_in("t1", requested, [first])
    assert all_bought_in("t1", requested, [second, "bot-random-0-other", first])


def test_a_give_up_of_a_try_sent_before_the_last_one_neither_doubles_nor_restarts_the_wait() -> (
    None
):
    stuck = BotSeatRequest("t1", 0, "random", 0.0)
    give_ups = InMemorySeatGiveUps()
    give_ups.record(stuck, now=100.0)
    give_ups.record(stuck, now=101.5)  # a re-send that was on its way, on a slow worker
    assert give_ups.due([stuck], now=100.0 + backoff(1)) == [stuck]
    give_ups.record(stuck, now=100.0 + backoff(1))  # a try that was due: this one counts
    assert give_ups.due([stuck], now=100.0 + backoff(1) + backoff(2) - 0.1) == []
