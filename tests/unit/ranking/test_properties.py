"""Properties every evaluation must have, over hypothesis-generated hands (derandomized)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from services.games.cards import Card
from services.ranking import evaluate_high, evaluate_low
from services.ranking.low import low_value_of

hands = st.lists(st.integers(0, 51), min_size=5, max_size=7, unique=True).map(
    lambda idx: [Card(i % 13, i // 13) for i in idx]
)
suit_maps = st.permutations(range(4))


@settings(derandomize=True, max_examples=300, deadline=None)
@given(hands, suit_maps)
def test_renaming_suits_never_changes_a_hand(hand: list[Card], perm: list[int]) -> None:
    renamed = [Card(c.rank, perm[c.suit]) for c in hand]
    assert evaluate_high(renamed).value == evaluate_high(hand).value
    assert low_value_of(renamed) == low_value_of(hand)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(hands, st.randoms(use_true_random=False))
def test_card_order_never_changes_a_hand(hand: list[Card], rnd: random.Random) -> None:
    shuffled = list(hand)
    rnd.shuffle(shuffled)
    assert evaluate_high(shuffled).value == evaluate_high(hand).value


@settings(derandomize=True, max_examples=300, deadline=None)
@given(hands, st.data())
def test_making_a_card_wild_never_makes_the_hand_worse(
    hand: list[Card], data: st.DataObject
) -> None:
    wild = data.draw(st.sampled_from(hand))
    high = evaluate_high(hand, frozenset({wild}))
    assert high.value >= evaluate_high(hand).value
    assert low_value_of(hand, frozenset({wild})) >= low_value_of(hand)
    # The cards the result shows, with substitutions applied, make that same hand.
    shown = [next((s.stands_for for s in high.substitutions if s.wild == c), c) for c in high.cards]
    assert len(high.cards) == 5
    if len(set(shown)) == 5:
        assert evaluate_high(shown).value == high.value


@settings(derandomize=True, max_examples=300, deadline=None)
@given(hands)
def test_the_five_cards_shown_make_the_value_reported(hand: list[Card]) -> None:
    result = evaluate_high(hand)
    assert evaluate_high(list(result.cards)).value == result.value
    low = evaluate_low(hand)
    if low is not None:
        again = evaluate_low(list(low.cards))
        assert again is not None
        assert again.value == low.value
