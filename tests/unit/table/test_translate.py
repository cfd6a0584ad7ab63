"""The TableView the service sends: what its fields mean between hands."""

from __future__ import annotations

from croupier.table.v1 import table_pb2
from services.games.views import View
from services.table import translate


def _view(hand: int | None) -> table_pb2.TableView:
    view = View(viewer=None, game="texas-holdem", structure="no-limit", seats=(), hand=hand)
    return translate.view_to_proto(view, "t1", 80, table_pb2.TableOptions(), (), 0, 0, last_hand=4)


def test_between_hands_the_view_names_the_last_hand_and_no_hand_in_progress():
    message = _view(None)
    assert message.hand_number == 4
    assert not message.hand_in_progress


def test_during_a_hand_the_view_names_that_hand():
    message = _view(5)
    assert message.hand_number == 5
    assert message.hand_in_progress
