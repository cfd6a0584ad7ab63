"""Golden hands: real recorded no-limit hold'em hands replayed through the public API with a
pinned deck reach the recorded final stacks, with pokerkit driven through the same hand in
lockstep (same seat to act at every decision, same final stacks)."""

from __future__ import annotations

from collections import deque

import pytest
from pokerkit import Card as PkCard
from pokerkit import NoLimitTexasHoldem, State

from services.games.cardtext import FULL_DECK
from services.games.poker import (
    TEXAS_HOLDEM,
    Act,
    NeedCards,
    NeedRanks,
    StartHand,
    TableConfig,
    deal_from,
    legal_actions,
    pending_chance,
    rank_hands,
)
from services.games.poker.state import TableState
from services.games.reference_ranking import ReferenceRanker
from tests.unit.games.poker.golden_hands import RECORDED_HANDS, RecordedHand
from tests.unit.games.poker.support import run, seat_stacks, seated_table


def pinned_deck(hand: RecordedHand) -> list[str]:
    """The recorded deck with each unknown burn card replaced by a card nobody saw."""
    compact = "".join(hand.deck.split())
    cards = [compact[i : i + 2] for i in range(0, len(compact), 2)]
    unused = iter(c for c in FULL_DECK if c not in cards)
    return [next(unused) if c == "??" else c for c in cards]


def pokerkit_state(hand: RecordedHand, deck: list[str]) -> State:
    antes = {1: hand.ante} if hand.big_blind_ante else hand.ante
    trimming = not hand.big_blind_ante  # as in the recorded pokerkit transcriptions
    game = NoLimitTexasHoldem((), trimming, antes, hand.blinds, hand.blinds[1])
    state = game(tuple(hand.stacks), len(hand.stacks))
    state.deck_cards = deque(PkCard.parse("".join(deck)))
    return state


def pokerkit_advance(state: State) -> None:
    """Every non-decision step (posting, dealing, showdown, chips) until a player acts."""
    while state.status and state.actor_index is None:
        for name in (
            "post_ante",
            "collect_bets",
            "post_blind_or_straddle",
            "burn_card",
            "deal_hole",
            "deal_board",
            "select_runout_count",
            "show_or_muck_hole_cards",
            "kill_hand",
            "push_chips",
            "pull_chips",
        ):
            if getattr(state, f"can_{name}")():
                getattr(state, name)()
                break
        else:
            raise AssertionError("pokerkit is stuck")


def engine_command(state: TableState, token: str) -> Act:
    # Called only while pokerkit waits on a player: the engine must have a seat to act too.
    assert state.hand is not None and state.hand.to_act is not None
    seat = state.hand.to_act
    legal = legal_actions(state, seat)
    if token == "f":
        return Act(seat, "fold")
    if token == "cc":
        return Act(seat, "check" if "check" in legal.actions else "call")
    amount = int(token.split(":")[1])
    if amount == legal.all_in_to and "all-in" in legal.actions:
        return Act(seat, "all-in")
    kind = "bet" if "bet" in legal.actions else "raise"
    return Act(seat, kind, amount)


@pytest.mark.parametrize("hand", RECORDED_HANDS, ids=lambda h: h.name)
def test_recorded_hand_reaches_the_recorded_stacks_in_lockstep_with_pokerkit(
    hand: RecordedHand,
) -> None:
    n = len(hand.stacks)
    config = TableConfig(
        game=TEXAS_HOLDEM,
        seats=n,
        small_blind=hand.blinds[0],
        big_blind=hand.blinds[1],
        ante=hand.ante,
        big_blind_ante=hand.big_blind_ante,
        first_button_seat=n - 1,
        max_buy_in=10**9,
    )
    deck = pinned_deck(hand)
    state, _ = seated_table(config, list(hand.stacks))
    state, _ = run(state, StartHand())
    cards = iter(deck)
    pk = pokerkit_state(hand, deck)
    pokerkit_advance(pk)
    actions = hand.actions.split()
    while state.hand is not None:
        engine_hand = state.hand  # (mypy forgets the narrowing of state.hand in the elifs)
        request = pending_chance(state)
        if isinstance(request, NeedCards):
            state, _ = run(state, deal_from(request, cards))
        elif isinstance(request, NeedRanks):
            state, _ = run(state, rank_hands(state, ReferenceRanker()))
        elif engine_hand.to_act is not None and actions:
            assert pk.actor_index == engine_hand.to_act
            token = actions.pop(0)
            state, _ = run(state, engine_command(state, token))
            if token == "f":
                pk.fold()
            elif token == "cc":
                pk.check_or_call()
            else:
                pk.complete_bet_or_raise_to(int(token.split(":")[1]))
            pokerkit_advance(pk)
        else:  # showdown: everybody shows
            assert engine_hand.to_act is not None
            state, _ = run(state, Act(engine_hand.to_act, "show"))
    assert actions == []
    final = seat_stacks(state, n)
    assert final == hand.final
    assert list(pk.stacks) == hand.final
