"""Differential test: random no-limit, pot-limit and fixed-limit hold'em hands played in
lockstep by the engine and by pokerkit from the same deck — same seat to act, same raise
range, same final stacks — with short stacks so that all-ins, incomplete raises and side
pots are common."""

from __future__ import annotations

import random
import warnings
from collections import deque

import pytest
from pokerkit import Card as PkCard
from pokerkit import FixedLimitTexasHoldem, NoLimitTexasHoldem, State
from pokerkit.games import PotLimitPokerMixin, TexasHoldemMixin, UnfixedLimitHoldem

from services.games.cardtext import FULL_DECK
from services.games.poker import (
    TEXAS_HOLDEM,
    Act,
    NeedCards,
    NeedRanks,
    OddChips,
    StartHand,
    Structure,
    TableConfig,
    deal_from,
    legal_actions,
    pending_chance,
    rank_hands,
)
from services.games.poker.betting import reopened_for
from services.games.poker.events import Event, PotAwarded
from services.games.poker.plan import plan_of
from services.games.reference_ranking import ReferenceRanker
from tests.unit.games.poker.support import run, seat_stacks, seated_table
from tests.unit.games.poker.test_golden_hands import engine_command, pokerkit_advance

RANKER = ReferenceRanker()


class PotLimitTexasHoldem(PotLimitPokerMixin, TexasHoldemMixin, UnfixedLimitHoldem):
    """pokerkit ships pot-limit Omaha, not pot-limit hold'em; its parts make one."""


def play_both(
    seed: int,
    structure: Structure,
    diverged: list[int],
    odd_chips: OddChips = OddChips.ONE_EACH_FROM_BUTTON_LEFT,
) -> int:
    """Play one hand both ways; returns the chips split pots left over (odd chips)."""
    rng = random.Random(seed)
    n = rng.randint(2, 6)
    stacks = [rng.choice([3, 7, 15, 40, 120, 300]) for _ in range(n)]
    ante = rng.choice([0, 1])
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    config = TableConfig(
        game=TEXAS_HOLDEM,
        structure=structure,
        seats=n,
        small_blind=1,
        big_blind=2,
        ante=ante,
        first_button_seat=n - 1,
        uncapped_heads_up=False,
        max_buy_in=10**6,
        odd_chips=odd_chips,
    )
    if structure is Structure.NO_LIMIT:
        pk = NoLimitTexasHoldem.create_state((), True, ante, (1, 2), 2, tuple(stacks), n)
    elif structure is Structure.POT_LIMIT:
        pk = PotLimitTexasHoldem((), True, ante, (1, 2), 2)(tuple(stacks), n)
    else:
        pk = FixedLimitTexasHoldem.create_state((), True, ante, (1, 2), 2, 4, tuple(stacks), n)
    pk.deck_cards = deque(PkCard.parse("".join(deck)))
    pokerkit_advance(pk)
    state, _ = seated_table(config, stacks)
    log: list[Event] = []
    state, _ = run(state, StartHand(), log)
    cards = iter(deck)
    while state.hand is not None:
        skip_moot_checks(pk, state.hand.to_act)
        request = pending_chance(state)
        if isinstance(request, NeedCards):
            state, _ = run(state, deal_from(request, cards), log)
            continue
        if isinstance(request, NeedRanks):
            state, _ = run(state, rank_hands(state, RANKER), log)
            continue
        assert state.hand is not None
        seat = state.hand.to_act
        assert seat is not None
        legal = legal_actions(state, seat)
        if "show" in legal.actions:
            state, _ = run(state, Act(seat, "show"), log)
            continue
        assert state.hand is not None  # (mypy forgets it after the rebinding branch above)
        assert pk.actor_index == seat, (seed, pk.actor_index, seat)
        can_raise = pk.can_complete_bet_or_raise_to()
        ours = bool({"bet", "raise", "all-in"} & legal.actions) and legal.all_in_to > (
            state.hand.current_bet
        )
        if (
            can_raise
            and not ours
            and not reopened_for(plan_of(state.config), state.hand, state.hand.player(seat))
        ):
            # pokerkit lets a player who already acted re-raise after a short all-in
            # (uoftcprg/pokerkit#45); the engine follows TDA Rule 43. Neither raises here.
            can_raise = False
            diverged.append(seed)
        preflop = state.hand.phase == 1
        if can_raise and not ours and structure is Structure.FIXED_LIMIT and preflop:
            # pokerkit caps fixed-limit preflop at four raises besides the big blind; the
            # engine counts the blind as the bet (a bet and three raises: 2-4-6-8 at 2/4),
            # the usual cardroom cap. Neither raises here.
            assert state.hand.bets_made == 4
            can_raise = False
        assert can_raise == ours, (seed, legal)
        options = ["cc"]
        if pk.checking_or_calling_amount and pk.can_fold():
            options.append("f")
        if can_raise:
            low = pk.min_completion_betting_or_raising_to_amount
            high = pk.max_completion_betting_or_raising_to_amount
            assert low is not None and high is not None  # pokerkit: None when it cannot raise
            if {"bet", "raise"} & legal.actions:
                assert (low, high) == (legal.min_to, legal.max_to), (seed, legal)
            else:  # only an all-in for less than a full raise
                assert low == high == legal.all_in_to, (seed, legal)
            options.append(f"cbr:{rng.randint(low, high)}")
        token = rng.choice(options)
        state, _ = run(state, engine_command(state, token), log)
        if token == "f":
            pk.fold()
        elif token == "cc":
            pk.check_or_call()
        else:
            pk.complete_bet_or_raise_to(int(token.split(":")[1]))
        pokerkit_advance(pk)
    skip_moot_checks(pk, None)
    our_stacks = seat_stacks(state, n)
    # Odd chips: by default the engine hands a pot's leftover chips out one each to the tied
    # winners nearest the button; pokerkit gives the whole remainder to the first of them.
    # Stacks may then differ by at most the leftover chips of split pots, never in total.
    leftover = sum(
        e.amount % len({sh.seat for sh in e.shares})
        for e in log
        if isinstance(e, PotAwarded) and len({sh.seat for sh in e.shares}) > 1
    )
    assert sum(our_stacks) == sum(pk.stacks), seed
    if odd_chips is OddChips.ALL_TO_FIRST_FROM_BUTTON_LEFT:
        assert our_stacks == list(pk.stacks), seed  # pokerkit's own rule: always the same
    assert all(abs(a - b) <= leftover for a, b in zip(our_stacks, pk.stacks, strict=True)), seed
    if leftover == 0:
        assert our_stacks == list(pk.stacks), seed
    return leftover


def skip_moot_checks(pk: State, engine_to_act: int | None) -> None:
    """pokerkit still asks for a check when every opponent is all in and nothing can change;
    the engine skips that decision. Check for pokerkit and move on."""
    while (
        pk.status
        and pk.actor_index is not None
        and pk.actor_index != engine_to_act
        and not pk.checking_or_calling_amount
        and not pk.can_complete_bet_or_raise_to()
    ):
        pk.check_or_call()
        pokerkit_advance(pk)


@pytest.mark.parametrize(
    "structure", [Structure.NO_LIMIT, Structure.POT_LIMIT, Structure.FIXED_LIMIT]
)
def test_random_hands_match_pokerkit_action_by_action(structure: Structure) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        diverged: list[int] = []
        for seed in range(150):
            play_both(seed, structure, diverged)
    assert len(diverged) < 15  # the known pokerkit divergence stays an edge case


@pytest.mark.parametrize(
    "structure", [Structure.NO_LIMIT, Structure.POT_LIMIT, Structure.FIXED_LIMIT]
)
def test_with_pokerkits_odd_chip_rule_every_hand_ends_on_pokerkits_stacks(
    structure: Structure,
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        leftovers = [
            play_both(seed, structure, [], OddChips.ALL_TO_FIRST_FROM_BUTTON_LEFT)
            for seed in range(150)
        ]
    assert any(leftovers)  # split pots with odd chips were played (tests/unit/games/poker/
    # test_odd_chips.py and tests/unit/table/test_history_odd_chips.py pin three-way splits)
