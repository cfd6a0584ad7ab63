"""What a live dealer reports (the contract's `DealtCard` and `Irregularity`, carried by its
`Report` command), and the names poker's live table gives their fields' values.

Cards are two-character text ("Ah", "Td") as everywhere in the engine; `round` pins a report to
the hand the dealer is dealing (0: whichever hand is being dealt), so a report sent late, after
its hand ended, is refused instead of landing in the next one.
"""

from __future__ import annotations

from typing import Final

from services.games.contract import DealtCard as DealtCard
from services.games.contract import Irregularity as Irregularity

SEAT: Final = "seat"
BOARD: Final = "board"
BURN: Final = "burn"
RECIPIENTS: Final = (SEAT, BOARD, BURN)

MISDEAL: Final = "misdeal"
CARD_EXPOSED: Final = "card_exposed"  # by the dealer
PLAYER_EXPOSED: Final = "player_exposed"  # a player showed one of their own cards
IRREGULARITIES: Final = (MISDEAL, CARD_EXPOSED, PLAYER_EXPOSED)
