"""Proto messages <-> evaluator library types. Every bad input becomes InvalidArgument."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

from croupier.evaluator.v1 import evaluator_pb2 as pb
from services.games.cards import Card, InvalidCardError, parse_card
from services.ranking import (
    GameRules,
    HandError,
    HandResult,
    LowResult,
    SeatCards,
    Split,
    UseRule,
    WildSubstitution,
    cards_of_ranks,
)
from services.ranking.equity import EquityGame, EquityResult
from services.shared.errors import InvalidArgument

MAX_HANDS_PER_CALL = 10_000
MAX_SAMPLES = 1_000_000
MAX_EXACT_DEALS = 5_000_000


@contextlib.contextmanager
def invalid_argument() -> Iterator[None]:
    """Report library errors about the hand (bad counts, duplicates) as INVALID_ARGUMENT."""
    try:
        yield
    except (HandError, InvalidCardError) as error:
        raise InvalidArgument(str(error)) from error


# Every card text ever parsed, valid ones only: at most 52 cards x 4 spellings ("As", "as",
# "AS", "aS"), so it stays tiny, and a showdown's 23 parses become dict lookups.
_PARSED: dict[str, Card] = {}


def cards(texts: Iterable[str], field: str) -> tuple[Card, ...]:
    out = []
    for text in texts:
        card = _PARSED.get(text)
        if card is None:
            try:
                card = parse_card(text)
            except InvalidCardError as error:
                raise InvalidArgument(f"{field}: {error}") from error
            _PARSED[text] = card
        out.append(card)
    return tuple(out)


def wild_set(rules: pb.HandRules) -> frozenset[Card]:
    wild = set(cards(rules.wild_cards, "rules.wild_cards"))
    for rank in rules.wild_ranks:
        if len(rank) != 1:
            raise InvalidArgument(f"rules.wild_ranks: invalid rank {rank!r}, e.g. '2' or 'T'")
        with invalid_argument():
            wild |= cards_of_ranks(rank)
    return frozenset(wild)


def use_rule(rules: pb.HandRules) -> UseRule:
    if rules.min_hole_cards == 0 and rules.max_hole_cards == 0:
        return UseRule()
    if rules.max_hole_cards < rules.min_hole_cards:
        raise InvalidArgument(
            f"rules: max_hole_cards ({rules.max_hole_cards}) is below min_hole_cards "
            f"({rules.min_hole_cards})"
        )
    return UseRule(rules.min_hole_cards, rules.max_hole_cards)


def game_rules(split: int, rules: pb.HandRules) -> GameRules:
    if split == pb.POT_SPLIT_HIGH_LOW_EIGHT_OR_BETTER:
        chosen = Split.HIGH_LOW_EIGHT_OR_BETTER
    elif split in (pb.POT_SPLIT_HIGH_ONLY, pb.POT_SPLIT_UNSPECIFIED):
        chosen = Split.HIGH_ONLY
    else:
        raise InvalidArgument(f"split: unknown value {split}")
    return GameRules(
        split=chosen,
        wild_cards=wild_set(rules),
        five_kind_below_straight_flush=rules.five_of_a_kind_below_straight_flush,
        use=use_rule(rules),
    )


def seats(items: Iterable[pb.SeatCards], field: str) -> list[SeatCards]:
    return [SeatCards(s.seat, cards(s.hole_cards, f"{field}[seat {s.seat}]")) for s in items]


EQUITY_GAMES = {
    pb.EQUITY_GAME_HOLDEM: EquityGame.HOLDEM,
    pb.EQUITY_GAME_HOLDEM_HI_LO: EquityGame.HOLDEM_HI_LO,
    pb.EQUITY_GAME_SPIT_IN_THE_OCEAN: EquityGame.SPIT_IN_THE_OCEAN,
}


def equity_game(value: int) -> EquityGame:
    game = EQUITY_GAMES.get(pb.EquityGame.ValueType(value))
    if game is None:
        raise InvalidArgument("game: choose HOLDEM, HOLDEM_HI_LO or SPIT_IN_THE_OCEAN")
    return game


def _substitutions(items: Iterable[WildSubstitution]) -> list[pb.WildSubstitution]:
    return [pb.WildSubstitution(wild_card=str(s.wild), stands_for=str(s.stands_for)) for s in items]


def high_hand(result: HandResult) -> pb.HighHand:
    return pb.HighHand(
        category=pb.Category.ValueType(int(result.category)),
        value=result.value,
        cards=[str(c) for c in result.cards],
        description=result.description,
        wild_substitutions=_substitutions(result.substitutions),
        plays_board=result.plays_board,
    )


def low_hand(result: LowResult | None) -> pb.LowHand | None:
    if result is None:
        return None
    return pb.LowHand(
        value=result.value,
        cards=[str(c) for c in result.cards],
        description=result.description,
        wild_substitutions=_substitutions(result.substitutions),
    )


def equity_response(result: EquityResult, seat_ids: list[int]) -> pb.EquityResponse:
    return pb.EquityResponse(
        players=[
            pb.PlayerEquity(
                seat=seat,
                win=p.win,
                tie=p.tie,
                lose=p.lose,
                equity=p.equity,
                standard_error=p.standard_error,
            )
            for seat, p in zip(seat_ids, result.players, strict=True)
        ],
        exact=result.exact,
        trials=result.trials,
        budget_exhausted=not result.complete,
    )
