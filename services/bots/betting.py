"""Turning an intention (give up, continue, bet this much of the pot) into a legal action."""

from __future__ import annotations

from services.bots.view import BotAction, BotView, Kind


def check_or_fold(view: BotView) -> BotAction:
    """The cheapest way to stay in: check when free, otherwise fold (the timeout default too)."""
    if view.can(Kind.CHECK):
        return BotAction(Kind.CHECK)
    if view.can(Kind.FOLD):
        return BotAction(Kind.FOLD)
    return fallback(view)


def call_or_check(view: BotView) -> BotAction:
    """Continue without raising: check, call, or call all-in for less."""
    if view.can(Kind.CHECK):
        return BotAction(Kind.CHECK)
    if view.can(Kind.CALL):
        return BotAction(Kind.CALL)
    if view.can(Kind.ALL_IN):
        return BotAction(Kind.ALL_IN)
    return check_or_fold(view)


def raise_to_fraction(view: BotView, fraction: float) -> BotAction:
    """Bet or raise so the bet adds about `fraction` of the pot after calling.

    The amount is "raise to": the current highest bet plus `fraction * (pot + to_call)`, clipped
    into the legal range. When betting is not possible (capped, or too short), continue instead.
    """
    legal = view.find(Kind.BET) or view.find(Kind.RAISE)
    if legal is None:
        if view.can(Kind.ALL_IN) and not view.can(Kind.CALL) and not view.can(Kind.CHECK):
            return BotAction(Kind.ALL_IN)
        return call_or_check(view)
    highest = view.bet + view.to_call
    target = highest + round(fraction * (view.pot + view.to_call))
    amount = min(max(target, legal.min_amount), legal.max_amount)
    return BotAction(legal.kind, amount=amount)


def fallback(view: BotView) -> BotAction:
    """The first legal action, for decision points a policy does not handle specially."""
    legal = view.legal[0]
    if legal.kind in (Kind.BET, Kind.RAISE):
        return BotAction(legal.kind, amount=legal.min_amount)
    if legal.kind is Kind.DISCARD:
        keep = [c for c in view.hole if c not in legal.forbidden]
        return BotAction(Kind.DISCARD, cards=tuple(keep[: legal.min_cards]))
    if legal.kind is Kind.OPEN_DISCARD:
        return BotAction(Kind.OPEN_DISCARD, cards=(view.hole[0],))
    return BotAction(legal.kind)
