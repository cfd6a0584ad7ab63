"""Random dealer reports, irregularities and player moves at a live table on the real engine
never create or lose chips and never deal a card twice within a hand; a refused report
changes nothing."""

from __future__ import annotations

import random

from hypothesis import event, given, settings
from hypothesis import strategies as st

from services.games import contract as c
from services.games.cards import standard_deck
from services.games.errors import RuleViolation
from services.games.poker.game_rules import RULES
from services.games.poker.live.procedures import Street
from services.games.poker.live.reports import BOARD, BURN, SEAT, DealtCard, Irregularity
from services.games.poker.live.table import live_hand
from services.games.poker.moves import PokerMove
from tests.unit.games.poker_live.live_table import LiveTable, seated_live_table

DECK = [str(card) for card in standard_deck()]  # "Ax" below: a card nobody has seen yet
STACKS = (60, 100, 140)


def _command(table: LiveTable, kind: str, value: object, seat: int) -> c.Command | None:
    if kind == "report":
        assert isinstance(value, DealtCard)
        if value.card == "Ax" and table.state.engine.hand is None:
            value = DealtCard("As", value.to, None, value.face_up)
        if table.state.engine.hand is not None and value.card == "Ax":
            # Mostly a card nobody has seen (any card otherwise): the next one of the deck.
            live = live_hand(table.state)
            unseen = sorted(live.deck - live.in_play(), key=lambda card: card.index)
            if unseen:
                value = DealtCard(str(unseen[seat % len(unseen)]), value.to, None, value.face_up)
        if value.to == SEAT:
            if seat == len(STACKS) and table.state.engine.hand is not None:
                live = live_hand(table.state)  # the card that is due: a hole card or the board's
                if live.replacement_for is not None:
                    return c.Report(DealtCard(value.card, SEAT, live.replacement_for), by="d")
                if live.street is not Street.DEAL:
                    to = BOARD if live.burned_for_street or live.no_burn else BURN
                    return c.Report(DealtCard(value.card, to, None, value.face_up), by="d")
                seat = live.seats[live.hole_dealt % len(live.seats)]
            value = DealtCard(value.card, SEAT, seat, value.face_up)
        return c.Report(value, by="dealer")
    if kind == "misdeal":
        return c.Report(Irregularity("misdeal", "declared"), by="dealer")
    if kind == "exposed":
        # A card some seat holds (or any card, when none does): exposed after it was dealt.
        held = []
        if table.state.engine.hand is not None:
            live = live_hand(table.state)
            held = [str(card) for s in live.seats for card in live.holes[s]]
        card = held[seat % len(held)] if held else DECK[seat]
        return c.Report(Irregularity("card_exposed", "", card=card), by="dealer")
    to_act = sorted(RULES.to_act(table.state))
    if not to_act:
        return None
    legal = RULES.legal_moves(table.state, to_act[0])
    actions = sorted(legal.actions)
    assert isinstance(value, int)
    action = actions[value % len(actions)]
    amount = legal.min_to if action in ("bet", "raise") else None
    return c.Move(to_act[0], PokerMove(action, amount), by=f"p{to_act[0]}")


def _check(table: LiveTable) -> None:
    assert table.chips() == sum(STACKS)
    hand = table.state.engine.hand
    if hand is not None:
        cards = [card for p in hand.players for card in p.cards]
        cards += [*hand.board, *hand.burned]
        assert len(cards) == len(set(cards)), f"a card dealt twice: {cards}"


def _steps(rng: random.Random, count: int) -> list[tuple[str, object, int]]:
    """`count` steps: a report half the time (to a seat, the board or the burn pile, mostly the
    card and place that are due, face up now and then), a move, a hole card reported exposed
    later, or a declared misdeal."""
    steps: list[tuple[str, object, int]] = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.5:
            to = rng.choice([SEAT, SEAT, BOARD, BURN])
            card = "Ax" if rng.random() < 0.8 else rng.choice(DECK)
            dealt = DealtCard(card, to, None, rng.random() < 0.04)
            steps.append(("report", dealt, rng.choice([0, 1, 2, 3, 3, 3, 3])))
        elif roll < 0.94:
            steps.append(("move", rng.randrange(6), 0))
        elif roll < 0.97:
            steps.append(("exposed", None, rng.randrange(52)))
        else:
            steps.append(("misdeal", None, 0))
    return steps


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(50, 400))
def test_random_reports_keep_every_chip_and_deal_no_card_twice(
    rng: random.Random, count: int
) -> None:
    table = seated_live_table(STACKS)
    for kind, value, seat in _steps(rng, count):
        command = _command(table, kind, value, seat)
        if command is None:
            continue
        before = table.state
        try:
            table.send(command)
        except RuleViolation:
            assert table.state is before
        _check(table)
    event(f"hands started: {min(table.state.engine.last_hand, 4)}")
    misdeals = sum(1 for e in table.events if getattr(e, "kind", "") == "misdeal")
    event(f"misdeals: {min(misdeals, 3)}")
