from croupier.table.v1 import table_pb2
from services.workers.bot_seats import buy_in_for, seated_bot_id
from services.workers.bot_turns import bot_identity


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
