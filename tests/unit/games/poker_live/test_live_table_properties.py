"""Random dealer reports, irregularities and player moves at a live table on the real engine
never create or lose chips and never deal a card twice within a hand; a refused report
changes nothing."""

from __future__ import annotations

import random

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from services.games import contract as c
from services.games.cards import standard_deck
from services.games.errors import RuleViolation
from services.games.poker.catalog import SIX_CARD_OPEN_DRAW, SPIT_IN_THE_OCEAN
from services.games.poker.definitions import GameDefinition
from services.games.poker.game_rules import RULES
from services.games.poker.live.draw import Stage
from services.games.poker.live.procedures import Street
from services.games.poker.live.reports import BOARD, BURN, SEAT, DealtCard, Irregularity
from services.games.poker.live.table import draw_hand, live_hand, next_card
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


def _due_card_is_accepted(table: LiveTable) -> None:
    """The card the table says is due next, reported where and how it says, is accepted."""
    due = next_card(table.state)
    if due is None:
        return
    live = table.state.live
    assert live is not None
    model = draw_hand(table.state) if _is_draw(table) else live_hand(table.state)
    unseen = sorted(model.deck - model.in_play(), key=lambda card: card.index)
    if not unseen:
        return
    card = str(unseen[0])
    if isinstance(due.recipient, int):
        report = DealtCard(card, SEAT, due.recipient, due.face_up)
    else:
        report = DealtCard(card, BOARD if due.recipient == "board" else BURN, None, due.face_up)
    RULES.decide(table.state, c.Report(report, by="dealer"))  # raises if it were refused


def _is_draw(table: LiveTable) -> bool:
    return table.state.engine.config.game.name in ("six-card-open-draw", "spit-in-the-ocean")


def _check(table: LiveTable) -> None:
    if len(table.events) % 4 == 0:  # now and then: it decides a whole report
        _due_card_is_accepted(table)
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


# --- the draw games ----------------------------------------------------------------------------


def _due_seat(table: LiveTable) -> int | str | None:
    """Where the table expects the next card: a seat, the board, or nowhere."""
    due = next_card(table.state)
    return None if due is None else due.recipient


def _draw_step(table: LiveTable, rng: random.Random, kind: str, roll: int) -> c.Command | None:
    hand = table.state.engine.hand
    if kind == "report":
        if hand is None:
            return c.Report(DealtCard("As", SEAT, 0), by="dealer")
        live = draw_hand(table.state)
        unseen = sorted(live.deck, key=lambda card: card.index)
        card = str(unseen[roll % len(unseen)]) if unseen and roll % 10 else DECK[roll % 52]
        seats = len(table.state.engine.seats)
        due = _due_seat(table) if roll % 7 else rng.choice([*range(seats), BOARD, BURN])
        # Rare in the deal (two exposed cards there are a misdeal), common in the draw.
        face_up = roll % (120 if live.stage is Stage.DEAL else 12) == 0
        if isinstance(due, str):  # the board or the burn pile
            return c.Report(DealtCard(card, due, None, face_up), by="dealer")
        seat = due if isinstance(due, int) else rng.randrange(seats)
        return c.Report(DealtCard(card, SEAT, seat, face_up), by="dealer")
    if kind == "misdeal":
        return c.Report(Irregularity("misdeal", "declared"), by="dealer")
    if kind in ("exposed", "player_exposed"):
        held = [card for p in hand.players for card in p.cards] if hand is not None else []
        card = held[roll % len(held)] if held else DECK[roll % 52]
        return c.Report(
            Irregularity("card_exposed" if kind == "exposed" else kind, "", card=card), by="d"
        )
    to_act = sorted(RULES.to_act(table.state))
    if not to_act:
        return None
    legal = RULES.legal_moves(table.state, to_act[0])
    actions = sorted(legal.actions)
    action = actions[roll % len(actions)]
    amount = legal.min_to if action in ("bet", "raise") else None
    cards: tuple[str, ...] = ()
    if action in ("discard", "open-discard"):
        count = rng.randint(legal.min_discards, legal.max_discards)
        cards = tuple(rng.sample(list(legal.discardable), min(count, len(legal.discardable))))
    return c.Move(to_act[0], PokerMove(action, amount, cards), by=f"p{to_act[0]}")


def _check_draw(table: LiveTable, stacks: tuple[int, ...]) -> None:
    if len(table.events) % 4 == 0:  # now and then: it decides a whole report
        _due_card_is_accepted(table)
    assert table.chips() == sum(stacks)
    hand = table.state.engine.hand
    if hand is None:
        return
    cards = [card for p in hand.players for card in p.cards]
    cards += [*hand.board, *hand.burned, *hand.discard_pile]
    assert len(cards) == len(set(cards)), f"a card twice in the engine's hand: {cards}"
    live = table.state.live
    if live is not None and live.redeal_point is not None:
        model = draw_hand(table.state)
        places = [*model.board, *model.dead, *model.discards]
        places += [card for held in model.holes.values() for card in held]
        assert len(places) == len(set(places)), f"a card in two places: {places}"
        assert not set(places) & model.deck


# Full tables, so the stub runs short in the draw (seven at Six-Card Open Draw leave it 10
# cards, ten at Spit in the Ocean 11).
@pytest.mark.parametrize(
    ("game", "seats"),
    [(SIX_CARD_OPEN_DRAW, 7), (SPIT_IN_THE_OCEAN, 10)],
    ids=["six-card-open-draw", "spit-in-the-ocean"],
)
@settings(max_examples=20, deadline=None)
@given(rng=st.randoms(use_true_random=False), count=st.integers(100, 500))
def test_random_reports_at_a_draw_table_keep_every_chip_and_deal_no_card_twice(
    game: GameDefinition, seats: int, rng: random.Random, count: int
) -> None:
    stacks = tuple(STACKS[i % len(STACKS)] for i in range(seats))
    table = seated_live_table(stacks, game)
    for _ in range(count):
        roll = rng.random()
        kind = (
            "report"
            if roll < 0.55
            else "move"
            if roll < 0.93
            else "exposed"
            if roll < 0.945
            else "player_exposed"
            if roll < 0.97
            else "misdeal"
            if roll < 0.975
            else "report"
        )
        command = _draw_step(table, rng, kind, rng.randrange(1000))
        if command is None:
            continue
        before = table.state
        try:
            table.send(command)
        except RuleViolation:
            assert table.state is before
        _check_draw(table, stacks)
    event(f"hands started: {min(table.state.engine.last_hand, 4)}")
    kinds = {getattr(e, "kind", "") for e in table.events}
    for procedure in ("misdeal", "draw_card_exposed", "exposed_card_dead", "discards_reshuffled"):
        event(f"{procedure}: {procedure in kinds}")
