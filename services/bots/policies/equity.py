"""`equity`: equity against random hands, bets sized by equity and pot odds.

Before the flop in hold'em the equity comes from a precomputed table; otherwise each decision
deals the unseen cards up to `samples` times (more with higher difficulty), stopping early
once the estimate is clearly on one side of every line the decision draws. It bets
for value when its equity clearly beats its fair share of the pot (1 / players), calls when
equity covers the pot odds, and otherwise checks or folds. Draws: it simulates every sensible
keep-set on the same deals and keeps the one with the best equity; in the open discard it
exposes the card that leaves the best hand.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from services.bots.betting import call_or_check, check_or_fold, fallback, raise_to_fraction
from services.bots.draws import best_open_discard, discards_for, keep_candidates
from services.bots.showdown import showdown_choice
from services.bots.strength import Ranker, decision_equity, keep_equities
from services.bots.view import BETTING_KINDS, BotAction, BotView, Kind


@dataclass(frozen=True, slots=True)
class EquityPolicy:
    ranker: Ranker
    samples: int = 200

    def choose(self, view: BotView, rng: random.Random) -> BotAction:
        kinds = view.kinds
        if Kind.DISCARD in kinds:
            return self._draw(view, rng)
        if Kind.OPEN_DISCARD in kinds:
            return BotAction(Kind.OPEN_DISCARD, cards=(best_open_discard(view, self.ranker),))
        if kinds & BETTING_KINDS:
            return self._bet(view, rng)
        if kinds & {Kind.SHOW, Kind.MUCK, Kind.DECLARE_BOARD}:
            return showdown_choice(view, self.ranker)
        return fallback(view)

    def _bet(self, view: BotView, rng: random.Random) -> BotAction:
        fair = 1.0 / (max(1, view.opponents) + 1)
        value_line = max(0.5, 1.8 * fair)
        # The lines this decision draws; the estimate stops once it is clear of them all.
        if view.to_call > 0:
            lines: tuple[float, ...] = (value_line, 0.7, view.pot_odds * 1.1)
        else:
            lines = (value_line, 1.4 * fair)
        share = decision_equity(view, self.ranker, rng, self.samples, lines)
        if share >= value_line:
            if view.to_call > 0 and share < 0.7:
                return call_or_check(view)  # good but not good enough to re-raise
            return raise_to_fraction(view, min(1.0, share))
        if view.to_call == 0:
            if share >= 1.4 * fair and rng.random() < 0.5:
                return raise_to_fraction(view, 0.5)
            return check_or_fold(view)
        if share >= view.pot_odds * 1.1:
            return call_or_check(view)
        return check_or_fold(view)

    def _draw(self, view: BotView, rng: random.Random) -> BotAction:
        legal = view.find(Kind.DISCARD)
        assert legal is not None
        options = list(dict.fromkeys(keep_candidates(view, legal).values()))
        # Every keep-set on the same deals: their differences, which decide, are what the
        # samples measure best.
        shares = keep_equities(view, options, rng, self.samples)
        best = options[max(range(len(options)), key=shares.__getitem__)]
        return BotAction(Kind.DISCARD, cards=discards_for(view, best))
