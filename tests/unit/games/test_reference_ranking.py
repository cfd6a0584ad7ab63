"""The engine's reference ranker agrees with the evaluator library and with pokerkit.

Orderings are compared, not raw numbers: every ranker has its own strength scale, and the
engine only ever compares strengths produced by one ranker within one showdown.
"""

from __future__ import annotations

import random
from itertools import combinations

from pokerkit import EightOrBetterLowHand, Hand, StandardHighHand

from services.games.cardtext import FULL_DECK, RANKS, SUITS
from services.games.reference_ranking import ReferenceRanker, score_five, score_natural
from services.ranking import as_cards, best_high, best_low

RANKER = ReferenceRanker()


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def test_named_hands_rank_in_the_textbook_order() -> None:
    ladder = [
        "2c 3d 4h 5s 7c",  # high card
        "2c 2d 4h 5s 7c",  # pair
        "2c 2d 4h 4s 7c",  # two pair
        "2c 2d 2h 5s 7c",  # trips
        "Ac 2d 3h 4s 5c",  # wheel straight
        "2c 3d 4h 5s 6c",  # six-high straight
        "2c 4c 6c 8c Tc",  # flush
        "2c 2d 2h 5s 5c",  # full house
        "2c 2d 2h 2s 5c",  # quads
        "9c Tc Jc Qc Kc",  # straight flush
    ]
    values = [RANKER.rank_high(hand.split()).strength for hand in ladder]
    assert values == sorted(values) and len(set(values)) == len(values)


def test_wild_cards_make_five_of_a_kind_above_or_below_a_straight_flush() -> None:
    sevens = frozenset({"7"})
    five = RANKER.rank_high(["7c", "7d", "Kd", "Ks", "7h"], sevens, True)
    royal = RANKER.rank_high(["Th", "Jh", "Qh", "Kh", "Ah"], frozenset(), True)
    assert five.strength > royal.strength
    five_low = RANKER.rank_high(["7c", "7d", "Kd", "Ks", "7h"], sevens, False)
    royal_low = RANKER.rank_high(["Th", "Jh", "Qh", "Kh", "Ah"], frozenset(), False)
    assert five_low.strength < royal_low.strength
    assert five_low.label.startswith("five of a kind")


def test_the_direct_seven_card_path_equals_the_best_of_every_five() -> None:
    rng = random.Random(5)
    for _ in range(1000):
        cards = rng.sample(FULL_DECK, rng.choice([5, 6, 7]))
        brute = max(score_five(f, frozenset(), True) for f in combinations(cards, 5))
        assert score_natural(cards)[0] == brute


def test_the_direct_path_finds_straight_flushes_in_the_flush_suit_only() -> None:
    # Random seven-card samples almost never hold a straight flush: pin the flush-suit cases.
    for hand, category, top in [
        ("9h Th Jh Qh Kh 2c 3d", "straight flush", 13),
        ("Ah 2h 3h 4h 5h Kd Kc", "straight flush", 5),  # the wheel, ace low
        ("2h 3h 4h 5h 9h 6c Kd", "flush", 9),  # the straight is not all hearts
    ]:
        cards = hand.split()
        brute = max(score_five(f, frozenset(), True) for f in combinations(cards, 5))
        assert score_natural(cards)[0] == brute
        label = RANKER.rank_high(cards, frozenset(), True).label
        assert label.startswith(category) and brute[1][0] == top, label


def test_high_hands_order_like_the_evaluator_library_with_and_without_wild_cards() -> None:
    rng = random.Random(11)
    for trial in range(600):
        wild = rng.choice(RANKS) if trial % 2 else None
        size = 5 if wild else 7
        a, b = rng.sample(FULL_DECK, size), rng.sample(FULL_DECK, size)
        wild_ranks = frozenset({wild}) if wild else frozenset()
        wild_cards = as_cards([wild + s for s in SUITS]) if wild else ()
        five_high = trial % 3 != 0
        ours = [RANKER.rank_high(h, wild_ranks, five_high).strength for h in (a, b)]
        theirs = [
            best_high(as_cards(h), (), wild_cards=wild_cards, five_kind_below=not five_high).value
            for h in (a, b)
        ]
        assert sign(ours[0] - ours[1]) == sign(theirs[0] - theirs[1]), (a, b, wild)


def test_low_hands_qualify_and_order_like_the_evaluator_library() -> None:
    rng = random.Random(12)
    for _ in range(800):
        a, b = rng.sample(FULL_DECK, 7), rng.sample(FULL_DECK, 7)
        ours = [RANKER.rank_low_eight(h) for h in (a, b)]
        theirs = [best_low(as_cards(h)) for h in (a, b)]
        assert [o is None for o in ours] == [t is None for t in theirs]
        if ours[0] and ours[1] and theirs[0] and theirs[1]:  # (all four, as all() of each)
            assert sign(ours[0].strength - ours[1].strength) == sign(
                theirs[0].value - theirs[1].value
            )


def test_high_and_low_hands_order_like_pokerkit() -> None:
    rng = random.Random(13)
    for _ in range(400):
        hole_a, hole_b = rng.sample(FULL_DECK, 4), None
        rest = [c for c in FULL_DECK if c not in hole_a]
        board = rng.sample(rest, 5)
        hole_a, hole_b = hole_a[:2], hole_a[2:]
        pk = [StandardHighHand.from_game("".join(h), "".join(board)) for h in (hole_a, hole_b)]
        ours = [RANKER.rank_high(h + board).strength for h in (hole_a, hole_b)]
        assert sign(ours[0] - ours[1]) == sign((pk[0] > pk[1]) - (pk[0] < pk[1]))
        low_ours = [RANKER.rank_low_eight(h + board) for h in (hole_a, hole_b)]
        low_pk: list[Hand | None] = []  # (from_game is typed as returning the base Hand)
        for h in (hole_a, hole_b):
            try:
                low_pk.append(EightOrBetterLowHand.from_game("".join(h), "".join(board)))
            except ValueError:
                low_pk.append(None)
        assert [x is None for x in low_ours] == [x is None for x in low_pk]
        if low_ours[0] and low_ours[1]:  # (both, as all() of them)
            # pokerkit orders low hands so that the better low compares greater
            pk_a, pk_b = low_pk
            assert pk_a is not None and pk_b is not None  # (as asserted just above)
            expected = sign((pk_a > pk_b) - (pk_a < pk_b))
            assert sign(low_ours[0].strength - low_ours[1].strength) == expected
