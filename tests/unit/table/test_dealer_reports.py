"""Who may report at a live-dealer table, and how its requests become the contract's reports."""

from __future__ import annotations

import pytest

from croupier.table.v1 import table_pb2
from services.games import contract as c
from services.shared import errors
from services.shared.auth import Principal, Role
from services.table.dealer_reports import dealt_card, irregularity, require_dealer_of


def test_the_tables_own_dealer_console_may_report() -> None:
    require_dealer_of(Principal("maria@t1", Role.DEALER_CONSOLE), "t1")


@pytest.mark.parametrize(
    "principal",
    [
        Principal("maria@t2", Role.DEALER_CONSOLE),  # another table's console
        Principal("maria", Role.DEALER_CONSOLE),  # a console of no table
        Principal("t1", Role.DEALER_CONSOLE),
        Principal("maria@t1", Role.ADMIN),
        Principal("maria@t1", Role.SERVICE),
        Principal("maria@t1", Role.PLAYER),
    ],
)
def test_anyone_else_is_permission_denied(principal: Principal) -> None:
    with pytest.raises(errors.PermissionDenied):
        require_dealer_of(principal, "t1")


def test_a_card_request_is_the_contracts_dealt_card() -> None:
    request = table_pb2.ReportCardRequest(
        card="Ah", recipient=table_pb2.CARD_RECIPIENT_SEAT, seat=0, face_up=True, hand_number=3
    )
    assert dealt_card(request) == c.DealtCard("Ah", "seat", 0, True, 3)
    board = table_pb2.ReportCardRequest(card="2c", recipient=table_pb2.CARD_RECIPIENT_BOARD)
    assert dealt_card(board) == c.DealtCard("2c", "board")


@pytest.mark.parametrize(
    "request_",
    [
        table_pb2.ReportCardRequest(card="Ah"),  # no recipient
        table_pb2.ReportCardRequest(card="Ah", recipient=table_pb2.CARD_RECIPIENT_SEAT),
        table_pb2.ReportCardRequest(card="Ah", recipient=table_pb2.CARD_RECIPIENT_BURN, seat=1),
    ],
)
def test_a_card_request_without_a_clear_recipient_is_invalid(
    request_: table_pb2.ReportCardRequest,
) -> None:
    with pytest.raises(errors.InvalidArgument):
        dealt_card(request_)


def test_an_irregularity_needs_its_kind_and_reason() -> None:
    misdeal = table_pb2.IRREGULARITY_KIND_MISDEAL
    request = table_pb2.ReportIrregularityRequest(kind=misdeal, reason=" deck short ")
    assert irregularity(request) == c.Irregularity("misdeal", "deck short")
    with pytest.raises(errors.InvalidArgument):
        irregularity(table_pb2.ReportIrregularityRequest(reason="x"))
    with pytest.raises(errors.InvalidArgument):
        irregularity(table_pb2.ReportIrregularityRequest(kind=misdeal, reason="  "))


def test_an_exposed_card_names_its_card() -> None:
    exposed = table_pb2.IRREGULARITY_KIND_CARD_EXPOSED
    request = table_pb2.ReportIrregularityRequest(kind=exposed, card="Qs")
    assert irregularity(request) == c.Irregularity("card_exposed", "", 0, "Qs")
    with pytest.raises(errors.InvalidArgument):
        irregularity(table_pb2.ReportIrregularityRequest(kind=exposed))
    with pytest.raises(errors.InvalidArgument):
        misdeal = table_pb2.IRREGULARITY_KIND_MISDEAL
        irregularity(table_pb2.ReportIrregularityRequest(kind=misdeal, reason="x", card="Qs"))


def test_a_card_its_player_exposed_names_its_card() -> None:
    by_player = table_pb2.IRREGULARITY_KIND_PLAYER_EXPOSED
    request = table_pb2.ReportIrregularityRequest(kind=by_player, card="Qs", reason="showed it")
    assert irregularity(request) == c.Irregularity("player_exposed", "showed it", 0, "Qs")
    with pytest.raises(errors.InvalidArgument):
        irregularity(table_pb2.ReportIrregularityRequest(kind=by_player))
