"""Cards as people read them: "As" -> A♠, hearts and diamonds in red, wild cards marked."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text

SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
RED = frozenset("hd")
UNSEEN = "??"
RANK_NAMES = {"T": "10"}


def card_text(card: str, *, wild_rank: str = "") -> Text:
    """One card: rank and suit symbol, red or white on a card-like background; an unseen card
    is a card back; a wild one (its rank is `wild_rank`) is gold with a star."""
    if card == UNSEEN or len(card) != 2:
        return Text("▒▒", style="blue on grey23")
    rank, suit = card[0], card[1]
    label = f"{RANK_NAMES.get(rank, rank)}{SUITS.get(suit, suit)}"
    if wild_rank and rank == wild_rank:
        return Text(f"{label}*", style="bold black on gold1")
    colour = "red3" if suit in RED else "black"
    return Text(label, style=f"bold {colour} on grey93")


def cards_text(cards: Iterable[str], *, wild_rank: str = "") -> Text:
    out = Text()
    for index, card in enumerate(cards):
        if index:
            out.append(" ")
        out.append_text(card_text(card, wild_rank=wild_rank))
    return out


def plain(cards: Iterable[str]) -> str:
    """Cards with suit symbols, no colours (logs, JSON-free text)."""
    return " ".join(
        "??" if c == UNSEEN else f"{RANK_NAMES.get(c[0], c[0])}{SUITS.get(c[1], c[1])}"
        for c in cards
    )
