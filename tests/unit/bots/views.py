"""Decision points for the policy tests, written the way a table would show them."""

from __future__ import annotations

from collections.abc import Iterable

from services.bots.view import BotView, Kind, Legal, Variant


def facing_bet(
    hole: Iterable[str],
    board: Iterable[str] = (),
    *,
    to_call: int = 20,
    pot: int = 50,
    variant: Variant = Variant.HOLDEM,
    opponents: int = 1,
) -> BotView:
    return BotView(
        variant=variant,
        seat=0,
        hole=tuple(hole),
        board=tuple(board),
        legal=(
            Legal(Kind.FOLD),
            Legal(Kind.CALL),
            Legal(Kind.RAISE, min_amount=2 * to_call, max_amount=1000),
        ),
        pot=pot,
        to_call=to_call,
        stack=1000,
        bet=0,
        unit=10,
        opponents=opponents,
    )


def checked_to(
    hole: Iterable[str],
    board: Iterable[str] = (),
    *,
    pot: int = 40,
    variant: Variant = Variant.HOLDEM,
    opponents: int = 1,
    wild_rank: str | None = None,
) -> BotView:
    return BotView(
        variant=variant,
        seat=0,
        hole=tuple(hole),
        board=tuple(board),
        legal=(Legal(Kind.FOLD), Legal(Kind.CHECK), Legal(Kind.BET, min_amount=10, max_amount=500)),
        pot=pot,
        to_call=0,
        stack=500,
        unit=10,
        opponents=opponents,
        wild_rank=wild_rank,
    )


def drawing(
    hole: Iterable[str],
    board: Iterable[str] = (),
    *,
    variant: Variant,
    max_cards: int = 4,
    forbidden: Iterable[str] = (),
    wild_rank: str | None = None,
    opponents: int = 2,
) -> BotView:
    return BotView(
        variant=variant,
        seat=0,
        hole=tuple(hole),
        board=tuple(board),
        legal=(Legal(Kind.DISCARD, max_cards=max_cards, forbidden=tuple(forbidden)),),
        opponents=opponents,
        wild_rank=wild_rank,
    )


def open_discarding(hole: Iterable[str]) -> BotView:
    return BotView(
        variant=Variant.SIX_CARD,
        seat=0,
        hole=tuple(hole),
        board=(),
        legal=(Legal(Kind.OPEN_DISCARD),),
        opponents=2,
    )
