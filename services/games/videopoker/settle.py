"""Each line's final hand, what it is and what it wins."""

from __future__ import annotations

from services.games.cards import RANKS, SUITS
from services.games.videopoker.events import LineResult
from services.games.videopoker.hands import CardPair, best_five, ladder
from services.games.videopoker.paytables import PAYTABLES
from services.games.videopoker.split import split_parts
from services.games.videopoker.state import Round


def pair_of(card: str) -> CardPair:
    return RANKS.index(card[0]), SUITS.index(card[1])


def final_cards(current: Round, drawn: tuple[str, ...]) -> tuple[str, ...]:
    """The line's five positions: a held position keeps its card, the others take the drawn
    cards in order."""
    held = current.hold or ()
    replacements = iter(drawn)
    return tuple(
        current.shown(position) if position in held else next(replacements)
        for position in range(len(current.dealt))
    )


def settle_line(current: Round, line: int, drawn: tuple[str, ...], denomination: int) -> LineResult:
    table = PAYTABLES[current.paytable]
    rules = ladder(table, current.split_feature)
    cards = final_cards(current, drawn)
    singles = [part for card in cards for part in split_parts(card)]
    judged = best_five([pair_of(card) for card in singles], rules)
    best = tuple(RANKS[rank] + SUITS[suit] for rank, suit in judged.cards)
    win = table.pay(judged.hand, current.coins) * denomination
    return LineResult(line, cards, judged.hand, best, win)


def settle(current: Round, denomination: int) -> tuple[LineResult, ...]:
    return tuple(
        settle_line(current, line, drawn, denomination)
        for line, drawn in enumerate(current.draws, start=1)
    )
