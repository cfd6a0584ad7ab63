"""The machine's state: its one seat and the round in play (immutable records)."""

from __future__ import annotations

from dataclasses import dataclass

from services.games.cards import RANKS, SUITS
from services.games.videopoker.events import LineResult
from services.games.videopoker.moves import MachineConfig
from services.games.videopoker.paytables import SPLIT_COINS
from services.games.videopoker.split import STUB

STANDARD_DECK = tuple(rank + suit for suit in SUITS for rank in RANKS)
DEAL = "deal"
SPLIT = "split"


def line_deck(line: int) -> str:
    """The name of line `line`'s draw shuffle (lines count from 1)."""
    return f"line-{line}"


@dataclass(frozen=True, slots=True)
class Seat:
    player: str
    stack: int  # credits, in chips
    leaving: bool = False


@dataclass(frozen=True, slots=True)
class OpenDeck:
    name: str
    shuffle_id: str
    commitment: str
    cards: tuple[str, ...]  # empty: one standard deck
    reveal: str = ""  # the dealer's reveal, once closed

    @property
    def closed(self) -> bool:
        return bool(self.reveal)


@dataclass(frozen=True, slots=True)
class Round:
    number: int
    lines: int
    coins: int
    paytable: str
    bet: int
    bet_taken: bool = False
    decks: tuple[OpenDeck, ...] = ()
    dealt: tuple[str, ...] = ()  # five base cards
    ticket: str = ""  # the split ticket, once drawn
    split_position: int = STUB
    split_offset: int = 0
    split_second: str = ""  # the dealt split card's second card
    stub_base: str = ""  # the undealt split card, once located
    hold: tuple[int, ...] | None = None
    draws: tuple[tuple[str, ...], ...] = ()  # lines 1.. in order
    results: tuple[LineResult, ...] = ()
    settled: bool = False
    win: int = 0
    win_paid: bool = False
    voided: str = ""
    refunded: bool = False

    @property
    def split_feature(self) -> bool:
        return self.coins == SPLIT_COINS

    @property
    def split_dealt(self) -> bool:
        return bool(self.ticket) and self.split_position != STUB

    def deck(self, name: str) -> OpenDeck | None:
        return next((deck for deck in self.decks if deck.name == name), None)

    @property
    def undealt(self) -> tuple[str, ...]:
        """The 47 cards every line's draw deck holds, in canonical order."""
        dealt = set(self.dealt)
        return tuple(card for card in STANDARD_DECK if card not in dealt)

    @property
    def drawn_count(self) -> int:
        """Cards each line draws: one for every position not held."""
        return 0 if self.hold is None else len(self.dealt) - len(self.hold)

    def shown(self, position: int) -> str:
        """The card at `position` as the player sees it ("Kh|Qh" for the split card)."""
        card = self.dealt[position]
        if self.split_dealt and position == self.split_position:
            return f"{card}|{self.split_second}"
        return card


@dataclass(frozen=True, slots=True)
class MachineState:
    config: MachineConfig
    seat: Seat | None = None
    round: Round | None = None  # the round in play, until it ends
    rounds: int = 0  # rounds started so far
    last: Round | None = None  # the last round that ended
