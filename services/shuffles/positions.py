"""Per-position commitments: each dealt card provable on its own, without the seed.

The seed reveals every card a shuffle dealt, mucked hands included, so it cannot be what a
player checks their own cards with. Shuffles created with per-position commitments (docs/
dealer.md, section 2.10) derive their order in two parts:

    base(nonce)   = fisher_yates(canonical_order(cards), DrbgStream(base_key(nonce)))
    base_key      = HMAC-SHA256( key = seed, msg = text("croupier/dealer/v2/base-key")
                                 || text(shuffle_id) || u32(nonce) )
    mix(nonce)    = fisher_yates([0 .. n-1], DrbgStream(mix_key(nonce)))       (public)
    mix_key       = SHA-256( text("croupier/dealer/v2/mix") || text(shuffle_id)
                             || contributions || u32(nonce) )
    order[p]      = base[mix[p]]          (the p-th card dealt is base position mix[p])

The base order depends on the seed alone, so it is fixed when the shuffle is created; a
Merkle root over its salted positions is published with the seed commitment, before any
player commits entropy. The players' entropies then choose `mix`, a permutation anyone can
recompute from the record. A dealt card is opened by its base position's card, salt and
Merkle path:

    salt(nonce, b) = HMAC-SHA256( key = seed, msg = text("croupier/dealer/v2/position-salt")
                                  || text(shuffle_id) || u32(nonce) || u32(b) )
    leaf(nonce, b) = text("croupier/dealer/v2/position") || text(shuffle_id) || u32(nonce)
                     || u32(b) || text(card) || field(salt(nonce, b))
    root(nonce)    = MTH(leaf(nonce, 0) .. leaf(nonce, n-1))     (RFC 6962 Merkle Tree Hash)

Salts come from the seed, which the commitment fixes, so the dealer cannot choose them after
the fact (an auditor with the seed recomputes each one), and as HMAC outputs they say
nothing about one another: an opening reveals its own card and nothing about any other
position. Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from services.games.cards import Card
from services.shuffles.decks import canonical_order
from services.shuffles.derivation import (
    Contribution,
    DerivationError,
    check_shuffle_id,
    encode_contributions,
    field,
    order_cards,
    text,
    u32,
)
from services.shuffles.drbg import DrbgStream
from services.shuffles.sampling import drawing_from, fisher_yates

BASE_KEY_TAG = "croupier/dealer/v2/base-key"
MIX_TAG = "croupier/dealer/v2/mix"
SALT_TAG = "croupier/dealer/v2/position-salt"
POSITION_TAG = "croupier/dealer/v2/position"
HASH_BYTES = 32
MAX_PATH = 16  # a tree over at most 416 positions is 9 levels deep


def _check_nonce(nonce: int) -> None:
    if not 0 <= nonce < 2**32:
        raise DerivationError(f"nonce must fit in 32 bits, got {nonce}")


def base_key(seed: bytes, shuffle_id: str, nonce: int) -> bytes:
    """The key of segment `nonce`'s base order: the seed's alone, fixed at creation."""
    check_shuffle_id(shuffle_id)
    _check_nonce(nonce)
    message = text(BASE_KEY_TAG) + text(shuffle_id) + u32(nonce)
    return hmac.digest(seed, message, hashlib.sha256)


def mix_key(shuffle_id: str, contributions: Sequence[Contribution], nonce: int) -> bytes:
    """The public key of the players' permutation: a hash of what they revealed."""
    check_shuffle_id(shuffle_id)
    _check_nonce(nonce)
    message = text(MIX_TAG) + text(shuffle_id) + encode_contributions(contributions) + u32(nonce)
    return hashlib.sha256(message).digest()


def mix_permutation(
    shuffle_id: str, contributions: Sequence[Contribution], nonce: int, size: int
) -> tuple[int, ...]:
    """`mix[p]`: the base position dealt p-th. Anyone can compute it from the record."""
    key = mix_key(shuffle_id, contributions, nonce)
    return tuple(fisher_yates(list(range(size)), drawing_from(DrbgStream(key).read)))


def base_order(seed: bytes, shuffle_id: str, nonce: int, cards: Iterable[Card]) -> tuple[Card, ...]:
    return order_cards(cards, base_key(seed, shuffle_id, nonce))


def mixed(base: Sequence[Card], mix: Sequence[int]) -> tuple[Card, ...]:
    """The dealing order: the p-th card dealt is base position mix[p]."""
    return tuple(base[b] for b in mix)


def salt(seed: bytes, shuffle_id: str, nonce: int, base_position: int) -> bytes:
    check_shuffle_id(shuffle_id)
    _check_nonce(nonce)
    message = text(SALT_TAG) + text(shuffle_id) + u32(nonce) + u32(base_position)
    return hmac.digest(seed, message, hashlib.sha256)


def leaf(shuffle_id: str, nonce: int, base_position: int, card: str, salt_bytes: bytes) -> bytes:
    """The leaf data of one base position (the tree hashes it as 0x00 || leaf)."""
    return (
        text(POSITION_TAG)
        + text(shuffle_id)
        + u32(nonce)
        + u32(base_position)
        + text(card)
        + field(salt_bytes)
    )


def _leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two below n (n >= 2): RFC 6962's split point."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def _root_of_hashes(hashes: Sequence[bytes]) -> bytes:
    if len(hashes) == 1:
        return hashes[0]
    k = _split(len(hashes))
    return _node(_root_of_hashes(hashes[:k]), _root_of_hashes(hashes[k:]))


def merkle_root(leaves: Sequence[bytes]) -> bytes:
    """RFC 6962 Merkle Tree Hash of the leaf data (at least one leaf)."""
    if not leaves:
        raise DerivationError("a Merkle tree needs at least one leaf")
    return _root_of_hashes([_leaf_hash(data) for data in leaves])


def _path_of_hashes(hashes: Sequence[bytes], index: int) -> list[bytes]:
    if len(hashes) == 1:
        return []
    k = _split(len(hashes))
    if index < k:
        return [*_path_of_hashes(hashes[:k], index), _root_of_hashes(hashes[k:])]
    return [*_path_of_hashes(hashes[k:], index - k), _root_of_hashes(hashes[:k])]


def audit_path(leaves: Sequence[bytes], index: int) -> tuple[bytes, ...]:
    """RFC 6962 audit path of leaf `index`, nearest sibling first."""
    if not 0 <= index < len(leaves):
        raise DerivationError(f"leaf {index} is outside a tree of {len(leaves)}")
    return tuple(_path_of_hashes([_leaf_hash(data) for data in leaves], index))


def root_from_path(leaf_data: bytes, index: int, size: int, path: Sequence[bytes]) -> bytes:
    """The root an audit path leads to (RFC 9162 2.1.3.2); raises on a path of the wrong
    length for the tree's size."""
    if not 0 <= index < size:
        raise DerivationError(f"position {index} is outside a tree of {size}")
    if len(path) > MAX_PATH or any(len(h) != HASH_BYTES for h in path):
        raise DerivationError("a Merkle path is at most 16 hashes of 32 bytes")
    fn, sn = index, size - 1
    node = _leaf_hash(leaf_data)
    for sibling in path:
        if sn == 0:
            raise DerivationError("the Merkle path is longer than the tree is deep")
        if fn & 1 or fn == sn:
            node = _node(sibling, node)
            if not fn & 1:
                while fn & 1 == 0 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            node = _node(node, sibling)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise DerivationError("the Merkle path is shorter than the tree is deep")
    return node


@dataclass(frozen=True, slots=True)
class Segment:
    """One segment's base order, salts and tree, as the seed fixes them."""

    shuffle_id: str
    nonce: int
    base: tuple[Card, ...]
    salts: tuple[bytes, ...]
    leaves: tuple[bytes, ...]
    root: bytes

    def opening(self, mix: Sequence[int], position: int, dealt_index: int) -> Opening:
        """The opening of the card dealt at `position` of this segment (`dealt_index` among
        all cards dealt from the shuffle)."""
        b = mix[position]
        card = str(self.base[b])
        return Opening(
            shuffle_id=self.shuffle_id,
            nonce=self.nonce,
            position=position,
            dealt_index=dealt_index,
            base_position=b,
            size=len(self.base),
            card=card,
            salt=self.salts[b],
            path=audit_path(self.leaves, b),
        )


def segment(seed: bytes, shuffle_id: str, nonce: int, base: Sequence[Card]) -> Segment:
    """The commitments over `base` (a base order: derived, or a test deck's given order)."""
    salts = tuple(salt(seed, shuffle_id, nonce, b) for b in range(len(base)))
    leaves = tuple(
        leaf(shuffle_id, nonce, b, str(card), s)
        for b, (card, s) in enumerate(zip(base, salts, strict=True))
    )
    return Segment(shuffle_id, nonce, tuple(base), salts, leaves, merkle_root(leaves))


def seeded_segment(seed: bytes, shuffle_id: str, nonce: int, cards: Iterable[Card]) -> Segment:
    return segment(seed, shuffle_id, nonce, base_order(seed, shuffle_id, nonce, cards))


def positions_root(seed: bytes, shuffle_id: str, cards: Iterable[Card]) -> bytes:
    """Segment 0's root: published with the seed commitment."""
    return seeded_segment(seed, shuffle_id, 0, canonical_order(cards)).root


@dataclass(frozen=True, slots=True)
class Opening:
    """One dealt card proven against its segment's root. `position` is where it was dealt in
    its segment (0-based), `base_position` where it sits in the committed base order."""

    shuffle_id: str
    nonce: int
    position: int
    dealt_index: int
    base_position: int
    size: int
    card: str
    salt: bytes
    path: tuple[bytes, ...]


def check_opening(
    opening: Opening,
    root: bytes,
    contributions: Sequence[Contribution] | None,
) -> str | None:
    """Why `opening` does not prove its card against `root` (None: it does). With the
    contributions, also that the card was dealt where the players' permutation puts its base
    position; None for a shuffle dealt in its given order (a test deck: mix is the identity)."""
    try:
        if contributions is None:
            expected_base = opening.position
        else:
            mix = mix_permutation(opening.shuffle_id, contributions, opening.nonce, opening.size)
            if not 0 <= opening.position < opening.size:
                return f"position {opening.position} is outside a segment of {opening.size}"
            expected_base = mix[opening.position]
        if opening.base_position != expected_base:
            return (
                f"the card dealt at position {opening.position} comes from base position "
                f"{expected_base} under the players' entropy, not {opening.base_position}"
            )
        data = leaf(
            opening.shuffle_id, opening.nonce, opening.base_position, opening.card, opening.salt
        )
        found = root_from_path(data, opening.base_position, opening.size, opening.path)
    except DerivationError as exc:
        return str(exc)
    if not hmac.compare_digest(found, root):
        return (
            f"{opening.card} at base position {opening.base_position} does not lead to the "
            f"committed root {root.hex()}"
        )
    return None


def mixed_order(
    seed: bytes,
    shuffle_id: str,
    contributions: Sequence[Contribution],
    nonce: int,
    cards: Sequence[Card],
) -> tuple[Card, ...]:
    """Segment `nonce`'s dealing order with per-position commitments: the seed's base order
    permuted by the players' mix."""
    base = base_order(seed, shuffle_id, nonce, cards)
    return mixed(base, mix_permutation(shuffle_id, contributions, nonce, len(base)))
