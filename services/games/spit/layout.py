"""How a player's cards are laid out for a deal, per game.

Spit: dealt like patience, row by row: the first card face up on pile 1 and one face down on
each pile to its right, then one face up on pile 2 and one face down on each to its right, and
so on (1-2-3-4-5 cards, or 1-2-3-4); a player with fewer cards deals as far as they go (every
pile's top card is then turned up) and has no spit cards. The rest are the spit cards, face
down. Bicycle's Spit: four cards face up in a row, the other 48 the stock. Speed: a hand of
five, the other 15 the draw pile.
"""

from __future__ import annotations

from services.games.spit.cards import Card
from services.games.spit.config import SpitConfig, Variation

Layout = tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...]]  # (places, spit)


def lay_out(config: SpitConfig, cards: tuple[Card, ...]) -> Layout:
    if config.variation is not Variation.SPIT:
        width = config.slots
        places: list[tuple[Card, ...]] = [(card,) for card in cards[:width]]
        places += [()] * (width - len(places))
        return tuple(places), cards[width:]
    piles: list[list[Card]] = [[] for _ in range(config.piles)]
    used = 0
    for row in range(config.piles):
        for pile in range(row, config.piles):
            if used == len(cards):
                break
            piles[pile].append(cards[used])
            used += 1
    return tuple(tuple(p) for p in piles), cards[used:]
