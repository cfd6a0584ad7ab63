"""`tight`: rule-based. Plays few hands, bets made hands, respects pot odds.

Preflop (hold'em) it follows Bill Chen's starting-hand score; afterwards it looks at the
category of the hand it holds now, with thresholds raised in the wild-card and six-card
games where hands run bigger. Draws keep made groups, then four to a flush or straight.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from services.bots.betting import call_or_check, check_or_fold, fallback, raise_to_fraction
from services.bots.draws import best_open_discard, discards_for, keep_candidates
from services.bots.showdown import showdown_choice
from services.bots.strength import Ranker, preflop_strength
from services.bots.view import BETTING_KINDS, BotAction, BotView, Kind, Variant

# Category numbers from the evaluator: 2 pair, 3 two pair, 4 trips, 5 straight, 7 full house.
STRONG = {Variant.HOLDEM: 4, Variant.HOLDEM_HILO: 4, Variant.SPIT: 7, Variant.SIX_CARD: 5}
MEDIUM = {Variant.HOLDEM: 3, Variant.HOLDEM_HILO: 3, Variant.SPIT: 5, Variant.SIX_CARD: 3}
WEAK = {Variant.HOLDEM: 2, Variant.HOLDEM_HILO: 2, Variant.SPIT: 4, Variant.SIX_CARD: 2}


@dataclass(frozen=True, slots=True)
class TightPolicy:
    ranker: Ranker

    def choose(self, view: BotView, rng: random.Random) -> BotAction:
        kinds = view.kinds
        if Kind.DISCARD in kinds:
            return self._draw(view)
        if Kind.OPEN_DISCARD in kinds:
            return BotAction(Kind.OPEN_DISCARD, cards=(best_open_discard(view, self.ranker),))
        if kinds & BETTING_KINDS:
            return self._bet(view)
        if kinds & {Kind.SHOW, Kind.MUCK, Kind.DECLARE_BOARD}:
            return showdown_choice(view, self.ranker)
        return fallback(view)

    def _bet(self, view: BotView) -> BotAction:
        if view.variant in (Variant.HOLDEM, Variant.HOLDEM_HILO) and not view.board:
            return self._preflop(view)
        value = self.ranker.high(
            [*view.hole, *view.board], view.wild_rank, view.five_of_a_kind_high
        )
        category = self.ranker.category(value)
        has_low = (
            view.variant is Variant.HOLDEM_HILO
            and self.ranker.low([*view.hole, *view.board]) is not None
        )
        if category >= STRONG[view.variant]:
            return raise_to_fraction(view, 0.75)
        if category >= MEDIUM[view.variant] or has_low:
            if view.to_call == 0:
                return raise_to_fraction(view, 0.5)
            return call_or_check(view) if view.pot_odds <= 0.35 else check_or_fold(view)
        if category >= WEAK[view.variant] and view.pot_odds <= 0.25:
            return call_or_check(view)
        return check_or_fold(view)

    def _preflop(self, view: BotView) -> BotAction:
        strength = preflop_strength(view.hole)
        if view.variant is Variant.HOLDEM_HILO and _has_ace_with_wheel_card(view.hole):
            strength += 0.2
        if strength >= 0.6:
            if view.to_call > 6 * view.unit:
                return call_or_check(view)
            return raise_to_fraction(view, 1.0)
        if strength >= 0.42 and view.to_call <= 3 * view.unit:
            return call_or_check(view)
        return check_or_fold(view)

    def _draw(self, view: BotView) -> BotAction:
        legal = view.find(Kind.DISCARD)
        assert legal is not None
        current = self.ranker.high(
            [*view.hole, *view.board], view.wild_rank, view.five_of_a_kind_high
        )
        ideas = keep_candidates(view, legal)
        if self.ranker.category(current) >= STRONG[view.variant]:
            choice = ideas["pat"]
        elif "groups" in ideas:
            choice = ideas["groups"]
        else:
            # Four cards to a flush or a straight (wilds included), else the high cards.
            wild_board = sum(1 for card in view.board if card[0] == view.wild_rank)
            target = 4 - wild_board
            draws = [ideas[name] for name in ("flush", "straight") if len(ideas[name]) >= target]
            choice = draws[0] if draws else ideas["high"]
        return BotAction(Kind.DISCARD, cards=discards_for(view, choice))


def _has_ace_with_wheel_card(hole: tuple[str, ...]) -> bool:
    ranks = {card[0] for card in hole}
    return "A" in ranks and bool(ranks & {"2", "3", "4"})
