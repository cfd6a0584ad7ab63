"""The evaluator library behind the engine's ranking port orders hands like the reference."""

from __future__ import annotations

import random

from services.games.cardtext import FULL_DECK
from services.games.reference_ranking import ReferenceRanker
from services.table.ranking import LibraryRanker


def test_library_ranker_orders_random_hands_like_the_reference_ranker() -> None:
    rng = random.Random(11)
    library, reference = LibraryRanker(), ReferenceRanker()
    for _ in range(300):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        a, b = deck[:7], deck[7:14]
        wild = frozenset({deck[14][0]}) if rng.random() < 0.3 else frozenset()
        lib = library.rank_high(a, wild).strength - library.rank_high(b, wild).strength
        ref = reference.rank_high(a, wild).strength - reference.rank_high(b, wild).strength
        assert (lib > 0) - (lib < 0) == (ref > 0) - (ref < 0), (a, b, wild)


def test_library_ranker_finds_the_qualifying_low_or_none() -> None:
    library = LibraryRanker()
    low = library.rank_low_eight(["As", "2d", "3c", "4h", "8s", "Kd", "Kh"])
    assert low is not None
    assert library.rank_low_eight(["As", "2d", "3c", "9h", "Ts", "Kd", "Kh"]) is None
    better = library.rank_low_eight(["As", "2d", "3c", "4h", "5s", "Kd", "Kh"])
    assert better is not None and better.strength > low.strength


def test_five_of_a_kind_ranks_below_a_straight_flush_when_the_table_says_so() -> None:
    library = LibraryRanker()
    five = ["7s", "7h", "7d", "9c", "9s"]
    flush = ["6h", "7h", "8h", "9h", "Th"]
    assert library.rank_high(five, frozenset("7")).strength > library.rank_high(flush).strength
    assert (
        library.rank_high(five, frozenset("7"), False).strength
        < library.rank_high(flush, frozenset(), False).strength
    )
