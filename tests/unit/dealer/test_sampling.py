"""Rejection sampling is exact; Fisher–Yates reaches every order with probability exactly 1/n!."""

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import permutations
from math import factorial
from typing import TypeVar

import pytest

from services.shuffles.sampling import (
    Draw,
    acceptance_limit,
    byte_width,
    fisher_yates,
    uniform_below,
)

# The mutants are generic like fisher_yates: test_statistics runs them on Cards, here on ints.
T = TypeVar("T")
IntShuffle = Callable[[Sequence[int], Draw], list[int]]


class _RejectedError(Exception):
    pass


def _single_read(data: bytes) -> Callable[[int], bytes]:
    """A byte source that serves `data` once and signals a rejection if asked for more."""
    served = False

    def read(k: int) -> bytes:
        nonlocal served
        if served:
            raise _RejectedError
        assert k == len(data)
        served = True
        return data

    return read


def _counts_over_every_byte_string(n: int) -> tuple[Counter[int], int]:
    width = byte_width(n)
    counts: Counter[int] = Counter()
    rejected = 0
    for x in range(256**width):
        try:
            counts[uniform_below(n, _single_read(x.to_bytes(width, "big")))] += 1
        except _RejectedError:
            rejected += 1
    return counts, rejected


@pytest.mark.parametrize("n", [2, 3, 5, 7, 52, 100, 129, 255, 256])
def test_one_byte_ranges_accept_every_value_equally_often(n: int) -> None:
    counts, rejected = _counts_over_every_byte_string(n)
    assert set(counts) == set(range(n))
    assert set(counts.values()) == {256 // n}
    assert rejected == 256 % n


@pytest.mark.parametrize("n", [257, 1000, 65535])
def test_two_byte_ranges_accept_every_value_equally_often(n: int) -> None:
    counts, rejected = _counts_over_every_byte_string(n)
    assert set(counts) == set(range(n))
    assert set(counts.values()) == {65536 // n}
    assert rejected == 65536 % n


def test_width_and_limit_follow_the_spec() -> None:
    assert [byte_width(n) for n in (1, 2, 256, 257, 65536, 65537)] == [1, 1, 1, 2, 2, 3]
    assert (
        acceptance_limit(52) == 208 and acceptance_limit(256) == 256 and acceptance_limit(3) == 255
    )


def test_range_of_one_reads_nothing() -> None:
    assert uniform_below(1, _single_read(b"")) == 0


class _BranchError(Exception):
    def __init__(self, bound: int) -> None:
        self.bound = bound


def exact_order_distribution(
    shuffle: Callable[[list[int], Draw], Sequence[int]], n: int
) -> dict[tuple[int, ...], Fraction]:
    """Probability of every order `shuffle(items, draw)` produces, enumerating all draw outcomes.

    Each draw(k) is taken as exactly uniform over [0, k) (what the sampler test above proves),
    so a path of draws with bounds k1..km has probability 1/(k1*...*km).
    """
    # Probabilities are Fractions, which Counter's int-valued type does not allow.
    distribution: defaultdict[tuple[int, ...], Fraction] = defaultdict(Fraction)
    pending: list[list[int]] = [[]]
    while pending:
        prefix = pending.pop()
        bounds: list[int] = []

        def draw(k: int, prefix: list[int] = prefix, bounds: list[int] = bounds) -> int:
            if len(bounds) == len(prefix):
                raise _BranchError(k)
            bounds.append(k)
            return prefix[len(bounds) - 1]

        try:
            order = tuple(shuffle(list(range(n)), draw))
        except _BranchError as branch:
            pending.extend([*prefix, v] for v in range(branch.bound))
            continue
        probability = Fraction(1)
        for k in bounds:
            probability /= k
        distribution[order] += probability
    return dict(distribution)


def biased_swap_shuffle(items: Sequence[T], draw: Draw) -> list[T]:
    """The classic bug: swap i with any position in [0, n-1]."""
    deck = list(items)
    for i in range(len(deck)):
        j = draw(len(deck))
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def off_by_one_shuffle(items: Sequence[T], draw: Draw) -> list[T]:
    """Sattolo's off-by-one: j in [i+1, n-1], so no card may stay where it is."""
    deck = list(items)
    n = len(deck)
    for i in range(n - 1):
        j = i + 1 + draw(n - i - 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def is_exactly_uniform(distribution: dict[tuple[int, ...], Fraction], n: int) -> bool:
    return set(distribution) == set(permutations(range(n))) and set(distribution.values()) == {
        Fraction(1, factorial(n))
    }


@pytest.mark.parametrize("n", [3, 4, 5])
def test_fisher_yates_gives_every_order_probability_exactly_one_over_n_factorial(n: int) -> None:
    assert is_exactly_uniform(exact_order_distribution(fisher_yates, n), n)


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("mutant", [biased_swap_shuffle, off_by_one_shuffle])
def test_exact_uniformity_check_catches_the_classic_shuffle_bugs(
    mutant: IntShuffle, n: int
) -> None:
    assert not is_exactly_uniform(exact_order_distribution(mutant, n), n)


def _recording(source: Callable[[int], bytes]) -> tuple[Callable[[int], bytes], list[int]]:
    widths: list[int] = []

    def read(k: int) -> bytes:
        widths.append(k)
        return source(k)

    return read, widths


def _served(data: bytes) -> Callable[[int], bytes]:
    position = 0

    def read(k: int) -> bytes:
        nonlocal position
        position += k
        return data[position - k : position]

    return read


@pytest.mark.parametrize("size", [1, 2, 3, 7, 52, 53, 104, 255, 256, 257, 300, 416])
def test_the_inlined_shuffle_uses_the_bytes_fisher_yates_over_the_draw_does(size: int) -> None:
    from services.shuffles.drbg import DrbgStream
    from services.shuffles.sampling import REFILL, drawing_from, shuffled

    # DRBG streams, and sources that start with rejected draws (0xff is refused by every
    # bound that does not divide 256; 0xffff by every two-byte bound not dividing 65536)
    served = [
        bytes([0xFF] * 40 + list(range(256)) * 8),
        bytes([0xFF] * 300) + bytes(range(256)) * 12,
        bytes([0xFF, 0xFF, 7] * 200) + bytes(range(256)) * 12,
    ]
    sources: list[Callable[[], Callable[[int], bytes]]] = [
        lambda: DrbgStream(bytes(32)).read,
        lambda: DrbgStream(b"\xff" * 32).read,
        *(lambda data=data: _served(data) for data in served),
    ]
    for make in sources:
        read_a, widths_a = _recording(make())
        read_b, widths_b = _recording(make())
        ours = shuffled(range(size), read_a)
        assert ours == fisher_yates(list(range(size)), drawing_from(read_b))
        # read ahead by at most one refill
        assert sum(widths_b) <= sum(widths_a) <= sum(widths_b) + REFILL
    if size >= 3:
        read, widths = _recording(_served(served[0]))
        shuffled(range(size), read)
        assert len(widths) > 1  # the rejections needed more than the first reading
