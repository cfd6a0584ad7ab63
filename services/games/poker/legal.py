"""`legal_actions(state, seat)`: what this seat may do now, with amount ranges and cards.

Bots, timeouts and the table view use this and nothing else to decide legality; `decide`
checks commands against the same computation, so the two cannot disagree.
"""

from __future__ import annotations

from functools import cache
from typing import Final

from services.games.cardtext import Card
from services.games.poker.betting import options
from services.games.poker.definitions import Draw, Showdown
from services.games.poker.events import Action
from services.games.poker.plan import BETTING, plan_of
from services.games.poker.state import TableState
from services.games.values import field_values, fields_repr

_LEGAL_FIELDS: Final = (
    "seat",
    "actions",
    "to_act",
    "to_call",
    "min_to",
    "max_to",
    "all_in_to",
    "min_discards",
    "max_discards",
    "discardable",
)


# A native class under mypyc (services/games/values.py says why it is not a dataclass).
class LegalActions:
    """Empty `actions` means the seat cannot act now (`to_act` says who can, if anyone).

    Amounts are "to" totals for the current betting round: a bet or raise is legal for any
    `min_to <= amount <= max_to`; `all_in_to` is the total if the seat goes all in;
    `to_call` is the chips a call adds. Draws: discard between `min_discards` and
    `max_discards` of `discardable`.
    """

    __slots__ = (
        "actions",
        "all_in_to",
        "discardable",
        "max_discards",
        "max_to",
        "min_discards",
        "min_to",
        "seat",
        "to_act",
        "to_call",
    )

    seat: Final[int]
    actions: Final[frozenset[str]]
    to_act: Final[int | None]
    to_call: Final[int]
    min_to: Final[int]
    max_to: Final[int]
    all_in_to: Final[int]
    min_discards: Final[int]
    max_discards: Final[int]
    discardable: Final[tuple[Card, ...]]

    def __init__(
        self,
        seat: int,
        actions: frozenset[str] = frozenset(),
        to_act: int | None = None,
        to_call: int = 0,
        min_to: int = 0,
        max_to: int = 0,
        all_in_to: int = 0,
        min_discards: int = 0,
        max_discards: int = 0,
        discardable: tuple[Card, ...] = (),
    ) -> None:
        self.seat = seat
        self.actions = actions
        self.to_act = to_act
        self.to_call = to_call
        self.min_to = min_to
        self.max_to = max_to
        self.all_in_to = all_in_to
        self.min_discards = min_discards
        self.max_discards = max_discards
        self.discardable = discardable

    def __repr__(self) -> str:
        return fields_repr(self, _LEGAL_FIELDS)

    def __eq__(self, other: object) -> bool:
        return type(other) is LegalActions and field_values(self, _LEGAL_FIELDS) == (
            field_values(other, _LEGAL_FIELDS)
        )

    def __hash__(self) -> int:
        return hash(field_values(self, _LEGAL_FIELDS))

    def allows(self, action: str) -> bool:
        return action in self.actions


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
