"""Poker's parts of the table API, spelled for people: options and moves by name.

holdem(small_blind=1, big_blind=2, seats=6)         # TableOptions of a no-limit table
poker_move("raise", 6)                               # PokerMove: raise to 6
poker_move("discard", cards=["2c", "7d"])
"""

from __future__ import annotations

from collections.abc import Sequence

from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import table_pb2

VARIANTS: dict[str, poker_pb2.Variant.ValueType] = {
    "holdem": poker_pb2.VARIANT_TEXAS_HOLDEM,
    "holdem-hilo": poker_pb2.VARIANT_HOLDEM_HILO,
    "spit-in-the-ocean": poker_pb2.VARIANT_SPIT_IN_THE_OCEAN,
    "six-card-open-draw": poker_pb2.VARIANT_SIX_CARD_OPEN_DRAW,
}
STRUCTURES: dict[str, poker_pb2.Structure.ValueType] = {
    "no-limit": poker_pb2.STRUCTURE_NO_LIMIT,
    "pot-limit": poker_pb2.STRUCTURE_POT_LIMIT,
    "fixed-limit": poker_pb2.STRUCTURE_FIXED_LIMIT,
}
ACTIONS: dict[str, poker_pb2.Action.ValueType] = {
    "fold": poker_pb2.ACTION_FOLD,
    "check": poker_pb2.ACTION_CHECK,
    "call": poker_pb2.ACTION_CALL,
    "bet": poker_pb2.ACTION_BET,
    "raise": poker_pb2.ACTION_RAISE,
    "all-in": poker_pb2.ACTION_ALL_IN,
    "discard": poker_pb2.ACTION_DISCARD,
    "open-discard": poker_pb2.ACTION_OPEN_DISCARD,
    "show": poker_pb2.ACTION_SHOW,
    "muck": poker_pb2.ACTION_MUCK,
    "declare-board": poker_pb2.ACTION_DECLARE_BOARD,
}
ACTION_NAMES = {value: name for name, value in ACTIONS.items()}
VARIANT_NAMES = {value: name for name, value in VARIANTS.items()}
STRUCTURE_NAMES = {value: name for name, value in STRUCTURES.items()}


def poker_move(action: str, amount: int = 0, cards: Sequence[str] = ()) -> poker_pb2.PokerMove:
    """A poker move by name (`ACTIONS`); BET and RAISE amounts are "raise to" totals."""
    try:
        code = ACTIONS[action]
    except KeyError:
        raise ValueError(f"unknown action {action!r}; one of {', '.join(ACTIONS)}") from None
    return poker_pb2.PokerMove(action=code, amount=amount, cards=cards)


def poker_options(
    *,
    variant: str = "holdem",
    structure: str = "no-limit",
    small_blind: int = 1,
    big_blind: int = 2,
    ante: int = 0,
    seats: int = 6,
    min_buy_in: int = 0,
    max_buy_in: int = 0,
    action_time_ms: int = 30_000,
    time_bank_ms: int = 0,
    currency: str = "CHIP",
    min_players_to_start: int = 0,
    live_dealer: bool = False,
) -> table_pb2.TableOptions:
    """A poker table's options; buy-ins default to 20 and 200 big blinds (or antes x 10).
    `live_dealer`: a dealer at a physical table reports the cards (hold'em games only)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown poker variant {variant!r}; one of {', '.join(VARIANTS)}")
    if structure not in STRUCTURES:
        raise ValueError(f"unknown structure {structure!r}; one of {', '.join(STRUCTURES)}")
    unit = big_blind or ante * 2 or 1
    return table_pb2.TableOptions(
        seats=seats,
        currency=currency,
        min_buy_in=min_buy_in or 20 * unit,
        max_buy_in=max_buy_in or 200 * unit,
        action_time_ms=action_time_ms,
        time_bank_ms=time_bank_ms,
        min_players_to_start=min_players_to_start,
        poker=poker_pb2.PokerOptions(
            variant=VARIANTS[variant],
            structure=STRUCTURES[structure],
            small_blind=small_blind,
            big_blind=big_blind,
            ante=ante,
            live_dealer=live_dealer,
        ),
    )
