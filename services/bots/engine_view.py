"""Between the pure engine (services.games) and the bots: engine view -> `BotView`, and
`BotAction` -> the engine's `Act` command. Used by the engine-only simulator."""

from __future__ import annotations

from services.bots.view import BotAction, BotView, Kind, Legal, Variant
from services.games.poker.commands import Act
from services.games.poker.definitions import ForcedBets
from services.games.poker.events import Action
from services.games.poker.legal import LegalActions
from services.games.poker.state import HandPlayer, TableState

VARIANTS = {
    "texas-holdem": Variant.HOLDEM,
    "holdem-hilo": Variant.HOLDEM_HILO,
    "spit-in-the-ocean": Variant.SPIT,
    "six-card-open-draw": Variant.SIX_CARD,
}
# Engine action names use dashes ("all-in"); the bots' kinds use underscores.
KINDS = {kind.value.replace("_", "-"): kind for kind in Kind}


def to_bot_view(state: TableState, legal: LegalActions) -> BotView:
    """What seat `legal.seat` sees at its decision, as the bots' `BotView`.

    Read straight from the hand's records: the same as `view_for(state, seat)` shows (own
    cards, the board, open discards, other seats' cards once shown; the pot is every chip
    committed this hand), without building a view of every seat, the pots and the legal
    actions again (tests/unit/bots/test_engine_view.py holds it to `view_for`).
    """
    seat = legal.seat
    hand = state.hand
    if hand is None:
        raise ValueError("no hand is being played")
    config = state.config
    me: HandPlayer | None = None
    pot = others = 0
    dead: list[str] = []
    shown: list[tuple[str, ...]] = []
    for player in hand.players:
        pot += player.committed
        if player.seat == seat:
            me = player
            continue
        dead.extend(player.open_discards)
        if player.shown:
            dead.extend(player.cards)
            if player.cards and not player.folded:
                shown.append(player.cards)
        if not player.folded:
            others += 1
    sitting = state.seats[seat]
    if me is None or sitting is None:
        raise ValueError(f"seat {seat} is not in the hand")
    board = hand.board
    game = config.game
    unit = config.big_blind if game.forced_bets is ForcedBets.BLINDS else config.small_bet
    return BotView(
        variant=VARIANTS[game.name],
        seat=seat,
        hole=me.cards,
        board=board,
        legal=_legal(legal, me.cards),
        pot=pot,
        to_call=legal.to_call,
        stack=sitting.stack,
        bet=me.bet,
        unit=max(unit, 1),
        opponents=max(others, 1),
        dead=tuple(dead),
        wild_rank=board[0][0] if game.board_rank_wild and board else None,
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
