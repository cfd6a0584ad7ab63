"""What a bot sees when it must decide, independent of where the view came from.

The same `BotView` is built from the pure engine's `view_for` (simulations) and from the
TableService `TableView` proto (bots over gRPC), so every policy is one pure function
`choose(view, rng) -> BotAction` tested without Celery or gRPC. Amounts follow the table's
convention: BET and RAISE carry the "raise to" total of the player's bet on this round.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Kind(enum.StrEnum):
    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"
    ALL_IN = "all_in"
    DISCARD = "discard"
    OPEN_DISCARD = "open_discard"
    SHOW = "show"
    MUCK = "muck"
    DECLARE_BOARD = "declare_board"


BETTING_KINDS = frozenset({Kind.FOLD, Kind.CHECK, Kind.CALL, Kind.BET, Kind.RAISE, Kind.ALL_IN})


class Variant(enum.StrEnum):
    HOLDEM = "holdem"
    HOLDEM_HILO = "holdem-hilo"
    SPIT = "spit-in-the-ocean"
    SIX_CARD = "six-card-open-draw"


@dataclass(frozen=True, slots=True)
class Legal:
    """One legal action. BET/RAISE: the raise-to range; DISCARD: how many cards, which never."""

    kind: Kind
    min_amount: int = 0
    max_amount: int = 0
    min_cards: int = 0
    max_cards: int = 0
    forbidden: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BotAction:
    kind: Kind
    amount: int = 0
    cards: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.cards:
            return f"{self.kind.value} {' '.join(self.cards)}"
        return f"{self.kind.value} {self.amount}" if self.amount else self.kind.value


@dataclass(frozen=True, slots=True)
class BotView:
    """One seat's decision point.

    `pot` counts every chip in the middle, including this round's bets; `to_call` is what the
    seat must add to call; `unit` is the betting unit (big blind, or the small bet in ante
    games); `dead` lists cards the seat knows are out of play (other seats' open discards and
    shown cards); `wild_rank` is the rank that plays wild (Spit in the Ocean) or None.
    """

    variant: Variant
    seat: int
    hole: tuple[str, ...]
    board: tuple[str, ...]
    legal: tuple[Legal, ...]
    pot: int = 0
    to_call: int = 0
    stack: int = 0
    bet: int = 0
    unit: int = 1
    opponents: int = 1
    dead: tuple[str, ...] = ()
    wild_rank: str | None = None
    five_of_a_kind_high: bool = True
    # Cards other seats have shown at showdown so far (to decide show or muck).
    shown: tuple[tuple[str, ...], ...] = ()

    def find(self, kind: Kind) -> Legal | None:
        for legal in self.legal:
            if legal.kind is kind:
                return legal
        return None

    def can(self, kind: Kind) -> bool:
        return self.find(kind) is not None

    @property
    def kinds(self) -> frozenset[Kind]:
        return frozenset(legal.kind for legal in self.legal)

    @property
    def pot_odds(self) -> float:
        """Share of the final pot a call pays for: call / (pot + call)."""
        if self.to_call <= 0:
            return 0.0
        return self.to_call / (self.pot + self.to_call)
