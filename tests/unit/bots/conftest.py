from __future__ import annotations

import pytest

from services.bots.ranker import EvaluatorRanker


@pytest.fixture(scope="session")
def ranker() -> EvaluatorRanker:
    return EvaluatorRanker()
