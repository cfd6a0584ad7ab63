import pytest

from services.games.cards import parse_cards as cards
from services.ranking import (
    OMAHA,
    Category,
    GameRules,
    HandError,
    SeatCards,
    Split,
    best_high,
    best_low,
    cards_of_ranks,
    evaluate_high,
    showdown,
)


def seat(number: int, hole: str) -> SeatCards:
    return SeatCards(number, cards(hole))


def test_plays_the_board_when_the_community_cards_are_best() -> None:
    result = best_high(cards("2c 3d"), cards("As Ks Qs Js Ts"))
    assert result.plays_board
    assert result.description == "Royal flush"
    assert [str(c) for c in result.cards] == ["As", "Ks", "Qs", "Js", "Ts"]


def test_does_not_play_the_board_when_a_hole_card_improves_it() -> None:
    result = best_high(cards("Ah 3d"), cards("Kc Kd 9s 9h 4c"))
    assert not result.plays_board
    assert result.description == "Two pair, kings and nines"
    assert str(result.cards[-1]) == "Ah"


def test_omaha_must_use_exactly_two_hole_cards() -> None:
    # Four spades on board and one in hand is no flush in Omaha.
    board = cards("As Ks Qs 2s 7d")
    assert best_high(cards("3s 9h 9c 4d"), board).category is Category.FLUSH  # any cards
    omaha = best_high(cards("3s 9h 9c 4d"), board, OMAHA)
    assert omaha.category is Category.ONE_PAIR
    assert omaha.description == "One pair, nines"


def test_omaha_low_uses_two_hole_and_three_board_cards() -> None:
    low = best_low(cards("Ah 2c Kd Kh"), cards("4s 5s 9s 8d 3c"), OMAHA)
    assert low is not None
    assert low.description == "5-4-3-2-A low"
    assert best_low(cards("Ah Kc Kd Kh"), cards("4s 5s 9s 8d 3c"), OMAHA) is None


def test_use_rule_that_cannot_make_five_cards_is_rejected() -> None:
    with pytest.raises(HandError, match="cannot make five cards"):
        best_high(cards("As Kd"), cards("2c 3c"), OMAHA)


def test_high_only_showdown_names_the_winner() -> None:
    result = showdown(GameRules(), cards("Ah Kd 7c 7s 2h"), [seat(1, "As 7d"), seat(4, "Kc Kh")])
    assert result.high_winners == (4,)
    assert result.low_winners == ()
    by_seat = {s.seat: s for s in result.seats}
    assert by_seat[1].high.description == "Full house, sevens full of aces"
    assert by_seat[4].high.description == "Full house, kings full of sevens"


def test_identical_hands_split_regardless_of_suits() -> None:
    result = showdown(
        GameRules(), cards("Ah Kd Qc Js 3h"), [seat(2, "Tc 2d"), seat(5, "Th 4c"), seat(7, "9d 9c")]
    )
    assert result.high_winners == (2, 5)


def test_hi_lo_showdown_splits_high_and_low() -> None:
    board = cards("Ac 4d 5h Kc Kd")
    result = showdown(
        GameRules(split=Split.HIGH_LOW_EIGHT_OR_BETTER),
        board,
        [seat(1, "2c 3s"), seat(2, "Kh 5s"), seat(3, "2d 3d")],
    )
    assert result.high_winners == (2,)
    assert result.low_winners == (1, 3)
    assert {s.seat: s.low.description for s in result.seats if s.low} == {
        1: "5-4-3-2-A low",
        3: "5-4-3-2-A low",
    }


def test_hi_lo_showdown_without_a_qualifying_low_has_no_low_winners() -> None:
    result = showdown(
        GameRules(split=Split.HIGH_LOW_EIGHT_OR_BETTER),
        cards("Kc Qd 9h 9c 2d"),
        [seat(1, "Ac 3s"), seat(2, "Kh Js")],
    )
    assert result.low_winners == ()
    assert all(s.low is None for s in result.seats)
    assert result.high_winners == (2,)


def test_spit_in_the_ocean_showdown_with_the_spit_rank_wild() -> None:
    spit = cards("7h")
    rules = GameRules(wild_cards=cards_of_ranks("7"))
    result = showdown(rules, spit, [seat(1, "7c As Ad 3c"), seat(2, "Kc Kd Ks Kh")])
    by_seat = {s.seat: s for s in result.seats}
    assert by_seat[1].high.description == "Four of a kind, aces"
    assert by_seat[2].high.description == "Five of a kind, kings"
    assert result.high_winners == (2,)


def test_five_of_a_kind_below_option_changes_the_spit_winner() -> None:
    seats = [seat(1, "Ts Js Qs Ks"), seat(2, "Kc Kd Kh 7s")]  # royal flush v five kings
    default = GameRules(wild_cards=cards_of_ranks("7"))
    assert showdown(default, cards("7h"), seats).high_winners == (2,)
    below = GameRules(wild_cards=cards_of_ranks("7"), five_kind_below_straight_flush=True)
    assert showdown(below, cards("7h"), seats).high_winners == (1,)


def test_duplicate_card_across_seats_is_rejected_naming_it() -> None:
    with pytest.raises(HandError, match="duplicate card As"):
        showdown(GameRules(), cards("Kc Qd 9h 9c 2d"), [seat(1, "As 3s"), seat(2, "As Js")])


def test_hand_with_too_few_cards_is_rejected() -> None:
    with pytest.raises(HandError, match="5 to 9 cards"):
        evaluate_high(cards("As Kd Qh 2c"))
