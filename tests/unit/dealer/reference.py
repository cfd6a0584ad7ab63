"""An independent, deliberately plain re-implementation of docs/dealer.md for cross-checks.

Written from the spec with hashlib/hmac only and sharing no code with services.dealer, so a
vector checked against it cannot simply echo the production implementation.
"""

import hashlib
import hmac
import struct
from collections.abc import Iterator

RANKS = "23456789TJQKA"
SUITS = "cdhs"


def lp(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def commitment_hex(shuffle_id: str, seed: bytes) -> str:
    msg = lp(b"croupier/dealer/v1/commitment") + lp(shuffle_id.encode()) + lp(seed)
    return hashlib.sha256(msg).hexdigest()


def key(seed: bytes, shuffle_id: str, contributions: list[tuple[str, bytes]], nonce: int) -> bytes:
    msg = lp(b"croupier/dealer/v1/shuffle-key") + lp(shuffle_id.encode())
    msg += struct.pack(">I", len(contributions))
    for who, entropy in contributions:
        msg += lp(who.encode()) + lp(entropy)
    msg += struct.pack(">I", nonce)
    return hmac.new(seed, msg, "sha256").digest()


def stream(key_bytes: bytes) -> Iterator[int]:
    """Yield bytes of successive HMAC_DRBG Generate(32) outputs (SP 800-90A 10.1.2)."""
    k = b"\0" * 32
    v = b"\1" * 32
    k = hmac.new(k, v + b"\0" + key_bytes, "sha256").digest()
    v = hmac.new(k, v, "sha256").digest()
    k = hmac.new(k, v + b"\1" + key_bytes, "sha256").digest()
    v = hmac.new(k, v, "sha256").digest()
    while True:
        v = hmac.new(k, v, "sha256").digest()
        yield from v
        k = hmac.new(k, v + b"\0", "sha256").digest()
        v = hmac.new(k, v, "sha256").digest()


def card_index(card: str) -> int:
    return SUITS.index(card[1]) * 13 + RANKS.index(card[0])


def order(key_bytes: bytes, cards: list[str]) -> list[str]:
    deck = sorted(cards, key=card_index)
    source = stream(key_bytes)
    for i in range(len(deck) - 1):
        bound = len(deck) - i
        width = 1
        while 256**width < bound:
            width += 1
        limit = 256**width // bound * bound
        while True:
            x = 0
            for _ in range(width):
                x = x * 256 + next(source)
            if x < limit:
                break
        j = i + x % bound
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def standard_cards(copies: int = 1) -> list[str]:
    return [r + s for _ in range(copies) for s in SUITS for r in RANKS]
