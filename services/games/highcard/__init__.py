"""Heads-up high card: the smallest real game on the table contract (docs/games/high-card.md).

Each round both players ante, each gets one card face down from the dealer's shuffle, both
turn their cards over (at the same time: the contract's simultaneous moves), and the higher
rank takes the pot; equal ranks split it. `RULES` implements `services.games.contract.
GameRules`; like every rules package it is pure, standard library only.
"""

from services.games.highcard.config import HighCardConfig
from services.games.highcard.events import EVENT_TYPES, Event
from services.games.highcard.moves import InRound, LegalMoves, Turn
from services.games.highcard.rules import RULES, HighCardRules
from services.games.highcard.state import HighCardState
from services.games.highcard.views import HighCardView

__all__ = [
    "EVENT_TYPES",
    "RULES",
    "Event",
    "HighCardConfig",
    "HighCardRules",
    "HighCardState",
    "HighCardView",
    "InRound",
    "LegalMoves",
    "Turn",
]
