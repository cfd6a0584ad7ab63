"""The engine-side `BotView` reads the hand's records directly; it must show exactly what the
engine's one place that hides information (`views.view_for`) shows the seat."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from services.bots.engine_ranker import EvaluatorHandRanker
from services.bots.engine_view import VARIANTS, _legal, to_bot_view, to_command
from services.bots.policies import make_policy
from services.bots.ranker import EvaluatorRanker
from services.bots.simulation.deals import SeededDeck
from services.bots.simulation.presets import PRESETS, preset
from services.bots.view import BotView
from services.games.poker.commands import Act, SitDown
from services.games.poker.definitions import ForcedBets
from services.games.poker.legal import LegalActions
from services.games.poker.playout import play_hand
from services.games.poker.reducer import apply_all
from services.games.poker.rules import decide
from services.games.poker.state import TableState, new_table
from services.games.poker.views import HIDDEN, view_for


def view_through_view_for(state: TableState, legal: LegalActions) -> BotView:
    """The seat's decision point built from `view_for`, field by field."""
    seat = legal.seat
    view = view_for(state, seat)
    me = next(s for s in view.seats if s.seat == seat)
    others = [s for s in view.seats if s.seat != seat and s.in_hand and not s.folded]
    dead: list[str] = []
    shown: list[tuple[str, ...]] = []
    for other in view.seats:
        if other.seat == seat:
            continue
        dead.extend(other.open_discards)
        visible = tuple(card for card in other.cards if card != HIDDEN)
        dead.extend(visible)
        if other.shown and visible and other in others:
            shown.append(visible)
    config = state.config
    blinds = config.game.forced_bets is ForcedBets.BLINDS
    board = tuple(view.board)
    return BotView(
        variant=VARIANTS[config.game.name],
        seat=seat,
        hole=tuple(card for card in me.cards if card != HIDDEN),
        board=board,
        legal=_legal(legal, me.cards),
        pot=sum(view.pots),
        to_call=legal.to_call,
        stack=me.stack,
        bet=me.bet,
        unit=max(config.big_blind if blinds else config.small_bet, 1),
        opponents=max(len(others), 1),
        dead=tuple(dead),
        wild_rank=board[0][0] if config.game.board_rank_wild and board else None,
        five_of_a_kind_high=config.five_of_a_kind_beats_straight_flush,
        shown=tuple(shown),
    )


@pytest.mark.parametrize("game", sorted(PRESETS))
def test_every_decision_point_matches_view_for(game: str) -> None:
    ranker = EvaluatorRanker()
    policies = [make_policy(name, ranker, 0.0) for name in ("random", "tight", "equity")]
    checked = 0

    def chooser(rng: random.Random) -> Callable[[TableState, LegalActions], Act]:
        def choose(table: TableState, legal: LegalActions) -> Act:
            nonlocal checked
            view = to_bot_view(table, legal)
            assert view == view_through_view_for(table, legal)
            checked += 1
            policy = policies[legal.seat % len(policies)]
            return to_command(table, legal.seat, policy.choose(view, rng))

        return choose

    for deal in range(12):
        state = new_table(preset(game).config(seats=5, first_button=deal % 5, stack_units=30))
        for seat in range(5):
            sit = SitDown(seat, f"p{seat}", 30 * preset(game).unit)
            state = apply_all(state, decide(state, sit))
        deck = SeededDeck(deal, deal)
        play_hand(state, chooser(random.Random(deal)), deck, EvaluatorHandRanker())
    assert checked > 50
