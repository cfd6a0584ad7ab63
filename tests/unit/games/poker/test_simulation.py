"""Seeded random play through the public API: invariants that must hold in every hand.

Random legal players (including timeouts), random structures, stacks and seat counts, with
players sitting out, coming back and topping up between hands. For every hand: chips are
conserved, no card is dealt twice (unless reshuffled back), the hand terminates, replaying
the stream gives the live state, and no view or redacted event shows a card its viewer may
not see (another seat's unrevealed cards, burned cards, others' face-down discards).
"""

from __future__ import annotations

import random
from dataclasses import fields, is_dataclass

import pytest

from services.games.cardtext import FULL_DECK
from services.games.poker import (
    GAMES,
    Act,
    Action,
    LegalActions,
    NeedCards,
    NeedHandStart,
    NeedRanks,
    NeedReshuffle,
    SitIn,
    SitOut,
    StartHand,
    Structure,
    TableConfig,
    TableState,
    TimeOut,
    TopUp,
    deal_from,
    legal_actions,
    pending_chance,
    rank_hands,
    redact,
    replay,
    reshuffle,
    view_for,
)
from services.games.poker.events import (
    CardsDealt,
    CardsDiscarded,
    CardsShown,
    DiscardsReshuffled,
    Event,
    HandEnded,
    PlayerSeated,
    PotAwarded,
)
from services.games.poker.playout import Policy, play_hand, step
from services.games.poker.views import HIDDEN
from services.games.reference_ranking import ReferenceRanker
from tests.unit.games.poker.support import ShuffledStub, random_policy, seated_table

RANKER = ReferenceRanker()


def random_config(game_name: str, rng: random.Random) -> TableConfig:
    game = GAMES[game_name]
    seats = rng.randint(2, min(game.max_seats, 9))
    ante_game = game.forced_bets.value == "antes"
    return TableConfig(
        game=game,
        structure=rng.choice(game.structures),
        seats=seats,
        small_blind=1,
        big_blind=2,
        ante=rng.choice([1, 2]) if ante_game else rng.choice([0, 0, 1]),
        draw_limit=rng.choice([None, 2, 3]),
        first_button_seat=rng.randrange(seats),
        rake_basis_points=rng.choice([0, 500]),
        rake_cap=rng.choice([0, 3]),
        uncapped_heads_up=rng.choice([True, False]),
        five_of_a_kind_beats_straight_flush=rng.choice([True, False]),
        max_buy_in=1000,
    )


def policy_with_timeouts(rng: random.Random) -> Policy:
    choose = random_policy(rng)

    def policy(state: TableState, legal: LegalActions) -> Act | TimeOut:
        if rng.random() < 0.05:
            assert state.hand is not None
            return TimeOut(legal.seat, state.hand.number)
        return choose(state, legal)

    return policy


def check_privacy(state: TableState) -> None:
    hand = state.hand
    if hand is None:
        return
    for viewer in [None, *(p.seat for p in hand.players)]:
        view = view_for(state, viewer)
        for seat_view in view.seats:
            if not seat_view.in_hand:
                continue
            mine = seat_view.seat == viewer
            if mine or seat_view.shown:
                assert HIDDEN not in seat_view.cards
            else:
                assert set(seat_view.cards) <= {HIDDEN}


def cards_in(value: object) -> set[str]:
    """Every card string anywhere inside an event (its fields, tuples, nested records)."""
    if isinstance(value, str):
        return {value} if value in FULL_DECK else set()
    if isinstance(value, tuple | list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    names = [name for name, _ in getattr(type(value), "FIELDS", ())]  # engine event classes
    if is_dataclass(value):
        names = [f.name for f in fields(value)]
    if names:
        return set().union(*(cards_in(getattr(value, name)) for name in names))
    return set()


def check_redaction(events: list[Event], seats: list[int]) -> None:
    """No redacted event shows a viewer another seat's unrevealed card or a burned card."""
    secret: dict[int | None, set[str]] = {None: set()}
    public: set[str] = set()
    for e in events:
        if isinstance(e, CardsDealt):
            secret[None] |= set(e.burned)
            if e.seat is None or e.face_up:
                public |= set(e.cards)
            else:
                secret.setdefault(e.seat, set()).update(e.cards)
        elif isinstance(e, CardsShown) or (isinstance(e, CardsDiscarded) and e.face_up):
            public |= set(e.cards)
    for viewer in [None, *seats]:
        forbidden = set().union(*(c for s, c in secret.items() if s != viewer or s is None))
        forbidden -= public | secret.get(viewer, set())  # a reshuffled card may come back
        for e in events:
            if isinstance(e, CardsShown):
                continue
            leaked = cards_in(redact(e, viewer)) & forbidden
            assert not leaked, f"{e.TYPE} shows {leaked} to viewer {viewer}"


def play_table(game_name: str, seed: int, hands: int) -> int:
    rng = random.Random(seed)
    config = random_config(game_name, rng)
    stacks = [rng.choice([None, 20, 60, 200, 500]) for _ in range(config.seats)]
    while sum(1 for s in stacks if s) < 2:
        stacks[rng.randrange(config.seats)] = 100
    state, log = seated_table(config, stacks)
    money_in = sum(e.stack for e in log if isinstance(e, PlayerSeated))
    rake = 0
    played = 0
    policy = policy_with_timeouts(rng)
    for _ in range(hands):
        for seat, s in enumerate(state.seats):  # between hands: sit out, back in, top up
            if s is None:
                continue
            roll = rng.random()
            if roll < 0.03 and not s.sitting_out:
                state = step(state, SitOut(seat), log)
            elif s.sitting_out and roll < 0.3:
                state = step(state, SitIn(seat, post_big_blind=rng.random() < 0.5), log)
            elif s.stack < 10 and roll < 0.5:
                state = step(state, TopUp(seat, 100), log)
                money_in += 100
        if not isinstance(pending_chance(state), NeedHandStart):
            continue
        start = len(log)
        run = play_hand(state, policy, ShuffledStub(rng), RANKER)
        state = run.state
        log += run.events
        played += 1
        hand_events = log[start:]
        check_redaction(hand_events, [i for i, seat in enumerate(state.seats) if seat])
        rake += sum(e.rake for e in hand_events if isinstance(e, PotAwarded))
        assert isinstance(hand_events[-1], HandEnded) or any(
            isinstance(e, HandEnded) for e in hand_events
        )
        assert sum(s.stack for s in state.seats if s) + rake == money_in
        out: set[str] = set()
        for e in hand_events:
            if isinstance(e, CardsDealt):
                for card in (*e.cards, *e.burned):
                    assert card not in out, f"{card} dealt twice in {hand_events[0]}"
                    out.add(card)
            elif isinstance(e, DiscardsReshuffled):
                out -= set(e.cards)
            elif isinstance(e, CardsShown):
                assert len(e.cards) == len(set(e.cards))
    assert replay(log) == state
    return played


def test_mid_hand_views_never_show_hidden_cards_and_every_offered_action_is_accepted() -> None:
    rng = random.Random(7)
    for game_name in GAMES:
        config = random_config(game_name, rng)
        state, log = seated_table(config, [300] * config.seats)
        choose = random_policy(rng)
        for _ in range(20):
            if not isinstance(pending_chance(state), NeedHandStart):
                break
            state = step(state, StartHand(), log)
            stub = ShuffledStub(rng)
            while state.hand is not None:
                check_privacy(state)
                request = pending_chance(state)
                if isinstance(request, NeedCards):
                    state = step(state, deal_from(request, stub), log)
                elif isinstance(request, NeedReshuffle):
                    stub.put_back(request.discards)
                    state = step(state, reshuffle(request), log)
                elif isinstance(request, NeedRanks):
                    state = step(state, rank_hands(state, RANKER), log)
                else:
                    assert state.hand is not None and state.hand.to_act is not None
                    legal = legal_actions(state, state.hand.to_act)
                    assert legal.actions
                    state = step(state, choose(state, legal), log)
        assert replay(log) == state


@pytest.mark.parametrize("game_name", sorted(GAMES))
def test_random_tables_conserve_chips_never_reuse_a_card_and_replay_exactly(game_name: str) -> None:
    played = sum(play_table(game_name, seed, 30) for seed in range(12))
    assert played >= 250


@pytest.mark.slow
@pytest.mark.parametrize("game_name", sorted(GAMES))
def test_thousands_of_random_hands_per_variant(game_name: str) -> None:
    played = sum(play_table(game_name, 1000 + seed, 100) for seed in range(24))
    assert played >= 2000


def test_every_structure_is_exercised() -> None:
    rng = random.Random(1)
    seen = {random_config("texas-holdem", rng).structure for _ in range(30)}
    assert seen == {Structure.NO_LIMIT, Structure.POT_LIMIT, Structure.FIXED_LIMIT}
    assert Action.ALL_IN in Action.BETTING
    assert Act(0, "fold").action == "fold"
