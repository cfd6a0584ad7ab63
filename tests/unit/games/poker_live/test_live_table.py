"""A live-dealer hold'em hand on the real poker engine: the dealer's reports deal the engine's
cards, the procedures rewind or redeal on the engine's hand, the chips stay exact; on both
sides of each boundary of the irregularity rules."""

from __future__ import annotations

import pytest

from services.games import contract as c
from services.games.errors import InvalidAction, NotAllowedNow
from services.games.poker import TEXAS_HOLDEM, TableConfig
from services.games.poker import events as ev
from services.games.poker.catalog import SIX_CARD_OPEN_DRAW, SPIT_IN_THE_OCEAN
from services.games.poker.game_rules import RULES
from services.games.poker.live.reports import SEAT, DealtCard, Irregularity
from services.games.poker.views import HIDDEN
from tests.unit.games.poker_live.live_table import LiveTable, seated_live_table

HOLES = "As Ks Qs Js Ts 9s"  # seats 1, 2, 0 (the dealing order), twice round


def _preflop_called(table: LiveTable) -> None:
    table.act("call")
    table.act("call")
    table.act("check")


def _engine_cards(table: LiveTable) -> list[str]:
    hand = table.state.engine.hand
    assert hand is not None
    return [card for p in hand.players for card in p.cards] + [*hand.board, *hand.burned]


def test_a_live_table_asks_the_dealer_service_for_nothing() -> None:
    table = seated_live_table()
    assert table.order() == (1, 2, 0)
    assert RULES.pending_chance(table.state) is None  # waits for the dealer's reports
    assert RULES.to_act(table.state) == frozenset()
    assert not any(isinstance(e, ev.DeckCommitted) for e in table.events)


def test_the_reported_cards_are_the_engines_cards() -> None:
    table = seated_live_table()
    table.deal_holes(HOLES)
    hand = table.state.engine.hand
    assert hand is not None
    assert {p.seat: p.cards for p in hand.players} == {
        1: ("As", "Js"),
        2: ("Ks", "Ts"),
        0: ("Qs", "9s"),
    }
    _preflop_called(table)
    table.street("2c", "3c 4c 5c")
    assert table.state.engine.hand is not None
    assert table.state.engine.hand.board == ("3c", "4c", "5c")
    assert table.state.engine.hand.burned == ("2c",)
    assert table.chips() == 300


def test_a_face_down_report_is_hidden_from_the_other_seats() -> None:
    table = seated_live_table()
    (reported,) = table.hole("As", 1)
    assert isinstance(reported, ev.CardReported)
    assert RULES.redact(reported, 1) == reported
    hidden = RULES.redact(reported, 0)
    assert isinstance(hidden, ev.CardReported) and hidden.card == HIDDEN


# --- exposed hole cards: the first two vs any other ------------------------------------------


@pytest.mark.parametrize("exposed", [0, 1])
def test_the_first_or_second_hole_card_exposed_is_a_misdeal(exposed: int) -> None:
    table = seated_live_table()
    order = table.order()
    cards = HOLES.split()
    for i in range(exposed + 1):
        table.hole(cards[i], order[i], face_up=i == exposed)
    which = "first" if exposed == 0 else "second"
    (misdeal,) = [e for e in table.events if isinstance(e, ev.ProcedureApplied)]
    assert misdeal.kind == "misdeal"
    assert misdeal.explanation == (
        f"Misdeal: the {which} hole card was exposed; the hand will be redealt."
    )
    # The same hand is dealt again: same button, the blinds still posted.
    assert table.committed() == {0: 0, 1: 1, 2: 2}
    assert table.state.live is not None and table.state.live.redeals == 1
    table.deal_holes(HOLES)  # the exposed card may be dealt again: the deck was reshuffled
    assert table.to_act() == 0


def test_the_third_hole_card_exposed_is_replaced_and_burned() -> None:
    table = seated_live_table()
    order = table.order()
    cards = HOLES.split()
    for i, card in enumerate(cards):
        table.hole(card, order[i % 3], face_up=i == 2)
    # Seat 0's exposed Qs is the first burn card; seat 0 gets the top card instead.
    assert table.kinds()[-2:] == ["CardReported", "exposed_card_burned"]
    assert RULES.to_act(table.state) == frozenset()  # the deal is not complete
    with pytest.raises(InvalidAction, match="seat 0 is owed the replacement"):
        table.hole("2d", 1)
    table.hole("2d", 0)
    hand = table.state.engine.hand
    assert hand is not None and hand.player(0).cards == ("9s", "2d")
    _preflop_called(table)
    with pytest.raises(NotAllowedNow, match="already on the table"):
        table.burn("8d")
    for card in ("3c", "4c", "5c"):  # the flop without a further burn
        table.board(card)
    assert table.state.engine.hand is not None
    assert table.state.engine.hand.burned == ("Qs",)
    assert table.chips() == 300


def test_two_exposed_hole_cards_are_a_misdeal() -> None:
    table = seated_live_table()
    order = table.order()
    for i, card in enumerate(HOLES.split()[:4]):
        table.hole(card, order[i % 3], face_up=i in (2, 3))
    assert table.kinds()[-1] == "misdeal"
    assert table.committed() == {0: 0, 1: 1, 2: 2}


# --- extra cards: one vs two ---------------------------------------------------------------


def test_one_extra_card_to_the_first_player_is_the_burn_card() -> None:
    table = seated_live_table()
    table.deal_holes(HOLES)
    table.hole("8h", 1)  # the first player dealt gets a third card
    assert table.kinds()[-1] == "extra_card_burned"
    _preflop_called(table)
    for card in ("3c", "4c", "5c"):
        table.board(card)
    assert table.state.engine.hand is not None
    assert table.state.engine.hand.burned == ("8h",)


def test_two_extra_cards_are_a_misdeal_that_returns_every_chip_but_the_blinds() -> None:
    table = seated_live_table()
    table.deal_holes(HOLES)
    table.act("raise", 10)  # seat 0 raises to 10
    table.act("call")  # seat 1 (small blind) calls
    table.hole("8h", 1)
    table.hole("7h", 1)
    assert table.kinds()[-1] == "misdeal"
    assert table.committed() == {0: 0, 1: 1, 2: 2}
    assert table.stacks() == {0: 100, 1: 99, 2: 98}
    assert table.chips() == 300
    assert RULES.to_act(table.state) == frozenset()  # the deal starts again


# --- the flop: too many cards vs dealt before the betting is complete ----------------------


def test_a_flop_with_too_many_cards_is_redealt_without_a_burn() -> None:
    table = seated_live_table()
    table.deal_holes(HOLES)
    _preflop_called(table)
    table.street("2c", "3c 4c 5c 6c")  # four cards turned
    assert table.kinds()[-1] == "flop_redealt"
    hand = table.state.engine.hand
    assert hand is not None and hand.board == ()  # the engine's flop is taken back
    assert RULES.to_act(table.state) == frozenset()
    for card in ("6c", "5c", "7c"):  # reshuffled: any of them may come again, no burn
        table.board(card)
    hand = table.state.engine.hand
    assert hand is not None
    assert hand.board == ("6c", "5c", "7c") and hand.burned == ("2c",)
    assert table.chips() == 300


def test_a_fourth_card_on_an_all_in_flop_is_a_flop_with_too_many_cards() -> None:
    table = seated_live_table()
    table.deal_holes(HOLES)
    table.act("all-in")
    table.act("call")
    table.act("call")  # everyone all in: nobody acts on the flop
    table.street("2c", "3c 4c 5c")
    hand = table.state.engine.hand
    assert hand is not None and hand.board == ("3c", "4c", "5c")
    table.board("6c")  # a fourth card, no burn: the flop's
    assert table.kinds()[-1] == "flop_redealt"
    hand = table.state.engine.hand
    assert hand is not None and hand.board == () and hand.burned == ()
    for card in ("6c", "5c", "7c"):  # a new flop without a burn
        table.board(card)
    hand = table.state.engine.hand
    assert hand is not None
    assert hand.board == ("6c", "5c", "7c") and hand.burned == ("2c",)
    table.street("2d", "3d")  # the turn, then the river, burned as usual
    table.street("2h", "3h")
    assert table.state.engine.hand is None  # shown down and paid
    assert table.chips() == 300


def test_a_board_card_without_a_burn_after_the_flop_was_checked_is_refused() -> None:
    table = seated_live_table()
    table.deal_holes(HOLES)
    _preflop_called(table)
    table.street("2c", "3c 4c 5c")
    for _ in range(3):
        table.act("check")
    before = table.state
    with pytest.raises(NotAllowedNow, match="burn a card"):
        table.board("6c")
    assert table.state is before


def test_a_flop_dealt_before_the_betting_is_complete_is_redealt_without_a_burn() -> None:
    table = seated_live_table()
    table.deal_holes(HOLES)
    table.act("call")
    table.burn("2c")
    table.board("3c")  # premature: seat 1 and 2 have not acted
    assert table.kinds()[-1] == "flop_redealt"
    table.act("call")
    table.act("check")
    for card in ("3c", "4c", "5c"):
        table.board(card)
    hand = table.state.engine.hand
    assert hand is not None and hand.board == ("3c", "4c", "5c") and hand.burned == ("2c",)


# --- premature turn vs premature river -----------------------------------------------------


def _to_flop_betting(table: LiveTable) -> None:
    table.deal_holes(HOLES)
    _preflop_called(table)
    table.street("2c", "3c 4c 5c")


def test_a_premature_turn_is_out_of_play_and_the_river_is_turned_without_a_burn() -> None:
    table = seated_live_table()
    _to_flop_betting(table)
    table.act("check")
    table.burn("2d")
    table.board("Ad")  # the turn, before seats 2 and 0 checked
    assert table.kinds()[-1] == "card_out_of_play"
    table.act("check")
    table.act("check")
    table.street("2h", "Kd")  # what would have been the river, in the turn's place
    hand = table.state.engine.hand
    assert hand is not None and hand.board == ("3c", "4c", "5c", "Kd")
    for _ in range(3):
        table.act("check")
    assert table.kinds()[-1] == "deck_reshuffled"
    with pytest.raises(NotAllowedNow, match="without a burn"):
        table.burn("7d")
    table.board("Ad")  # the card out of play was reshuffled in: it may come as the river
    hand = table.state.engine.hand
    assert hand is not None
    assert hand.board == ("3c", "4c", "5c", "Kd", "Ad")
    assert hand.burned == ("2c", "2d", "2h")
    assert table.chips() == 300


def test_a_premature_river_is_reshuffled_and_turned_without_a_burn() -> None:
    table = seated_live_table()
    _to_flop_betting(table)
    for _ in range(3):
        table.act("check")
    table.street("2d", "Kd")
    table.act("check")
    table.burn("2h")
    table.board("Ad")  # the river, before the turn's betting is complete
    assert table.kinds()[-1] == "card_out_of_play"
    table.act("check")
    table.act("check")
    assert table.kinds()[-1] == "deck_reshuffled"
    table.board("Qd")
    hand = table.state.engine.hand
    assert hand is not None and hand.board[-1] == "Qd" and hand.burned == ("2c", "2d", "2h")


# --- bad reports: nothing changes ----------------------------------------------------------


@pytest.mark.parametrize(
    ("report", "error", "message"),
    [
        (DealtCard("As", SEAT, 2), InvalidAction, "already been seen"),
        (DealtCard("Zz", SEAT, 2), InvalidAction, "not a card"),
        (DealtCard("Kh", SEAT, 7), InvalidAction, "no recipient"),
        (DealtCard("Kh", "board"), NotAllowedNow, "no board card is due"),
        (DealtCard("Kh", "burn"), NotAllowedNow, "no burn card is due"),
        (DealtCard("Kh", SEAT, 1, round=9), NotAllowedNow, "hand 1 is being dealt"),
    ],
)
def test_a_bad_report_is_refused_and_changes_nothing(
    report: DealtCard, error: type[Exception], message: str
) -> None:
    table = seated_live_table()
    table.hole("As", 1)
    before = table.state
    with pytest.raises(error, match=message):
        RULES.decide(before, c.Report(report, by="dealer"))
    assert table.state is before


def test_an_electronic_table_refuses_a_dealers_report() -> None:
    state = RULES.initial_state(TableConfig(game=TEXAS_HOLDEM, seats=2))
    with pytest.raises(NotAllowedNow, match="live_dealer"):
        RULES.decide(state, c.Report(DealtCard("As", SEAT, 0), by="dealer"))


def test_a_player_exposing_a_hole_card_keeps_it() -> None:
    table = seated_live_table()
    table.deal_holes(HOLES)
    events = table.send(c.Report(Irregularity("player_exposed", "", card="Ks"), by="dealer"))
    kept = events[-1]
    assert isinstance(kept, ev.ProcedureApplied) and kept.kind == "card_kept"
    assert kept.cards == ("Ks",) and kept.seat == 2
    hand = table.state.engine.hand
    assert hand is not None and hand.player(2).cards == ("Ks", "Ts")
    table.act("call")  # the hand goes on


def test_a_misdeal_is_declared_only_before_the_first_action() -> None:
    table = seated_live_table()
    table.deal_holes(HOLES)
    table.misdeal("the deck was found short")
    assert table.kinds()[-1] == "misdeal"
    table.deal_holes(HOLES)
    table.act("call")
    with pytest.raises(NotAllowedNow, match="before the first action"):
        table.misdeal("too late")


# --- events are the truth ------------------------------------------------------------------


def test_replaying_a_live_hand_rebuilds_it_and_the_snapshot_round_trips() -> None:
    table = seated_live_table()
    table.deal_holes(HOLES)
    table.hole("8h", 1)  # the extra card is the flop's burn
    _preflop_called(table)
    for card in ("3c", "4c", "5c", "6c"):
        table.board(card)
    state = RULES.initial_state(TableConfig(game=TEXAS_HOLDEM, seats=2))
    state = RULES.apply(state, ev.TableOpened(table.state.engine.config))
    for event in table.events:
        state = RULES.apply(state, event)
    assert state == table.state
    assert RULES.decode_state(RULES.encode_state(table.state)) == table.state
    assert sorted(_engine_cards(table)) == sorted(set(_engine_cards(table)))


@pytest.mark.parametrize(("exposed", "misdeal"), [("Ks", True), ("Qs", False)])
def test_a_face_down_card_exposed_later_in_the_deal(exposed: str, misdeal: bool) -> None:
    """Ks is the second card dealt (a misdeal), Qs the third (replaced after the deal)."""
    table = seated_live_table()
    order = table.order()
    for i, card in enumerate(HOLES.split()[:4]):
        table.hole(card, order[i % 3])
    table.send(c.Report(c.Irregularity("card_exposed", "flashed", card=exposed), by="dealer"))
    reported = [e for e in table.events if isinstance(e, ev.IrregularityReported)]
    assert [(e.kind, e.card) for e in reported] == [("card_exposed", exposed)]
    if misdeal:
        assert table.kinds()[-1] == "misdeal"
        assert table.committed() == {0: 0, 1: 1, 2: 2}
        return
    assert table.kinds()[-1] == "card_exposed"
    for i, card in enumerate(HOLES.split()[4:], start=4):
        table.hole(card, order[i % 3])
    table.hole("2d", 0)
    hand = table.state.engine.hand
    assert hand is not None and hand.player(0).cards == ("9s", "2d")


@pytest.mark.parametrize("game", ["holdem", "six-card-open-draw", "spit-in-the-ocean"])
@pytest.mark.parametrize(
    ("irregularity", "message"),
    [
        (Irregularity("dropped_deck", ""), "an irregularity is one of"),
        (Irregularity("card_exposed", "", card="Zz"), "is not a card"),
    ],
)
def test_a_bad_irregularity_is_refused_at_every_live_game_and_changes_nothing(
    game: str, irregularity: Irregularity, message: str
) -> None:
    games = {
        "holdem": TEXAS_HOLDEM,
        "six-card-open-draw": SIX_CARD_OPEN_DRAW,
        "spit-in-the-ocean": SPIT_IN_THE_OCEAN,
    }
    table = seated_live_table(game=games[game])
    before = table.state
    with pytest.raises(InvalidAction, match=message):
        RULES.decide(before, c.Report(irregularity, by="dealer"))
    assert table.state is before
