"""What a live dealer reports, as the contract's `Report.report` carries it to the poker rules.

Cards are two-character text ("Ah", "Td") as everywhere in the engine; `hand` pins a report to
the hand the dealer is dealing (0: whichever hand is being dealt), so a report sent late, after
its hand ended, is refused instead of landing in the next one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

SEAT: Final = "seat"
BOARD: Final = "board"
BURN: Final = "burn"
RECIPIENTS: Final = (SEAT, BOARD, BURN)

MISDEAL: Final = "misdeal"
IRREGULARITIES: Final = (MISDEAL,)


@dataclass(frozen=True, slots=True)
class DealtCard:
    """`card` left the deck: to `seat` (`to` SEAT), to the board or to the burn pile, face up
    or face down as the table saw it."""

    card: str
    to: str
    seat: int | None = None
    face_up: bool = False
    hand: int = 0


@dataclass(frozen=True, slots=True)
class Irregularity:
    """An irregularity the cards alone do not show (`kind`: MISDEAL), in the dealer's words."""

    kind: str
    reason: str
    hand: int = 0
