"""Fast single-hand evaluators over pre-encoded card integers.

Each call is a handful of integer additions and one or two table lookups; tables are built
at import (about half a second). Encode cards once with `encoding.encode` (or index
`encoding.FAST_INTS` / `encoding.wild_encoding(...)`) and call these in tight loops:
simulations, equity, bots. The friendly API in `high` returns cards and descriptions too.

Values are the comparable integers of `values` (higher wins, equal values tie).

`make ranking` compiles this module with mypyc (tools/build_ranking.py); it is written for
that: module constants marked `Final`, and the seven-card non-flush lookup reads the batch
evaluator's dense class table (two bytes per rank-key sum, 16 MB shared with `batch`) and a
tuple of values, which stays in the CPU cache far better than a 49,205-entry dict.
"""

from __future__ import annotations

from typing import Final

from services.ranking.batch import dense_tables
from services.ranking.encoding import FAST_INTS, NUM_RANKS, NUM_SUITS, SUIT_KEYS
from services.ranking.tables import (
    flush5_table,
    flush_mask_table,
    flush_suit_table,
    low_table,
    non_flush_table,
    wild5_tables,
    wild_flush_possible_table,
)

_R5 = non_flush_table(5)
_FL5 = flush5_table()
_F5 = tuple(bool(s) for s in flush_suit_table(5))
_F7 = flush_suit_table(7)
_FLUSH_BEST = flush_mask_table()
# For suit s (index s + 1, matching _F7), fast card int -> rank bit if the card is of suit s.
_SUIT_BITS: tuple[dict[int, int], ...] = (
    {},
    *tuple(
        {card: 1 << i % NUM_RANKS if i // NUM_RANKS == s else 0 for i, card in enumerate(FAST_INTS)}
        for s in range(NUM_SUITS)
    ),
)
_WR, _WF = wild5_tables(False)
_WR_BELOW, _WF_BELOW = wild5_tables(True)
_WFLUSH = wild_flush_possible_table()
assert len(SUIT_KEYS) == NUM_SUITS


def eval5_ints(a: int, b: int, c: int, d: int, e: int, _r: dict[int, int] = _R5,
               _fl: dict[int, int] = _FL5, _f: tuple[bool, ...] = _F5) -> int:  # fmt: skip
    """Value of five cards given as `FAST_INTS`."""
    k = a + b + c + d + e
    if _f[k & 255]:
        return _fl[k >> 8]
    return _r[k >> 8]


_DENSE7_TABLE = dense_tables(7)[0]
_OFFSET7: Final = _DENSE7_TABLE.offset
_CLASSES7: Final = _DENSE7_TABLE.shared_bytes()
_VALUES7: Final = tuple(int(v) for v in _DENSE7_TABLE.values)
_F7C: Final = _F7
_SUIT_BITS_C: Final = _SUIT_BITS
_FLUSH_BEST_C: Final = _FLUSH_BEST


def eval7_ints(a: int, b: int, c: int, d: int, e: int, f: int, g: int) -> int:
    """Value of the best five of seven cards given as `FAST_INTS`."""
    k = a + b + c + d + e + f + g
    suit = _F7C[k & 255]
    if suit:
        # Five or more share a suit: with seven cards that rules out quads and full houses,
        # so the hand is the best flush (or straight flush) of that suit.
        bit = _SUIT_BITS_C[suit]
        return _FLUSH_BEST_C[bit[a] | bit[b] | bit[c] | bit[d] | bit[e] | bit[f] | bit[g]]
    at = 2 * ((k >> 8) - _OFFSET7)
    return _VALUES7[_CLASSES7[at] | _CLASSES7[at + 1] << 8]


class _SixCardTables:
    """The six-card dense class table, built on first use (a second or so, 14 MB): most
    processes that import this module never rank six natural cards one at a time."""

    def __init__(self) -> None:
        table = dense_tables(6)[0]
        self.offset: int = table.offset
        self.classes: bytes = table.shared_bytes()
        self.values: tuple[int, ...] = tuple(int(v) for v in table.values)
        self.flush_suits: tuple[int, ...] = tuple(flush_suit_table(6))


_SIX: Final[list[_SixCardTables]] = []


def eval6_ints(a: int, b: int, c: int, d: int, e: int, f: int) -> int:
    """Value of the best five of six cards given as `FAST_INTS` (as `eval7_ints`: five or
    more of a suit leave at most a pair beside the flush, so the flush is the hand)."""
    if not _SIX:
        _SIX.append(_SixCardTables())
    six = _SIX[0]
    k = a + b + c + d + e + f
    suit = six.flush_suits[k & 255]
    if suit:
        bit = _SUIT_BITS_C[suit]
        return _FLUSH_BEST_C[bit[a] | bit[b] | bit[c] | bit[d] | bit[e] | bit[f]]
    at = 2 * ((k >> 8) - six.offset)
    return six.values[six.classes[at] | six.classes[at + 1] << 8]


def eval_wild5_ints(a: int, b: int, c: int, d: int, e: int, _r: dict[int, int] = _WR,
                    _fl: dict[int, int] = _WF, _f: tuple[bool, ...] = _WFLUSH) -> int:  # fmt: skip
    """Value of five cards given as `wild_encoding(wilds)` integers (five of a kind on top)."""
    k = a + b + c + d + e
    if _f[k & 0xFFF]:
        return _fl[k >> 8]
    return _r[k >> 8]


def eval_wild5_ints_five_kind_below(a: int, b: int, c: int, d: int, e: int,
                                    _r: dict[int, int] = _WR_BELOW,
                                    _fl: dict[int, int] = _WF_BELOW,
                                    _f: tuple[bool, ...] = _WFLUSH) -> int:  # fmt: skip
    """As `eval_wild5_ints`, for tables ranking five of a kind just below a straight flush."""
    k = a + b + c + d + e
    if _f[k & 0xFFF]:
        return _fl[k >> 8]
    return _r[k >> 8]


LOW_TABLES: tuple[tuple[int, ...], ...] = tuple(low_table(w) for w in range(8))
