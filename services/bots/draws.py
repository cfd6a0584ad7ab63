"""Which cards to keep in a draw, and which card to expose in Six-Card Open Draw.

`keep_candidates` lists the few keep-sets a sensible player considers (pat, made groups, a
flush draw, a straight draw, high cards), each already fitted to the draw limits; the policies
then pick one by rule (`tight`) or by simulated equity (`equity`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from services.bots.strength import RANKS, Ranker
from services.bots.view import BotView, Legal


def rank_index(card: str) -> int:
    return RANKS.index(card[0])


def keep_candidates(view: BotView, legal: Legal) -> dict[str, tuple[str, ...]]:
    """Named keep-sets fitted to the draw limits: pat, wilds, groups, flush, straight, high.

    "groups" is present only when the hand holds a pair or better (counting the board), and
    "flush"/"straight" hold the wilds plus the best four-or-fewer cards towards one.
    """
    hole = list(view.hole)
    wilds = [c for c in hole if view.wild_rank is not None and c[0] == view.wild_rank]
    naturals = [c for c in hole if c not in wilds]
    community = [c for c in view.board if view.wild_rank is None or c[0] != view.wild_rank]
    ideas: dict[str, list[str]] = {"pat": hole, "wilds": list(wilds)}
    counts = Counter(c[0] for c in [*naturals, *community])
    grouped = [c for c in naturals if counts[c[0]] >= 2]
    if grouped:
        ideas["groups"] = wilds + grouped
    suits = Counter(c[1] for c in naturals)
    if suits:
        suit, _ = max(suits.items(), key=lambda item: (item[1], item[0]))
        ideas["flush"] = wilds + [c for c in naturals if c[1] == suit]
    ideas["straight"] = wilds + _best_straight_draw(naturals)
    by_rank = sorted(naturals, key=rank_index, reverse=True)
    ideas["high"] = wilds + by_rank[:2]
    return {name: _fit(hole, keep, legal) for name, keep in ideas.items()}


def discards_for(view: BotView, keep: Sequence[str]) -> tuple[str, ...]:
    return tuple(card for card in view.hole if card not in keep)


def _best_straight_draw(naturals: list[str]) -> list[str]:
    best: list[str] = []
    for top in range(len(RANKS) - 1, 3, -1):
        window = {RANKS[i] for i in range(top - 4, top + 1)}
        chosen: dict[str, str] = {}
        for card in naturals:
            if card[0] in window:
                chosen.setdefault(card[0], card)
        if len(chosen) > len(best):
            best = list(chosen.values())
    wheel = {"A", "2", "3", "4", "5"}
    low: dict[str, str] = {}
    for card in naturals:
        if card[0] in wheel:
            low.setdefault(card[0], card)
    return list(low.values()) if len(low) > len(best) else best


def _fit(hole: list[str], keep: list[str], legal: Legal) -> tuple[str, ...]:
    """Adjust `keep` so the discards respect the limits and never include a forbidden card."""
    kept = [c for c in hole if c in keep or c in legal.forbidden]
    discards = sorted((c for c in hole if c not in kept), key=rank_index)
    while len(discards) > legal.max_cards:
        kept.append(discards.pop())  # keep the highest discard instead
    while len(discards) < legal.min_cards:
        spare = sorted((c for c in kept if c not in legal.forbidden), key=rank_index)
        if not spare:
            break
        kept.remove(spare[0])
        discards.append(spare[0])
    return tuple(c for c in hole if c in kept)


def best_open_discard(view: BotView, ranker: Ranker) -> str:
    """The card whose exposure leaves the best hand; among equals, the lowest card."""

    def value_without(card: str) -> tuple[int, int]:
        rest = [c for c in view.hole if c != card] + list(view.board)
        high = ranker.high(rest, view.wild_rank, view.five_of_a_kind_high)
        return high, -rank_index(card)

    return max(view.hole, key=value_without)
