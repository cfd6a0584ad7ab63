"""Between the TableService protos and the bots' own types: `TableView` -> `BotView`, and
`BotAction` -> `ActRequest`. The only module of the bots that knows the wire format."""

from __future__ import annotations

from collections.abc import Sequence

from croupier.table.v1 import table_pb2
from services.bots.view import BotAction, BotView, Kind, Legal, Variant

VARIANTS = {
    table_pb2.GAME_TEXAS_HOLDEM: Variant.HOLDEM,
    table_pb2.GAME_HOLDEM_HILO: Variant.HOLDEM_HILO,
    table_pb2.GAME_SPIT_IN_THE_OCEAN: Variant.SPIT,
    table_pb2.GAME_SIX_CARD_OPEN_DRAW: Variant.SIX_CARD,
}
KINDS = {
    table_pb2.ACTION_FOLD: Kind.FOLD,
    table_pb2.ACTION_CHECK: Kind.CHECK,
    table_pb2.ACTION_CALL: Kind.CALL,
    table_pb2.ACTION_BET: Kind.BET,
    table_pb2.ACTION_RAISE: Kind.RAISE,
    table_pb2.ACTION_ALL_IN: Kind.ALL_IN,
    table_pb2.ACTION_DISCARD: Kind.DISCARD,
    table_pb2.ACTION_OPEN_DISCARD: Kind.OPEN_DISCARD,
    table_pb2.ACTION_SHOW: Kind.SHOW,
    table_pb2.ACTION_MUCK: Kind.MUCK,
    table_pb2.ACTION_DECLARE_BOARD: Kind.DECLARE_BOARD,
}
ACTIONS = {kind: action for action, kind in KINDS.items()}
UNSEEN = "??"


def is_my_decision(view: table_pb2.TableView) -> bool:
    """True when the hand waits for the viewer and the view lists what the viewer may do."""
    return view.viewer_seat >= 0 and view.to_act == view.viewer_seat and len(view.legal_actions) > 0


def to_bot_view(view: table_pb2.TableView) -> BotView:
    """The viewer's decision as a `BotView` (only meaningful when `is_my_decision`)."""
    variant = VARIANTS.get(view.options.game)
    if variant is None:
        raise ValueError(f"table {view.table_id} deals a game the bots do not know")
    seats = {seat.seat: seat for seat in view.seats}
    me = seats[view.viewer_seat]
    highest = max(view.current_bet, max((seat.bet for seat in view.seats), default=0))
    others = [s for s in view.seats if s.seat != me.seat and s.in_hand and not s.folded]
    dead: list[str] = []
    for seat in view.seats:
        if seat.seat != me.seat:
            dead.extend(seat.open_discards)
            dead.extend(card for card in seat.cards if card != UNSEEN)
    board = tuple(view.board)
    options = view.options
    unit = options.big_blind or options.small_bet or max(options.ante * 2, 1)
    shown = tuple(
        tuple(s.cards) for s in others if s.cards and all(card != UNSEEN for card in s.cards)
    )
    return BotView(
        variant=variant,
        seat=me.seat,
        hole=tuple(card for card in me.cards if card != UNSEEN),
        board=board,
        legal=tuple(
            _legal(action, me.cards) for action in view.legal_actions if action.action in KINDS
        ),
        # Pots count every chip put in this hand, this round's bets included.
        pot=sum(pot.amount for pot in view.pots),
        to_call=max(0, min(highest - me.bet, me.stack)),
        stack=me.stack,
        bet=me.bet,
        unit=unit,
        opponents=max(len(others), 1),
        dead=tuple(dead),
        wild_rank=board[0][0] if variant is Variant.SPIT and board else None,
        five_of_a_kind_high=options.five_of_a_kind != table_pb2.FIVE_KIND_BELOW_STRAIGHT_FLUSH,
        shown=shown,
    )


def _legal(action: table_pb2.LegalAction, hole: Sequence[str]) -> Legal:
    allowed = set(action.discardable)
    return Legal(
        kind=KINDS[action.action],
        min_amount=action.min_amount,
        max_amount=action.max_amount,
        min_cards=action.min_cards,
        max_cards=action.max_cards,
        forbidden=tuple(c for c in hole if allowed and c not in allowed),
    )


def to_act_request(
    view: table_pb2.TableView, action: BotAction, idempotency_key: str
) -> table_pb2.ActRequest:
    return table_pb2.ActRequest(
        table_id=view.table_id,
        hand_number=view.hand_number,
        action=ACTIONS[action.kind],
        amount=action.amount if action.kind in (Kind.BET, Kind.RAISE) else 0,
        cards=list(action.cards),
        expected_version=view.version,
        idempotency_key=idempotency_key,
    )
