"""Byte-exact derivation of a shuffle from a server seed (the spec is docs/dealer.md).

Encodings (all integers unsigned big-endian):
    field(b)       = u32(len(b)) || b
    text(s)        = field(UTF-8 of s)
    contributions  = u32(count) || for each, in the order accepted:
                         text(contributor) || field(entropy)

    commitment     = SHA-256( text("croupier/dealer/v1/commitment") || text(shuffle_id)
                              || field(seed) )
    key(nonce)     = HMAC-SHA256( key = seed,
                                  msg = text("croupier/dealer/v1/shuffle-key") || text(shuffle_id)
                                        || contributions || u32(nonce) )
    order(nonce)   = fisher_yates(canonical_order(cards), uniform_below over DrbgStream(key(nonce)))
    entropy commitment = SHA-256( text("croupier/dealer/v1/entropy") || text(shuffle_id)
                                  || text(contributor) || field(entropy) )

Nonce 0 orders the deck spec; nonce k orders the cards of the k-th Reshuffle. Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from services.games.cards import Card
from services.shuffles.decks import canonical_order
from services.shuffles.drbg import DrbgStream
from services.shuffles.sampling import shuffled

COMMITMENT_TAG = "croupier/dealer/v1/commitment"
KEY_TAG = "croupier/dealer/v1/shuffle-key"
ENTROPY_TAG = "croupier/dealer/v1/entropy"
SEED_BYTES = 32  # 256-bit server seeds
MAX_SHUFFLE_ID_BYTES = 128
MAX_CONTRIBUTOR_BYTES = 128
MAX_ENTROPY_BYTES = 256


class DerivationError(ValueError):
    """An input outside what the derivation accepts; the message names it."""


@dataclass(frozen=True, slots=True)
class Contribution:
    """One participant's entropy, mixed into the shuffle key in the order it was accepted."""

    contributor: str
    entropy: bytes

    def __post_init__(self) -> None:
        name = self.contributor.encode()
        if not 1 <= len(name) <= MAX_CONTRIBUTOR_BYTES:
            raise DerivationError(f"contributor must be 1..{MAX_CONTRIBUTOR_BYTES} bytes of UTF-8")
        if not 1 <= len(self.entropy) <= MAX_ENTROPY_BYTES:
            raise DerivationError(
                f"entropy from {self.contributor!r} must be 1..{MAX_ENTROPY_BYTES} bytes, "
                f"got {len(self.entropy)}"
            )


def u32(value: int) -> bytes:
    return value.to_bytes(4, "big")


def field(data: bytes) -> bytes:
    return u32(len(data)) + data


def text(value: str) -> bytes:
    return field(value.encode("utf-8"))


def check_shuffle_id(shuffle_id: str) -> None:
    if not 1 <= len(shuffle_id.encode()) <= MAX_SHUFFLE_ID_BYTES:
        raise DerivationError(f"shuffle id must be 1..{MAX_SHUFFLE_ID_BYTES} bytes of UTF-8")


def encode_contributions(contributions: Sequence[Contribution]) -> bytes:
    return u32(len(contributions)) + b"".join(
        text(c.contributor) + field(c.entropy) for c in contributions
    )


def commitment(shuffle_id: str, seed: bytes) -> bytes:
    """The 32-byte SHA-256 commitment published before any entropy or card."""
    check_shuffle_id(shuffle_id)
    return hashlib.sha256(text(COMMITMENT_TAG) + text(shuffle_id) + field(seed)).digest()


def entropy_commitment(shuffle_id: str, contributor: str, entropy: bytes) -> bytes:
    """What a contributor commits to before Seal: bound to the shuffle and to its own name, so
    a commitment copied from another shuffle or another player never matches."""
    check_shuffle_id(shuffle_id)
    return hashlib.sha256(
        text(ENTROPY_TAG) + text(shuffle_id) + text(contributor) + field(entropy)
    ).digest()


def shuffle_key(
    seed: bytes, shuffle_id: str, contributions: Sequence[Contribution], nonce: int
) -> bytes:
    """The 32-byte key of segment `nonce` (0 = the first order, k = the k-th reshuffle)."""
    check_shuffle_id(shuffle_id)
    if not 0 <= nonce < 2**32:
        raise DerivationError(f"nonce must fit in 32 bits, got {nonce}")
    message = text(KEY_TAG) + text(shuffle_id) + encode_contributions(contributions) + u32(nonce)
    return hmac.digest(seed, message, hashlib.sha256)


def order_cards(cards: Iterable[Card], key: bytes) -> tuple[Card, ...]:
    """The dealing order of `cards` (any order in, canonical order shuffled) under `key`."""
    return tuple(shuffled(canonical_order(cards), DrbgStream(key).read))


def derive_order(
    seed: bytes,
    shuffle_id: str,
    contributions: Sequence[Contribution],
    nonce: int,
    cards: Iterable[Card],
) -> tuple[Card, ...]:
    """Dealing order of `cards` for one segment: index 0 is dealt first."""
    return order_cards(cards, shuffle_key(seed, shuffle_id, contributions, nonce))
