"""`random`: uniform over the legal actions, with sensible bet sizes.

Never folds when checking is free and always shows at showdown: a random player that throws
away free equity would only measure its own silliness.
"""

from __future__ import annotations

import random

from services.bots.view import BETTING_KINDS, BotAction, BotView, Kind

POT_FRACTIONS = (0.5, 0.75, 1.0)


def choose(view: BotView, rng: random.Random) -> BotAction:
    kinds = view.kinds
    if Kind.DISCARD in kinds:
        return _random_discard(view, rng)
    if Kind.OPEN_DISCARD in kinds:
        return BotAction(Kind.OPEN_DISCARD, cards=(rng.choice(view.hole),))
    if kinds & BETTING_KINDS:
        return _random_bet(view, rng)
    if Kind.SHOW in kinds:
        return BotAction(Kind.SHOW)
    return BotAction(view.legal[0].kind)


def _random_bet(view: BotView, rng: random.Random) -> BotAction:
    options = [legal for legal in view.legal if legal.kind in BETTING_KINDS]
    if view.can(Kind.CHECK):
        options = [legal for legal in options if legal.kind is not Kind.FOLD]
    legal = rng.choice(options)
    if legal.kind not in (Kind.BET, Kind.RAISE):
        return BotAction(legal.kind)
    highest = view.bet + view.to_call
    sizes = {legal.min_amount, legal.max_amount}
    for fraction in POT_FRACTIONS:
        target = highest + int(fraction * (view.pot + view.to_call))
        sizes.add(min(max(target, legal.min_amount), legal.max_amount))
    return BotAction(legal.kind, amount=rng.choice(sorted(sizes)))


def _random_discard(view: BotView, rng: random.Random) -> BotAction:
    legal = view.find(Kind.DISCARD)
    assert legal is not None
    candidates = [card for card in view.hole if card not in legal.forbidden]
    count = rng.randint(legal.min_cards, min(legal.max_cards, len(candidates)))
    return BotAction(Kind.DISCARD, cards=tuple(rng.sample(candidates, count)))
