"""The automatic spit, the end of a deal, slaps, the next deal, the one-pile deal, winning."""

from __future__ import annotations

from collections import Counter

import pytest

from services.games import contract as c
from services.games.errors import InvalidAction, NotAllowedNow
from services.games.spit import RULES, PlayCard, Ready, Slap, SpitConfig, execute
from services.games.spit import events as ev
from services.games.spit.state import Phase, SpitState
from tests.unit.games.spit.support import Dealer, Table, position

# Nothing of ann's fits 7h or Jd once her 7h is played (and 3s turns up); nothing of bob's
# fits 8c, 7h or Jd.
ANN = ["3s,7h", "5h", "5d", "5s", "5c"]
BOB = ["2h", "2d", "3c", "3h", "4c"]


def after(state: SpitState, seat: int, move: object) -> tuple[SpitState, list[ev.SpitEvent]]:
    return execute(state, c.Move(seat, move))


def test_the_game_spits_for_both_as_soon_as_nobody_can_play() -> None:
    state = position((ANN, BOB), ["8c", "Jd"], spit=(["6c", "Kd"], ["Qh", "Ks"]))
    _, events = after(state, 0, PlayCard(0, 0))
    assert events == [
        ev.CardPlayed(0, 0, 0, "7h"),
        ev.CardTurnedUp(0, 0, "3s"),
        ev.Spat(0, 0, "6c"),  # each onto the pile they started
        ev.Spat(1, 1, "Qh"),
    ]  # 5h now fits 6c: play goes on


def test_the_spit_repeats_while_nobody_can_play() -> None:
    state = position((ANN, BOB), ["8c", "Jd"], spit=(["9c", "6c"], ["Qh", "Ks"]))
    _, events = after(state, 0, PlayCard(0, 0))
    spits = [e for e in events if isinstance(e, ev.Spat)]
    assert spits == [
        ev.Spat(0, 0, "9c"),
        ev.Spat(1, 1, "Qh"),
        ev.Spat(0, 0, "6c"),
        ev.Spat(1, 1, "Ks"),
    ]


def test_the_lone_spitter_spits_alone_onto_the_pile_they_started() -> None:
    state = position((ANN, BOB), ["8c", "Jd"], spit=([], ["Qh", "6s"]))
    _, events = after(state, 0, PlayCard(0, 0))
    assert [e for e in events if isinstance(e, ev.Spat)] == [
        ev.Spat(1, 1, "Qh"),
        ev.Spat(1, 1, "6s"),
    ]


def test_a_stalled_table_spits_when_a_player_who_can_play_does_not() -> None:
    state = position(
        (ANN, BOB), ["8c", "Jd"], spit=(["6c"], ["Qh"]), config=SpitConfig(stall_ms=9000)
    )
    # only ann can play
    assert RULES.deadlines(state) == [c.Deadline(0, "1/stall", 9000, since=0)]
    assert RULES.decide(state, c.TimeOut(1, "1/stall")) == []  # bob owes nothing
    events = RULES.decide(state, c.TimeOut(0, "1/stall", since=0))
    assert events == [ev.Stalled(0), ev.Spat(0, 0, "6c"), ev.Spat(1, 1, "Qh")]
    moved, _ = after(state, 0, PlayCard(0, 0))
    # a card moved: a stall started before it is stale
    assert RULES.decide(moved, c.TimeOut(0, "1/stall", since=0)) == []


def test_the_stall_is_one_deadline_for_the_table_restarted_by_every_card_moved() -> None:
    state = position(
        (ANN, BOB), ["8c", "3d"], spit=(["6c"], ["Qh"]), config=SpitConfig(stall_ms=9000)
    )
    # Both can play (ann's 7h on 8c, bob's 2h or 4c on 3d): one deadline for the table,
    # named by the deal, on the first seat that can play.
    assert RULES.deadlines(state) == [c.Deadline(0, "1/stall", 9000, since=0)]
    moved, _ = after(state, 0, PlayCard(0, 0))  # ann's 7h; her 3s fits nowhere
    # The same name restarted by the card moved (`since`), now on bob, who alone can play.
    assert RULES.deadlines(moved) == [c.Deadline(1, "1/stall", 9000, since=1)]
    assert RULES.decide(moved, c.TimeOut(1, "1/stall", since=0)) == []  # started before it
    assert RULES.decide(moved, c.TimeOut(1, "1/stall", since=1))[0] == ev.Stalled(1)


def test_no_stall_deadline_when_the_table_sets_none() -> None:
    state = position((ANN, BOB), ["8c", "Jd"], spit=(["6c"], ["Qh"]), config=SpitConfig(stall_ms=0))
    assert RULES.deadlines(state) == []


# --- the end of a two-pile deal ------------------------------------------------------------

# Ann's last stock card is 9c; she still has spit cards.
LAST = ["", "", "", "", "9c"]


BOB_SPIT = ["As", "Ah", "Ad", "Ac", "Ks", "Kc", "Kd", "Qs", "Qc", "Qd", "Js", "Jh"]


def cleared_deal() -> SpitState:
    state = position((LAST, BOB), ["7d,8c", "Kh,Qh,Jd"], spit=(["2s"], BOB_SPIT))
    state, events = after(state, 0, PlayCard(4, 0))
    assert events[-1] == ev.DealOver(1, "cleared", 0)
    return state


def test_a_player_who_clears_their_stock_piles_ends_the_deal_and_both_slap() -> None:
    state = cleared_deal()
    assert state.game is not None and state.game.deal.phase is Phase.SLAPPING
    assert RULES.to_act(state) == {0, 1}
    assert set(RULES.legal_moves(state, 1)) == {Slap(0), Slap(1)}
    assert RULES.deadlines(state) == [c.Deadline(0, "1/slap", 5000), c.Deadline(1, "1/slap", 5000)]


def test_slaps_on_different_piles_each_take_the_pile_they_slapped() -> None:
    state, events = after(cleared_deal(), 1, Slap(0))
    assert events == [ev.Slapped(1, 0, 0)]
    state, events = after(state, 0, Slap(1))
    assert events == [ev.Slapped(0, 1, 1), ev.DealEnded(1, "slapped", (1, 0), (4, 20))]


def test_slaps_on_the_same_pile_the_first_accepted_takes_it_and_the_other_the_other() -> None:
    state, _ = after(cleared_deal(), 0, Slap(0))
    state, events = after(state, 1, Slap(0))
    assert events == [ev.Slapped(1, 0, 1), ev.DealEnded(1, "slapped", (0, 1), (4, 20))]


def test_slapping_twice_is_refused() -> None:
    state, _ = after(cleared_deal(), 0, Slap(0))
    with pytest.raises(NotAllowedNow, match="you already slapped pile 0"):
        RULES.decide(state, c.Move(0, Slap(1)))


def test_playing_when_the_deal_is_over_is_refused_with_the_piles_to_slap() -> None:
    with pytest.raises(
        NotAllowedNow, match=r"deal 1 is over: slap a middle pile \(0: 3 cards, 1: 3"
    ):
        RULES.decide(cleared_deal(), c.Move(1, PlayCard(0, 0)))


def test_a_player_who_has_not_slapped_when_the_slap_time_runs_out_takes_the_pile_left() -> None:
    state, _ = after(cleared_deal(), 0, Slap(0))
    assert RULES.deadlines(state) == [c.Deadline(1, "1/slap", 5000)]
    events = RULES.decide(state, c.TimeOut(1, "1/slap"))
    assert events == [
        ev.Slapped(1, None, 1, timed_out=True),
        ev.DealEnded(1, "slapped", (0, 1), (4, 20)),
    ]
    assert RULES.decide(state, c.TimeOut(0, "1/slap")) == []  # ann slapped: owes nothing


def test_when_nobody_slaps_in_time_each_takes_the_pile_they_started() -> None:
    events = RULES.decide(cleared_deal(), c.TimeOut(0, "1/slap"))
    assert events == [
        ev.Slapped(0, None, 0, timed_out=True),
        ev.Slapped(1, None, 1, timed_out=True),
        ev.DealEnded(1, "slapped", (0, 1), (4, 20)),
    ]


def test_a_deal_with_no_spit_cards_left_and_nobody_able_to_play_ends_stuck() -> None:
    state = position((ANN, BOB), ["8c", "Jd"], spit=([], []))
    _, events = after(state, 0, PlayCard(0, 0))
    assert events[-1] == ev.DealOver(1, "stuck")


def test_each_player_collects_their_pile_and_leftovers_and_the_dealer_shuffles_each_hand() -> None:
    state, _ = after(cleared_deal(), 0, Slap(0))  # ann: 7d 8c 9c + spit 2s
    state, _ = after(state, 1, Slap(1))  # bob: Kh Qh Jd + 5 stock cards + 12 spit
    table = Table(dealer=Dealer(seed=3))
    table.state = state
    ann = ("2s", "7d", "8c", "9c")
    bob = tuple(sorted(("Kh", "Qh", "Jd", *BOB_CARDS, *BOB_SPIT)))
    assert RULES.pending_chance(state) == c.OpenShuffle(2, "seat-0", c.DeckSpec(cards=ann))
    table.settle()
    assert [r for r in table.events if isinstance(r, ev.ShuffleCommitted)] == [
        ev.ShuffleCommitted(2, "seat-0", "2/seat-0", _digest(table, 2, "seat-0")),
        ev.ShuffleCommitted(2, "seat-1", "2/seat-1", _digest(table, 2, "seat-1")),
    ]
    deal = table.deal
    assert deal.number == 2 and deal.phase is Phase.READY
    assert Counter(_cards(deal.sides[1])) == Counter(bob)
    # Ann has 4 cards: dealt into the five piles as far as they go, no spit cards; only bob
    # spits, onto the one middle pile.
    assert [p.size for p in deal.sides[0].places] == [1, 1, 1, 1, 0] and deal.sides[0].spit == ()
    assert deal.one_pile and [p.starter for p in deal.middle] == [1]
    table.move(0, Ready())
    events = table.move(1, Ready())
    assert events[1] == ev.Spat(1, 0, deal.sides[1].spit[0])


BOB_CARDS = ("2h", "2d", "3c", "3h", "4c")


def _cards(side: object) -> list[str]:
    from services.games.spit.reducer import leftovers

    return list(leftovers(side))  # type: ignore[arg-type]


def _digest(table: Table, round_: int, name: str) -> str:
    import hashlib

    return hashlib.sha256(" ".join(table.dealer.dealt[(round_, name)]).encode()).hexdigest()


def test_the_dealer_cannot_deal_a_player_cards_they_do_not_hold() -> None:
    state, _ = after(cleared_deal(), 0, Slap(0))
    state, _ = after(state, 1, Slap(1))
    state = execute(state, c.ShuffleOpened(2, "seat-0", "id", "commit"))[0]
    with pytest.raises(InvalidAction, match="not the cards it holds"):
        RULES.decide(state, c.CardsDrawn(2, "seat-0", ("2s", "7d", "8c", "Ac")))


# --- one middle pile -------------------------------------------------------------------------

SHORT = ["", "", "", "", "9c"]  # ann: one card, no spit cards (a one-pile deal)


def test_in_a_one_pile_deal_the_first_to_clear_without_spit_cards_wins_the_game() -> None:
    config = SpitConfig(stake=10)
    state = position((SHORT, BOB), ["8s"], spit=([], ["Kd"]), one_pile_starter=1, config=config)
    state, events = after(state, 0, PlayCard(4, 0))
    assert events[-1] == ev.GameEnded(1, 0, "cleared", (20, 0), (110, 90))
    assert state.game is not None and state.game.over and state.game.winner == 0
    with pytest.raises(NotAllowedNow, match="game 1 is over"):
        RULES.decide(state, c.Move(1, PlayCard(0, 0)))


def test_in_a_one_pile_deal_a_spitter_who_clears_first_takes_no_cards() -> None:
    spitter = position(
        (["", "", "", "", "9c"], ["2h", "2d", "", "", ""]),
        ["8s"],
        spit=(["Kd", "Qd"], []),
        one_pile_starter=0,
    )
    _, events = after(spitter, 0, PlayCard(4, 0))
    # Ann cleared first and keeps her spit cards; bob takes the middle pile and his own cards.
    assert events[-1] == ev.DealEnded(1, "cleared", (None, 0), (2, 4))


def test_a_stuck_one_pile_deal_gives_the_pile_to_the_player_with_more_cards_left() -> None:
    state = position((["3s,7h", "5h", "", "", ""], BOB), ["8c"], spit=([], []), one_pile_starter=1)
    _, events = after(state, 0, PlayCard(0, 0))
    # ann: 3s 5h (2 cards); bob: 5 cards: bob takes the pile.
    assert events[-1] == ev.DealEnded(1, "stuck", (None, 0), (2, 7))


def test_a_stuck_one_pile_deal_with_equal_cards_gives_the_pile_to_its_starter() -> None:
    state = position(
        (["3s,7h", "5h", "", "", ""], ["2h", "2d", "", "", ""]),
        ["8c"],
        spit=([], []),
        one_pile_starter=0,
    )
    _, events = after(state, 0, PlayCard(0, 0))
    assert events[-1] == ev.DealEnded(1, "stuck", (0, None), (4, 2))


def test_a_player_with_no_spit_cards_who_clears_first_in_a_two_pile_deal_wins() -> None:
    state = position((LAST, BOB), ["7d,8c", "Kh"], spit=([], ["As"]))
    _, events = after(state, 0, PlayCard(4, 0))
    assert events[-1] == ev.GameEnded(1, 0, "cleared", (0, 0), (100, 100))
