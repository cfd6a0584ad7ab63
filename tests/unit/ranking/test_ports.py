import random

from services.bots.strength import Ranker
from services.games.cardtext import FULL_DECK
from services.games.ranking import HandRanker
from services.games.reference_ranking import ReferenceRanker
from services.ranking.ports import LibraryRanker


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def test_library_ranker_fits_the_engine_and_bot_ports() -> None:
    engine: HandRanker = LibraryRanker()
    bots: Ranker = LibraryRanker()
    assert engine.rank_high(
        ["As", "Ks", "Qs", "Js", "Ts", "2c", "2d"], frozenset(), True
    ).label == ("Royal flush")
    assert bots.category(bots.high(["7c", "7d", "7h", "7s", "2c"], "2", True)) == 10


def test_library_ranker_orders_hands_like_the_engines_reference_ranker() -> None:
    ours, reference = LibraryRanker(), ReferenceRanker()
    rng = random.Random(5)
    for _ in range(400):
        a, b = rng.sample(FULL_DECK, 7), rng.sample(FULL_DECK, 7)
        mine = ours.rank_high(a).strength - ours.rank_high(b).strength
        theirs = reference.rank_high(a).strength - reference.rank_high(b).strength
        assert _sign(mine) == _sign(theirs), (a, b)
        low_a, low_b = ours.rank_low_eight(a), ours.rank_low_eight(b)
        ref_a, ref_b = reference.rank_low_eight(a), reference.rank_low_eight(b)
        assert (low_a is None) == (ref_a is None)
        if low_a and low_b and ref_a and ref_b:
            assert _sign(low_a.strength - low_b.strength) == _sign(ref_a.strength - ref_b.strength)


def test_library_ranker_agrees_with_the_reference_on_wild_hand_categories_and_order() -> None:
    ours, reference = LibraryRanker(), ReferenceRanker()
    rng = random.Random(6)
    for _ in range(300):
        wild = frozenset({rng.choice("23456789TJQKA")})
        a, b = rng.sample(FULL_DECK, 5), rng.sample(FULL_DECK, 5)
        mine = ours.rank_high(a, wild).strength - ours.rank_high(b, wild).strength
        theirs = reference.rank_high(a, wild).strength - reference.rank_high(b, wild).strength
        assert _sign(mine) == _sign(theirs), (a, b, wild)
