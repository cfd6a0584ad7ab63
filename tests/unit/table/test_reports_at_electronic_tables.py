"""A dealer's report reaches a game only through the contract's `Report`; every table whose
cards come from the dealer service (every game, and poker without live_dealer) refuses it as
FAILED_PRECONDITION (NotAllowedNow), not as a malformed request."""

from __future__ import annotations

import pytest

from croupier.table.v1 import table_pb2
from services.games import contract as c
from services.games.errors import NotAllowedNow
from services.table.games.adapter import GameTable
from services.table.games.catalog import CATALOG

GAMES = sorted(CATALOG, key=lambda game: game.name)


@pytest.mark.parametrize("game", GAMES, ids=[game.name for game in GAMES])
@pytest.mark.parametrize(
    "report", [c.DealtCard("Ah", "seat", 0), c.Irregularity("misdeal", "deck short")]
)
def test_a_table_dealt_by_the_dealer_service_refuses_a_report(
    game: GameTable, report: c.DealtCard | c.Irregularity
) -> None:
    state = game.initial_state(table_pb2.TableOptions())
    with pytest.raises(NotAllowedNow):
        game.rules.decide(state, c.Report(report, "maria@t1"))
