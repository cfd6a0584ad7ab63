"""The ranker the table's showdowns use, behind the engine's ranking port (HandRanker)."""

from __future__ import annotations

from services.games.ranking import HandRanker
from services.games.reference_ranking import ReferenceRanker
from services.shared.settings import RuntimeSettings
from services.table.settings import TableSettings


def ranker_for(settings: TableSettings, runtime: RuntimeSettings) -> HandRanker:
    return ReferenceRanker()
