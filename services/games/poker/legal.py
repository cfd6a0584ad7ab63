"""`legal_actions(state, seat)`: what this seat may do now, with amount ranges and cards.

Bots, timeouts and the table view use this and nothing else to decide legality; `decide`
checks commands against the same computation, so the two cannot disagree.
"""

from __future__ import annotations

from functools import cache

from services.games.poker.betting import options
from services.games.poker.definitions import Draw, Showdown
from services.games.poker.events import Action
from services.games.poker.plan import BETTING, plan_of
from services.games.poker.records import LegalActions as LegalActions
from services.games.poker.state import TableState

_DISCARD = frozenset({Action.DISCARD})
_OPEN_DISCARD = frozenset({Action.OPEN_DISCARD})


@cache
def _betting_actions(can_check: bool, raise_kind: str | None, all_in: bool) -> frozenset[str]:
    """The betting actions for these options (a handful of combinations, built once each)."""
    acts: set[str] = {Action.CHECK} if can_check else {Action.FOLD, Action.CALL}
    if raise_kind:
        acts.add(raise_kind)
    if all_in:
        acts.add(Action.ALL_IN)
    return frozenset(acts)


def legal_actions(state: TableState, seat: int) -> LegalActions:
    hand = state.hand
    if hand is None or hand.to_act != seat:
        return LegalActions(seat, to_act=hand.to_act if hand else None)
    if hand.phase >= 0 and plan_of(state.config).kinds[hand.phase] == BETTING:
        o = options(state, hand, seat)
        return LegalActions(
            seat,
            _betting_actions(o.can_check, o.raise_kind, o.all_in_legal),
            seat,
            to_call=o.to_call,
            min_to=o.min_to,
            max_to=o.max_to,
            all_in_to=o.all_in_to,
        )
    phase = state.phase()
    p = hand.player(seat)
    if isinstance(phase, Draw):
        if p.awaiting:
            return LegalActions(seat, to_act=seat)
        return LegalActions(
            seat,
            _OPEN_DISCARD if phase.face_up else _DISCARD,
            seat,
            min_discards=phase.min_discards,
            max_discards=min(state.config.max_discards(phase), len(p.cards)),
            discardable=p.cards,
        )
    if isinstance(phase, Showdown):
        acts = {Action.SHOW, Action.MUCK}
        if state.config.game.board_can_play and len(hand.board) >= 5:
            acts.add(Action.DECLARE_BOARD)
        return LegalActions(seat, frozenset(acts), seat)
    return LegalActions(seat, to_act=seat)
