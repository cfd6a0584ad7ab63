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


# --- per-position commitments (docs/dealer.md 2.10) ---------------------------------------


def base_key(seed: bytes, shuffle_id: str, nonce: int) -> bytes:
    msg = lp(b"croupier/dealer/v2/base-key") + lp(shuffle_id.encode()) + struct.pack(">I", nonce)
    return hmac.new(seed, msg, "sha256").digest()


def mix_key(shuffle_id: str, contributions: list[tuple[str, bytes]], nonce: int) -> bytes:
    msg = lp(b"croupier/dealer/v2/mix") + lp(shuffle_id.encode())
    msg += struct.pack(">I", len(contributions))
    for who, entropy in contributions:
        msg += lp(who.encode()) + lp(entropy)
    msg += struct.pack(">I", nonce)
    return hashlib.sha256(msg).digest()


def mix(shuffle_id: str, contributions: list[tuple[str, bytes]], nonce: int, n: int) -> list[int]:
    # Fisher-Yates over the indices 0..n-1, drawn as in 2.5.
    deck = list(range(n))
    source = stream(mix_key(shuffle_id, contributions, nonce))
    for i in range(n - 1):
        bound = n - i
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


def mixed_order(
    seed: bytes,
    shuffle_id: str,
    contributions: list[tuple[str, bytes]],
    nonce: int,
    cards: list[str],
) -> list[str]:
    base = order(base_key(seed, shuffle_id, nonce), cards)
    return [base[b] for b in mix(shuffle_id, contributions, nonce, len(base))]


def salt(seed: bytes, shuffle_id: str, nonce: int, b: int) -> bytes:
    msg = lp(b"croupier/dealer/v2/position-salt") + lp(shuffle_id.encode())
    msg += struct.pack(">II", nonce, b)
    return hmac.new(seed, msg, "sha256").digest()


def leaf(shuffle_id: str, nonce: int, b: int, card: str, salt_bytes: bytes) -> bytes:
    return (
        lp(b"croupier/dealer/v2/position")
        + lp(shuffle_id.encode())
        + struct.pack(">II", nonce, b)
        + lp(card.encode())
        + lp(salt_bytes)
    )


def mth(leaves: list[bytes]) -> bytes:
    """RFC 6962 2.1 Merkle Tree Hash."""
    if len(leaves) == 1:
        return hashlib.sha256(b"\0" + leaves[0]).digest()
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return hashlib.sha256(b"\1" + mth(leaves[:k]) + mth(leaves[k:])).digest()


def positions_root(seed: bytes, shuffle_id: str, nonce: int, cards: list[str]) -> bytes:
    base = order(base_key(seed, shuffle_id, nonce), cards)
    return mth(
        [
            leaf(shuffle_id, nonce, b, c, salt(seed, shuffle_id, nonce, b))
            for b, c in enumerate(base)
        ]
    )
