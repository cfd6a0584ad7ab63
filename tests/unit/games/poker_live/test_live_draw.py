"""Live-dealer draw games (Six-Card Open Draw, Spit in the Ocean) on the real poker engine: the
dealer's reports deal the engine's cards; on both sides of each boundary of the rules for cards
exposed in the deal and in the draw, extra cards and a short stub; the chips stay exact."""

from __future__ import annotations

import pytest

from services.games.cards import parse_card
from services.games.errors import InvalidAction, NotAllowedNow
from services.games.poker import events as ev
from services.games.poker.catalog import SIX_CARD_OPEN_DRAW, SPIT_IN_THE_OCEAN
from services.games.poker.game_rules import RULES
from services.games.poker.live.procedures import BOARD
from services.games.poker.live.table import draw_hand, next_card
from tests.unit.games.poker_live.live_table import LiveTable, seated_live_table

# Six cards each to seats 1, 2, 0 (the dealing order), one at a time.
SIX = "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc 2d 3d 4d 5d 6d 7d"
# Seat 1 holds 2c 5c 8c Jc 2d 5d; seat 2 3c 6c 9c Qc 3d 6d; seat 0 4c 7c Tc Kc 4d 7d.
FOUR = "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc"  # Spit: four each


def six_card() -> LiveTable:
    return seated_live_table(game=SIX_CARD_OPEN_DRAW)


def spit() -> LiveTable:
    return seated_live_table(game=SPIT_IN_THE_OCEAN)


def _show_down(table: LiveTable) -> None:
    while table.state.engine.hand is not None and RULES.to_act(table.state):
        table.act("show")


def _engine_cards(table: LiveTable) -> list[str]:
    hand = table.state.engine.hand
    assert hand is not None
    cards = [card for p in hand.players for card in p.cards]
    return [*cards, *hand.board, *hand.burned, *hand.discard_pile]


def test_a_six_card_hand_is_dealt_drawn_and_played_to_the_end() -> None:
    table = six_card()
    assert table.order() == (1, 2, 0)
    table.deal_round_robin(SIX)
    assert table.cards_of(1) == ("2c", "5c", "8c", "Jc", "2d", "5d")
    assert table.to_act() == 1  # the draw, no betting before it
    table.discard("2c 5c")
    assert RULES.to_act(table.state) == frozenset()  # the dealer deals the draw
    table.hole("Ah", 1)
    assert RULES.to_act(table.state) == frozenset()  # one card to go
    table.hole("Kh", 1)
    assert sorted(table.cards_of(1)) == sorted(("8c", "Jc", "2d", "5d", "Ah", "Kh"))
    assert table.to_act() == 2
    table.discard()  # stands pat
    table.discard("4c")
    table.hole("Qh", 0)
    for _ in range(3):
        table.act("check")
    for seat in (1, 2, 0):
        table.discard(table.cards_of(seat)[0], "open-discard")
    for _ in range(3):
        table.act("check")
    _show_down(table)
    assert any(isinstance(e, ev.HandEnded) for e in table.events)  # shown down and paid
    assert table.state.engine.last_hand == 2
    assert table.chips() == 300


def test_the_first_or_second_card_exposed_is_a_misdeal() -> None:
    table = six_card()
    table.hole("2c", 1)
    table.hole("3c", 2, face_up=True)  # the second card dealt
    assert table.kinds()[-1] == "misdeal"
    assert table.state.live is not None and table.state.live.redeals == 1
    table.deal_round_robin(SIX)  # the same cards may come again
    assert table.to_act() == 1
    assert table.chips() == 300


def test_the_third_card_exposed_is_dead_and_replaced_after_the_deal() -> None:
    table = six_card()
    cards = SIX.split()
    table.hole(cards[0], 1)
    table.hole(cards[1], 2)
    table.hole(cards[2], 0, face_up=True)  # 4c: the third card dealt
    assert table.kinds()[-1] == "card_exposed"
    table.deal_round_robin(" ".join(cards[3:]))
    assert table.kinds()[-1] == "exposed_card_dead"
    assert RULES.to_act(table.state) == frozenset()
    with pytest.raises(InvalidAction, match="seat 0 is owed"):
        table.hole("Ah", 1)
    assert "exposed_card_replaced" in table.kinds(table.hole("Ah", 0))
    assert "4c" not in table.cards_of(0) and "Ah" in table.cards_of(0)
    hand = table.state.engine.hand
    assert hand is not None and "4c" in hand.out  # dead: the stub counts it out
    assert table.to_act() == 1


def test_two_exposed_cards_in_the_deal_are_a_misdeal() -> None:
    table = six_card()
    cards = SIX.split()
    table.hole(cards[0], 1)
    table.hole(cards[1], 2)
    table.hole(cards[2], 0, face_up=True)
    table.hole(cards[3], 1)
    table.exposed(cards[3])  # a face-down card flashed: the second exposed
    assert table.kinds()[-1] == "misdeal"
    assert draw_hand(table.state).hole_dealt == 0


# --- the draw: a card the dealer exposes vs one the player exposes -------------------------


def _dealt_six() -> LiveTable:
    table = six_card()
    table.deal_round_robin(SIX)
    return table


def test_a_draw_card_the_dealer_exposes_is_replaced_after_the_others_have_drawn() -> None:
    table = _dealt_six()
    table.discard("2c 5c")  # seat 1
    assert "draw_card_exposed" in table.kinds(table.hole("Ah", 1, face_up=True))
    table.hole("Kh", 1)  # its other card: seat 1's draw goes on without the exposed one
    assert table.to_act() == 2
    table.discard("3c")
    table.hole("Qh", 2)
    table.discard("4c 7c")
    table.hole("Jh", 0)
    table.hole("Th", 0)
    assert RULES.to_act(table.state) == frozenset()  # the betting waits for the replacement
    before = table.state
    with pytest.raises(InvalidAction, match="seat 1 is owed"):
        table.hole("9h", 0)
    assert table.state is before
    assert "exposed_card_replaced" in table.kinds(table.hole("9h", 1))
    assert sorted(table.cards_of(1)) == sorted(("8c", "Jc", "2d", "5d", "Kh", "9h"))
    hand = table.state.engine.hand
    assert hand is not None and "Ah" in hand.out and "Ah" not in _engine_cards(table)
    assert all(len(table.cards_of(seat)) == 6 for seat in (0, 1, 2))
    assert table.to_act() == 1  # now the betting
    assert table.chips() == 300


def test_the_last_player_standing_pat_still_waits_for_the_replacement() -> None:
    table = _dealt_six()
    table.discard("2c")
    table.hole("Ah", 1, face_up=True)  # seat 1's only card: exposed
    table.discard()
    table.discard()  # the last player stands pat: the draw is over but for seat 1's card
    assert RULES.to_act(table.state) == frozenset()
    assert not any(
        isinstance(e, ev.PhaseStarted) and e.name == "after the draw" for e in table.events
    )
    table.hole("Kh", 1)
    assert sorted(table.cards_of(1)) == sorted(("5c", "8c", "Jc", "2d", "5d", "Kh"))
    assert table.to_act() == 1


def test_a_draw_card_flashed_while_the_draw_is_dealt_is_replaced_after_the_draw() -> None:
    table = _dealt_six()
    table.discard("2c 5c")
    table.hole("Ah", 1)
    assert "draw_card_exposed" in table.kinds(table.exposed("Ah"))
    table.hole("Kh", 1)
    table.discard()
    table.discard()
    table.hole("Qh", 1)  # the replacement
    assert sorted(table.cards_of(1)) == sorted(("8c", "Jc", "2d", "5d", "Kh", "Qh"))


def test_a_draw_card_exposed_once_the_players_draw_is_dealt_is_kept() -> None:
    table = _dealt_six()
    table.discard("2c")
    table.hole("Ah", 1)  # seat 1's draw is complete
    before = table.state
    with pytest.raises(NotAllowedNow, match="the player keeps it"):
        table.exposed("Ah")
    assert table.state is before


def test_a_card_the_player_exposes_is_theirs() -> None:
    table = _dealt_six()
    table.discard("2c")
    table.hole("Ah", 1)
    events = table.exposed("Ah", kind="player_exposed")
    assert isinstance(events[0], ev.IrregularityReported) and table.kinds(events)[1:] == [
        "card_kept"
    ]
    kept = events[-1]
    assert isinstance(kept, ev.ProcedureApplied) and kept.cards == ("Ah",) and kept.seat == 1
    assert "Ah" in table.cards_of(1)
    assert table.to_act() == 2  # nothing else moved
    with pytest.raises(InvalidAction, match="not in the hand"):
        table.exposed("As", kind="player_exposed")


# --- extra cards: one vs two after the deal; beyond a player's discards ---------------------


def test_one_extra_card_after_the_deal_goes_back_to_the_deck() -> None:
    table = _dealt_six()
    assert "extra_card_returned" in table.kinds(table.hole("Ah", 1))
    assert "Ah" not in table.cards_of(1) and parse_card("Ah") in draw_hand(table.state).deck
    table.discard("2c")
    table.hole("Ah", 1)  # back in the deck: it may be dealt again
    assert "Ah" in table.cards_of(1)


def test_two_extra_cards_after_the_deal_are_a_misdeal_and_the_antes_stay() -> None:
    table = _dealt_six()
    table.hole("Ah", 1)
    assert "misdeal" in table.kinds(table.hole("Kh", 1))
    assert table.committed() == {0: 1, 1: 1, 2: 1}
    assert table.chips() == 300
    table.deal_round_robin(SIX)
    assert table.to_act() == 1


def test_a_card_beyond_a_players_discards_goes_back_to_the_deck() -> None:
    table = _dealt_six()
    table.discard("2c")
    table.hole("Ah", 1)
    assert "extra_card_returned" in table.kinds(table.hole("Kh", 1))
    assert "Kh" not in table.cards_of(1)
    table.discard("3c")
    with pytest.raises(InvalidAction, match="seat 2 is drawing"):
        table.hole("Qh", 1)  # seat 2 discarded since: nothing more for seat 1
    table.hole("Qh", 2)
    table.discard()
    with pytest.raises(NotAllowedNow, match="no card is due to seat 1"):
        table.hole("Jh", 1)


# --- the stub: covered vs short -------------------------------------------------------------

SEVEN = [f"{rank}{suit}" for suit in "cdhs" for rank in "23456789TJQKA"]


def _dealt_seven() -> LiveTable:
    table = seated_live_table((100,) * 7, SIX_CARD_OPEN_DRAW)
    table.deal_round_robin(" ".join(SEVEN[:42]))  # ten cards left in the stub
    return table


def _draw(table: LiveTable, count: int, cards: list[str]) -> None:
    seat = table.to_act()
    table.discard(" ".join(table.cards_of(seat)[:count]))
    for card in cards[:count]:
        table.hole(card, seat)
    del cards[:count]


def test_a_draw_the_stub_covers_takes_no_reshuffle() -> None:
    table = _dealt_seven()
    stub = SEVEN[42:]
    _draw(table, 4, stub)
    _draw(table, 4, stub)
    _draw(table, 2, stub)  # exactly the last two cards
    assert "discards_reshuffled" not in table.kinds()
    assert not draw_hand(table.state).deck


def test_a_short_stub_takes_the_discards_but_not_the_drawing_players() -> None:
    table = _dealt_seven()
    stub = SEVEN[42:]
    first = table.cards_of(table.to_act())[:4]
    _draw(table, 4, stub)
    _draw(table, 4, stub)
    seat = table.to_act()
    own = table.cards_of(seat)[:3]
    events = table.discard(" ".join(own))  # three cards, two in the stub
    assert "discards_reshuffled" in table.kinds(events)
    assert {str(card) for card in draw_hand(table.state).deck} >= set(first)
    before = table.state
    with pytest.raises(InvalidAction, match="already been seen"):
        table.hole(own[0], seat)  # its own discards stay out
    assert table.state is before
    for card in (*stub, first[0]):
        table.hole(card, seat)
    assert first[0] in table.cards_of(seat)
    assert table.chips() == 700


def test_a_replacement_owed_after_the_draw_reshuffles_an_empty_stub() -> None:
    table = _dealt_seven()
    stub = SEVEN[42:]
    seat = table.to_act()
    table.discard(" ".join(table.cards_of(seat)[:4]))
    table.hole(stub[0], seat, face_up=True)  # exposed: owed after the draw
    for card in stub[1:4]:
        table.hole(card, seat)
    _draw(table, 4, stub := stub[4:])
    _draw(table, 2, stub)
    assert not draw_hand(table.state).deck
    for _ in range(4):
        table.discard()
    assert "discards_reshuffled" in table.kinds()
    pile = table.state.engine.hand.discard_pile if table.state.engine.hand else ()
    assert len(draw_hand(table.state).deck) == 6 and len(pile) == 4  # seat's own 4 stay
    card = sorted(str(c) for c in draw_hand(table.state).deck)[0]
    table.hole(card, seat)
    assert card in table.cards_of(seat) and table.to_act() is not None
    assert table.chips() == 700


# --- Spit in the Ocean -------------------------------------------------------------------------


def test_spit_the_spit_card_comes_without_a_burn_and_alone() -> None:
    table = spit()
    table.deal_round_robin(FOUR)
    with pytest.raises(NotAllowedNow, match="burns no card"):
        table.burn("Ah")
    table.board("7h")
    hand = table.state.engine.hand
    assert hand is not None and hand.board == ("7h",) and hand.burned == ()
    with pytest.raises(NotAllowedNow, match="one spit card"):
        table.board("8h")
    for _ in range(3):
        table.act("check")
    table.discard("2c")
    table.hole("Ah", 1, face_up=True)
    table.discard("3c")
    table.hole("Kh", 2)
    table.discard()
    table.hole("Qh", 1)
    assert sorted(table.cards_of(1)) == sorted(("5c", "8c", "Jc", "Qh"))
    for _ in range(3):
        table.act("check")
    _show_down(table)
    assert table.state.engine.last_hand == 2 and table.chips() == 300


def test_spit_the_third_card_exposed_is_dead_and_replaced_before_the_spit_card() -> None:
    table = spit()
    cards = FOUR.split()
    table.hole(cards[0], 1)
    table.hole(cards[1], 2)
    table.hole(cards[2], 0, face_up=True)
    for i, card in enumerate(cards[3:]):
        table.hole(card, table.order()[i % 3])
    assert table.kinds()[-1] == "exposed_card_dead"
    with pytest.raises(NotAllowedNow, match="the spit card comes after the deal"):
        table.board("7h")  # the replacement first
    table.hole("Ah", 0)
    assert table.cards_of(0) == ("7c", "Tc", "Kc", "Ah")
    table.board("7h")
    hand = table.state.engine.hand
    assert hand is not None and hand.board == ("7h",) and "4c" in hand.out
    assert table.to_act() == 1


# --- the card due next ------------------------------------------------------------------------


def _due(table: LiveTable) -> tuple[int | str, bool, str] | None:
    due = next_card(table.state)
    return None if due is None else (due.recipient, due.face_up, due.what)


def test_the_card_due_next_in_a_draw_hand() -> None:
    table = spit()
    assert _due(table) == (1, False, "seat 1's 1st card, face down")
    table.deal_round_robin(FOUR)
    assert _due(table) == (BOARD, True, "the spit card, face up (no burn)")
    table.board("7h")
    assert _due(table) is None  # the betting
    for _ in range(3):
        table.act("check")
    assert _due(table) is None  # seat 1 to discard
    table.discard("2c 5c")
    assert _due(table) == (1, False, "seat 1's draw: 2 more card(s), face down")
    table.hole("Ah", 1, face_up=True)
    assert _due(table) == (1, False, "seat 1's draw: 1 more card(s), face down")
    table.hole("Kh", 1)
    table.discard()
    table.discard()
    assert _due(table) == (
        1,
        False,
        "seat 1's replacement for its exposed draw card, face down",
    )
    table.hole("Qh", 1)
    assert _due(table) is None and table.to_act() == 1
