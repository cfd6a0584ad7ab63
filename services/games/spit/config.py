"""A Spit table's options: which game (Spit, Bicycle's Spit or Speed), the number of stock
piles, alternating colours, the stake and the three clocks the table keeps (ready, slap,
stall). Validated once, when the table is created: `SpitConfig.checked` raises `InvalidAction`
naming the option and its allowed values."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from services.games.errors import InvalidAction


class Variation(StrEnum):
    SPIT = "spit"  # one deck; five (or four) stock piles and spit cards each; slaps; many deals
    BICYCLE = "bicycle"  # a 52-card deck each; a row of four fed from the player's own stock
    SPEED = "speed"  # one deck; a hand of five fed from a draw pile; two side stacks


@dataclass(frozen=True, slots=True)
class SpitConfig:
    variation: Variation = Variation.SPIT
    # Stock piles in Spit: 5 (1-2-3-4-5, 15 cards) or 4 (the four-piles variation: 1-2-3-4).
    piles: int = 5
    # A card played on a middle pile must also be the other colour (any variation).
    alternating_colours: bool = False
    # Chips each player puts up for a game; the winner takes both (0: no stake).
    stake: int = 0
    # How long a player has to slap at the end of a two-pile deal.
    slap_ms: int = 5_000
    # How long a player has to say ready once the layouts are dealt (then they are).
    ready_ms: int = 30_000
    # How long the table waits, with no card moving, for a player who can play and does not
    # (then the game spits as if nobody could play); 0 waits for ever.
    stall_ms: int = 15_000
    # The chips a player may bring to the table: `min_buy_in` to `max_buy_in`; adding chips
    # never takes a stack above the maximum.
    min_buy_in: int = 0
    max_buy_in: int = 10**12

    @property
    def copies(self) -> int:
        """Standard decks in play: two in Bicycle's Spit (one each), one otherwise."""
        return 2 if self.variation is Variation.BICYCLE else 1

    @property
    def slots(self) -> int:
        """Places in front of each player: stock piles, row spaces or hand cards."""
        if self.variation is Variation.BICYCLE:
            return 4
        if self.variation is Variation.SPEED:
            return 5
        return self.piles

    @property
    def layout_size(self) -> int:
        """Cards a full Spit layout holds (15 with five piles, 10 with four)."""
        return self.piles * (self.piles + 1) // 2

    def checked(self) -> SpitConfig:
        if not isinstance(self.variation, Variation):
            raise InvalidAction(
                f"unknown variation {self.variation!r}: one of "
                + ", ".join(v.value for v in Variation)
            )
        if self.piles not in (4, 5):
            raise InvalidAction(f"piles must be 4 or 5, not {self.piles}")
        if self.piles != 5 and self.variation is not Variation.SPIT:
            raise InvalidAction(f"four piles is a variation of Spit, not of {self.variation}")
        if self.stake < 0:
            raise InvalidAction(f"the stake must be 0 or more chips, not {self.stake}")
        for name in ("slap_ms", "ready_ms"):
            if getattr(self, name) <= 0:
                raise InvalidAction(f"{name} must be positive, not {getattr(self, name)}")
        if self.stall_ms < 0:
            raise InvalidAction(f"stall_ms must be 0 (off) or positive, not {self.stall_ms}")
        if not 0 <= self.min_buy_in <= self.max_buy_in:
            raise InvalidAction(
                f"the buy-in range must run from 0 or more up: not {self.min_buy_in} to "
                f"{self.max_buy_in}"
            )
        return self
