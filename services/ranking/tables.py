"""Lookup tables behind the fast evaluators, built once per process in well under a second.

Every table is derived from `patterns` (the slow, readable rules), and every encoding claim
made in `encoding` (distinct rank sums, unambiguous suit sums) is checked here while building:
a wrong key would raise instead of silently mis-ranking hands.
"""

from __future__ import annotations

import functools
import itertools

from services.ranking.encoding import CENTER, NUM_RANKS, RANK_KEYS, SUIT_KEYS
from services.ranking.patterns import flush_value, pattern_value
from services.ranking.values import five_of_a_kind_below_straight_flush, pack_low


def rank_multisets(size: int, max_per_rank: int = 4) -> list[tuple[int, ...]]:
    """All sorted rank tuples of `size` cards with at most `max_per_rank` of any rank."""
    return [
        combo
        for combo in itertools.combinations_with_replacement(range(NUM_RANKS), size)
        if all(combo.count(r) <= max_per_rank for r in set(combo))
    ]


def counts_of(ranks: tuple[int, ...]) -> list[int]:
    counts = [0] * NUM_RANKS
    for r in ranks:
        counts[r] += 1
    return counts


def rank_key(ranks: tuple[int, ...]) -> int:
    """Centred rank-key sum of `ranks`, as `k >> 8` yields it for the fast encodings."""
    return sum(RANK_KEYS[r] for r in ranks) - CENTER * len(ranks)


def _unique_keys(entries: dict[int, int], expected: int, what: str) -> dict[int, int]:
    if len(entries) != expected:
        raise AssertionError(f"rank keys collide for {what}: {len(entries)} != {expected}")
    return compact(entries)


def compact(entries: dict[int, int]) -> dict[int, int]:
    """The same mapping, cheaper to probe: one int object per distinct value (a few thousand
    instead of one per key) and entries stored in key order. Measured 15-20 % faster
    seven-card lookups, from fewer cache lines touched per lookup."""
    canonical: dict[int, int] = {}
    return {key: canonical.setdefault(value, value) for key, value in sorted(entries.items())}


@functools.cache
def non_flush_table(size: int) -> dict[int, int]:
    """Centred rank-key sum -> best non-flush value, for hands of `size` (5 to 7) cards."""
    multisets = rank_multisets(size)
    table = {rank_key(ms): pattern_value(counts_of(ms)) for ms in multisets}
    return _unique_keys(table, len(multisets), f"{size}-card hands")


@functools.cache
def flush5_table() -> dict[int, int]:
    """Centred rank-key sum of five distinct ranks -> flush or straight-flush value."""
    combos = list(itertools.combinations(range(NUM_RANKS), 5))
    table = {rank_key(c): flush_value(c) for c in combos}
    return _unique_keys(table, len(combos), "five-card flushes")


@functools.cache
def flush_mask_table() -> tuple[int, ...]:
    """13-bit mask of one suit's ranks -> best flush value (0 when fewer than five bits)."""
    return tuple(
        flush_value([r for r in range(NUM_RANKS) if mask >> r & 1]) if mask.bit_count() >= 5 else 0
        for mask in range(1 << NUM_RANKS)
    )


def _suit_compositions(cards: int) -> list[tuple[int, ...]]:
    return [c for c in itertools.product(range(cards + 1), repeat=4) if sum(c) == cards]


@functools.cache
def flush_suit_table(cards: int) -> tuple[int, ...]:
    """Sum of `cards` suit keys -> 1 + the suit holding five or more of them, or 0."""
    table: dict[int, int] = {}
    for comp in _suit_compositions(cards):
        total = sum(n * key for n, key in zip(comp, SUIT_KEYS, strict=True))
        suit = next((s + 1 for s, n in enumerate(comp) if n >= 5), 0)
        if table.setdefault(total, suit) != suit:
            raise AssertionError(f"suit keys cannot tell flushes apart for {cards} cards")
    return tuple(table.get(total, 0) for total in range(256))


@functools.cache
def wild_flush_possible_table() -> tuple[bool, ...]:
    """`wilds << 8 | natural suit-key sum` -> whether the 5 - wilds naturals share a suit."""
    table: dict[int, bool] = {}
    for wilds in range(6):
        naturals = 5 - wilds
        for comp in _suit_compositions(naturals):
            total = sum(n * key for n, key in zip(comp, SUIT_KEYS, strict=True))
            one_suit = naturals == 0 or max(comp) == naturals
            if table.setdefault(wilds << 8 | total, one_suit) != one_suit:
                raise AssertionError(f"suit keys ambiguous with {wilds} wild cards")
    return tuple(table.get(i, False) for i in range(1 << 12))


def best_with_wilds(
    counts: tuple[int, ...], wilds: int, memo: dict[tuple[tuple[int, ...], int], int]
) -> int:
    """Best non-flush value of the natural rank `counts` when `wilds` cards may be any rank."""
    key = (counts, wilds)
    cached = memo.get(key)
    if cached is not None:
        return cached
    if wilds == 0:
        best = pattern_value(list(counts))
    else:
        best = 0
        for r in range(NUM_RANKS):
            grown = (*counts[:r], counts[r] + 1, *counts[r + 1 :])
            best = max(best, best_with_wilds(grown, wilds - 1, memo))
    memo[key] = best
    return best


@functools.cache
def wild5_tables(five_kind_below: bool) -> tuple[dict[int, int], dict[int, int]]:
    """(any suits, naturals share a suit) tables keyed by `centred rank sum << 4 | wilds`.

    The second holds the best of the non-flush hand and the (straight) flush the wilds make,
    ranked with five of a kind above or below a straight flush as asked.
    """
    order = five_of_a_kind_below_straight_flush if five_kind_below else (lambda v: v)
    memo: dict[tuple[tuple[int, ...], int], int] = {}
    plain: dict[int, int] = {}
    suited: dict[int, int] = {}
    for wilds in range(6):
        for ms in rank_multisets(5 - wilds):
            key = rank_key(ms) << 4 | wilds
            value = order(best_with_wilds(tuple(counts_of(ms)), wilds, memo))
            plain[key] = value
            if len(set(ms)) == len(ms):
                suited[key] = max(value, order(flush_value(ms, wilds)))
    expected = sum(len(rank_multisets(5 - w)) for w in range(6))
    return _unique_keys(plain, expected, "wild five-card hands"), compact(suited)


# Ace-to-five low: a card's low bit is ace=0, two=1 .. eight=7; nines and up have none.
LOW_BIT_OF_RANK = (2, 4, 8, 16, 32, 64, 128, 0, 0, 0, 0, 0, 1)


@functools.cache
def low_table(wilds: int) -> tuple[int, ...]:
    """Mask of distinct low ranks held -> best eight-or-better low value with `wilds`, or 0.

    Wild cards become the lowest ranks the player is missing.
    """
    table = []
    for mask in range(256):
        held = [r for r in range(1, 9) if mask >> (r - 1) & 1]
        missing = [r for r in range(1, 9) if not mask >> (r - 1) & 1]
        ranks = sorted(held + missing[:wilds])[:5]
        table.append(pack_low(sorted(ranks, reverse=True)) if len(ranks) == 5 else 0)
    return tuple(table)
