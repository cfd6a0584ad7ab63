"""The layout, ready and the spit that starts the middle piles, through the dealer's requests."""

from __future__ import annotations

from collections import Counter

import pytest

from services.games import contract as c
from services.games.errors import NotAllowedNow
from services.games.spit import HIDDEN, RULES, Expected, PlayCard, Ready, SpitConfig, Variation
from services.games.spit import events as ev
from services.games.spit.cards import FULL_DECK
from services.games.spit.state import Phase
from tests.unit.games.spit.support import Dealer, Table, cards_held


def test_a_game_starts_when_both_seats_are_taken_with_one_shuffled_deck() -> None:
    table = Table()
    table.run(c.SitDown(0, "ann", 100))
    assert RULES.pending_chance(table.state) is None  # one player: nothing to start
    table.run(c.SitDown(1, "bob", 100))
    assert RULES.pending_chance(table.state) == c.StartRound(1)
    table.run(c.RoundStarts(1))
    assert RULES.pending_chance(table.state) == c.OpenShuffle(1, "deck", c.DeckSpec(copies=1))
    table.settle()
    draws = [e for e in table.events if isinstance(e, ev.LaidOut)]
    assert [e.seat for e in draws] == [0, 1]
    assert table.deal.phase is Phase.READY


def test_each_player_lays_out_piles_of_one_to_five_with_eleven_spit_cards() -> None:
    table = Table()
    table.seat_both()
    for side in table.deal.sides:
        assert [p.size for p in side.places] == [1, 2, 3, 4, 5]
        assert all(p.up is not None and len(p.down) == p.size - 1 for p in side.places)
        assert len(side.spit) == 11
    assert cards_held(table.state) == Counter(FULL_DECK)


def test_the_layout_is_dealt_like_patience_row_by_row() -> None:
    order = list(FULL_DECK)
    table = Table(dealer=Dealer(orders={"deck": order}))
    table.seat_both()
    places = table.deal.sides[0].places
    # row 1: the first five cards, one on each pile; row 2: the next four on piles 2-5; ...
    assert places[0].up == order[0]
    assert places[1].down == (order[1],) and places[1].up == order[5]
    assert (
        places[4].down == (order[4], order[8], order[11], order[13]) and places[4].up == order[14]
    )
    assert table.deal.sides[0].spit == tuple(order[15:26])
    assert table.deal.sides[1].spit == tuple(order[41:52])


def test_four_piles_lays_out_one_to_four_with_sixteen_spit_cards() -> None:
    table = Table(SpitConfig(piles=4))
    table.seat_both()
    for side in table.deal.sides:
        assert [p.size for p in side.places] == [1, 2, 3, 4]
        assert len(side.spit) == 16


def test_nobody_sees_face_down_or_spit_cards_not_even_their_owner() -> None:
    table = Table()
    table.seat_both()
    laid = [e for e in table.events if isinstance(e, ev.LaidOut)]
    for viewer in (None, 0, 1):
        for event in laid:
            seen = RULES.redact(event, viewer)
            assert isinstance(seen, ev.LaidOut)
            assert all(p[:-1] == (HIDDEN,) * (len(p) - 1) for p in seen.places)
            assert [p[-1] for p in seen.places] == [p[-1] for p in event.places]
            assert seen.spit == (HIDDEN,) * 11
        view = RULES.view_for(table.state, viewer)
        for seat in view.seats:
            assert seat is not None
            assert [p.down for p in seat.places] == [0, 1, 2, 3, 4] and seat.spit == 11


def test_when_both_are_ready_each_spits_a_card_to_start_their_own_middle_pile() -> None:
    table = Table()
    table.seat_both()
    spit = [side.spit[0] for side in table.deal.sides]
    assert RULES.to_act(table.state) == {0, 1}
    assert table.move(0, Ready()) == [ev.PlayerReady(0)]
    assert RULES.to_act(table.state) == {1}
    events = table.move(1, Ready())
    assert events[:3] == [ev.PlayerReady(1), ev.Spat(0, 0, spit[0]), ev.Spat(1, 1, spit[1])]
    assert [p.starter for p in table.deal.middle] == [0, 1]
    assert table.deal.phase is Phase.PLAYING
    assert RULES.to_act(table.state) == {0, 1}


def test_nobody_plays_before_both_are_ready() -> None:
    table = Table()
    table.seat_both()
    table.move(0, Ready())
    with pytest.raises(NotAllowedNow, match="starts when both players are ready"):
        table.move(0, PlayCard(0, 0))


def test_a_player_who_does_not_say_ready_in_time_is_ready() -> None:
    table = Table(SpitConfig(ready_ms=20_000))
    table.seat_both()
    table.move(0, Ready())
    assert RULES.deadlines(table.state) == [c.Deadline(1, "1/ready", 20_000)]
    events = table.run(c.TimeOut(1, "1/ready"))
    assert events[0] == ev.PlayerReady(1, timed_out=True)
    assert table.deal.phase is Phase.PLAYING
    assert table.run(c.TimeOut(1, "1/ready")) == []  # a stale timer changes nothing


def test_ready_twice_changes_nothing() -> None:
    table = Table()
    table.seat_both()
    table.move(0, Ready())
    assert table.move(0, Ready()) == []


def test_a_move_pinned_to_another_deal_is_refused() -> None:
    table = Table()
    table.seat_both()
    table.move(0, Ready())
    with pytest.raises(NotAllowedNow, match="no deal 2 yet"):
        table.move(0, Ready(), Expected(deal=2))


def test_bicycle_each_player_shuffles_their_own_deck_into_a_row_of_four_and_a_stock() -> None:
    table = Table(SpitConfig(variation=Variation.BICYCLE))
    table.run(c.SitDown(0, "ann", 0))
    table.run(c.SitDown(1, "bob", 0))
    table.run(c.RoundStarts(1))
    assert RULES.pending_chance(table.state) == c.OpenShuffle(1, "seat-0", c.DeckSpec(copies=1))
    table.settle()
    for side in table.deal.sides:
        assert [p.size for p in side.places] == [1, 1, 1, 1]
        assert len(side.spit) == 48
    assert cards_held(table.state) == Counter(FULL_DECK * 2)


def test_speed_deals_twenty_to_each_player_and_two_side_stacks_of_six() -> None:
    table = Table(SpitConfig(variation=Variation.SPEED))
    table.seat_both()
    requests = [e for e in table.events if isinstance(e, ev.LaidOut | ev.SideStackDealt)]
    assert len(requests) == 4
    for side in table.deal.sides:
        assert [p.size for p in side.places] == [1] * 5 and len(side.spit) == 15
    assert [len(s) for s in table.deal.stacks] == [6, 6]
    first = [stack[0] for stack in table.deal.stacks]
    table.move(0, Ready())
    events = table.move(1, Ready())
    assert events[1:3] == [ev.Spat(None, 0, first[0]), ev.Spat(None, 1, first[1])]


def test_a_speed_hand_is_seen_by_its_owner_only() -> None:
    table = Table(SpitConfig(variation=Variation.SPEED))
    table.seat_both()
    hand = [p.up for p in table.deal.sides[0].places]
    assert [p.up for p in RULES.view_for(table.state, 0).seats[0].places] == hand  # type: ignore[union-attr]
    for viewer in (None, 1):
        seat = RULES.view_for(table.state, viewer).seats[0]
        assert seat is not None and [p.up for p in seat.places] == [HIDDEN] * 5
        laid = next(e for e in table.events if isinstance(e, ev.LaidOut) and e.seat == 0)
        seen = RULES.redact(laid, viewer)
        assert isinstance(seen, ev.LaidOut) and all(p == (HIDDEN,) for p in seen.places)
