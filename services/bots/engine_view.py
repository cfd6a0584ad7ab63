"""Between the pure engine (services.games) and the bots: engine view -> `BotView`, and
`BotAction` -> the engine's `Act` command. Used by the engine-only simulator."""

from __future__ import annotations

from services.bots.view import BotAction, BotView, Kind, Legal, Variant
from services.games.poker.commands import Act
from services.games.poker.definitions import ForcedBets
from services.games.poker.events import Action
from services.games.poker.legal import LegalActions
from services.games.poker.state import TableState
from services.games.poker.views import HIDDEN, view_for

VARIANTS = {
    "texas-holdem": Variant.HOLDEM,
    "holdem-hilo": Variant.HOLDEM_HILO,
    "spit-in-the-ocean": Variant.SPIT,
    "six-card-open-draw": Variant.SIX_CARD,
}
# Engine action names use dashes ("all-in"); the bots' kinds use underscores.
KINDS = {kind.value.replace("_", "-"): kind for kind in Kind}


def to_bot_view(state: TableState, legal: LegalActions) -> BotView:
    """What seat `legal.seat` sees at its decision, as the bots' `BotView`."""
    seat = legal.seat
    view = view_for(state, seat)
    config = state.config
    seats = {s.seat: s for s in view.seats}
    me = seats[seat]
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
    board = tuple(view.board)
    unit = config.big_blind if config.game.forced_bets is ForcedBets.BLINDS else config.small_bet
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
        unit=max(unit, 1),
        opponents=max(len(others), 1),
        dead=tuple(dead),
        wild_rank=board[0][0] if config.game.board_rank_wild and board else None,
        five_of_a_kind_high=config.five_of_a_kind_beats_straight_flush,
        shown=tuple(shown),
    )


def _legal(legal: LegalActions, hole: tuple[str, ...]) -> tuple[Legal, ...]:
    result = []
    for name in sorted(legal.actions):
        kind = KINDS[name]
        if kind in (Kind.BET, Kind.RAISE):
            result.append(Legal(kind, min_amount=legal.min_to, max_amount=legal.max_to))
        elif kind is Kind.DISCARD:
            forbidden = tuple(card for card in hole if card not in legal.discardable)
            result.append(
                Legal(
                    kind,
                    min_cards=legal.min_discards,
                    max_cards=legal.max_discards,
                    forbidden=forbidden,
                )
            )
        else:
            result.append(Legal(kind))
    return tuple(result)


def to_command(state: TableState, seat: int, action: BotAction) -> Act:
    hand = state.hand.number if state.hand is not None else None
    name = action.kind.value.replace("_", "-")
    amount = action.amount if name in (Action.BET, Action.RAISE) else None
    return Act(seat, name, amount=amount, cards=action.cards, hand=hand)
