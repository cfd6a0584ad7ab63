"""Unbiased integers by rejection sampling and the Fisher–Yates shuffle built on them.

`uniform_below(n, read)` reads the fewest whole bytes k with 256**k >= n as a big-endian
integer x, accepts x only below limit = 256**k - (256**k mod n) (the largest multiple of n
that fits), and returns x mod n; otherwise it reads k fresh bytes and tries again. Every
residue then has exactly limit / n accepted byte strings, so no value is favoured: the
modulo of a raw draw (the classic bias) never happens.

`fisher_yates(items, draw)` walks i = 0 .. n-2 and swaps position i with j = i + draw(n - i),
i.e. j uniform in [i, n-1]; production runs `shuffled(items, read)`, the same walk with
uniform_below over the DRBG stream inlined, and the exact-uniformity tests pass a draw that
enumerates every outcome. Swapping with any
position in [0, n-1] instead (the 1999 online poker bug) or excluding i itself (Sattolo's
off-by-one) gives non-uniform orders; the unit tests prove both would be caught.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TypeVar

T = TypeVar("T")

ByteSource = Callable[[int], bytes]  # read(k) -> the next k bytes
Draw = Callable[[int], int]  # draw(n) -> an integer uniform in [0, n)


def byte_width(n: int) -> int:
    """Fewest whole bytes k with 256**k >= n (how many bytes one draw below n reads)."""
    if n < 1:
        raise ValueError(f"range must be at least 1, got {n}")
    return max(1, ((n - 1).bit_length() + 7) // 8)


def acceptance_limit(n: int) -> int:
    """Draws below this bound are accepted; it is the largest multiple of n <= 256**k."""
    space: int = 256 ** byte_width(n)
    return space - space % n


@lru_cache(maxsize=4096)
def _plan(n: int) -> tuple[int, int]:
    return byte_width(n), acceptance_limit(n)


def uniform_below(n: int, read: ByteSource) -> int:
    """A uniform integer in [0, n) from the byte source, by rejection (n == 1 reads nothing)."""
    if n == 1:
        return 0
    width, limit = _plan(n)
    while True:
        x = int.from_bytes(read(width), "big")
        if x < limit:
            return x % n


def drawing_from(read: ByteSource) -> Draw:
    """The production draw: rejection sampling over the byte source."""

    def draw(n: int) -> int:
        return uniform_below(n, read)

    return draw


def fisher_yates(items: Sequence[T], draw: Draw) -> list[T]:
    """A uniformly shuffled copy of `items`: for i in 0..n-2 swap i with j uniform in [i, n-1]."""
    deck = list(items)
    n = len(deck)
    for i in range(n - 1):
        j = i + draw(n - i)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@lru_cache(maxsize=64)
def _plans(n: int) -> tuple[tuple[tuple[int, int, int], ...], int]:
    """(bound, width, limit) of each draw a Fisher-Yates of n items makes, in order, and the
    bytes they read when none is rejected."""
    plans = tuple((n - i, *_plan(n - i)) for i in range(n - 1))
    return plans, sum(width for _, width, _ in plans)


REFILL = 32  # bytes read at a time once the draws' first reading is used up by rejections


def shuffled(items: Sequence[T], read: ByteSource) -> list[T]:
    """`fisher_yates(items, drawing_from(read))` with the draws inlined: the same bytes used in
    the same order, so the same result, without two Python calls and a read per card (the
    tests check the two agree, rejections and two-byte draws included).

    It reads ahead: first the bytes every draw needs once, then REFILL bytes at a time when
    rejections need more, so it may read up to REFILL bytes more than it uses. Give it a byte
    source of its own (a fresh DrbgStream), never one whose later bytes mean something else.
    """
    deck = list(items)
    plans, first = _plans(len(deck))
    buffer = read(first) if first else b""
    pos = 0
    for i, (bound, width, limit) in enumerate(plans):
        while True:
            end = pos + width
            if end > len(buffer):
                buffer, pos, end = buffer[pos:] + read(REFILL), 0, width
            x = buffer[pos] if width == 1 else int.from_bytes(buffer[pos:end], "big")
            pos = end
            if x < limit:
                break
        j = i + x % bound
        deck[i], deck[j] = deck[j], deck[i]
    return deck
