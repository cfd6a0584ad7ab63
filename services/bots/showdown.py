"""At showdown: show a hand that can still win, muck one that is beaten, declare the board."""

from __future__ import annotations

from services.bots.betting import fallback
from services.bots.strength import Ranker
from services.bots.view import BotAction, BotView, Kind, Variant


def showdown_choice(view: BotView, ranker: Ranker) -> BotAction:
    mine = ranker.high([*view.hole, *view.board], view.wild_rank, view.five_of_a_kind_high)
    if view.can(Kind.DECLARE_BOARD) and len(view.board) >= 5:
        board = ranker.high(list(view.board), view.wild_rank, view.five_of_a_kind_high)
        if board >= mine:
            return BotAction(Kind.DECLARE_BOARD)
    if view.can(Kind.SHOW):
        # In high-low a beaten high hand may still take the low half: always show there.
        if view.can(Kind.MUCK) and view.variant is not Variant.HOLDEM_HILO and view.shown:
            best_shown = max(
                ranker.high([*hand, *view.board], view.wild_rank, view.five_of_a_kind_high)
                for hand in view.shown
            )
            if best_shown > mine:
                return BotAction(Kind.MUCK)
        return BotAction(Kind.SHOW)
    return fallback(view)
