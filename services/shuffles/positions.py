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
position.

The cost is kept near the plain derivation's: the salts share one keyed HMAC state, each
leaf is hashed as it is built, the tree is built bottom up once and kept with its segment
(an opening is a lookup), and the last segments derived are memoised, so the dealer's first
Deal, an auditor's verify and the table's card proofs do not derive a segment again. Pure:
no I/O; the memo only answers what the same call computed before.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from services.games.cards import Card, standard_deck
from services.shuffles.decks import MAX_CARDS, canonical_order
from services.shuffles.derivation import (
    Contribution,
    DerivationError,
    check_shuffle_id,
    encode_contributions,
    field,
    text,
    u32,
)
from services.shuffles.drbg import DrbgStream, hmac_pads
from services.shuffles.sampling import shuffled

BASE_KEY_TAG = "croupier/dealer/v2/base-key"
MIX_TAG = "croupier/dealer/v2/mix"
SALT_TAG = "croupier/dealer/v2/position-salt"
POSITION_TAG = "croupier/dealer/v2/position"
HASH_BYTES = 32
# u32(b) of every base position a deck can have, encoded once
_U32 = tuple(u32(b) for b in range(MAX_CARDS))
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
    return tuple(shuffled(range(size), DrbgStream(key).read))


def base_order(seed: bytes, shuffle_id: str, nonce: int, cards: Iterable[Card]) -> tuple[Card, ...]:
    """Segment `nonce`'s base order (taken from the segment memo when it holds the segment)."""
    canonical = canonical_order(cards)
    known = _SEGMENTS.get(_memo_key(seed, shuffle_id, nonce, canonical))
    if known is not None:
        return known.base
    return _derived_base(seed, shuffle_id, nonce, canonical)


def _derived_base(
    seed: bytes, shuffle_id: str, nonce: int, canonical: Sequence[Card]
) -> tuple[Card, ...]:
    """The base order derived (no memo): the canonical order shuffled by the base key."""
    return tuple(shuffled(canonical, DrbgStream(base_key(seed, shuffle_id, nonce)).read))


def mixed(base: Sequence[Card], mix: Sequence[int]) -> tuple[Card, ...]:
    """The dealing order: the p-th card dealt is base position mix[p]."""
    return tuple(base[b] for b in mix)


def salt(seed: bytes, shuffle_id: str, nonce: int, base_position: int) -> bytes:
    check_shuffle_id(shuffle_id)
    _check_nonce(nonce)
    message = text(SALT_TAG) + text(shuffle_id) + u32(nonce) + u32(base_position)
    return hmac.digest(seed, message, hashlib.sha256)


def salts(seed: bytes, shuffle_id: str, nonce: int, size: int) -> tuple[bytes, ...]:
    """`salt(seed, shuffle_id, nonce, b)` for b in 0 .. size-1, in one pass.

    The same HMAC-SHA256 as `salt` (RFC 2104: H(K ^ opad || H(K ^ ipad || m))), with the
    padded key and the messages' common prefix hashed once and each position's hash states
    copied from them: a one-shot HMAC per position re-hashes both key blocks every time.
    """
    check_shuffle_id(shuffle_id)
    _check_nonce(nonce)
    ipad, opad = hmac_pads(seed)
    inner = hashlib.sha256(ipad)
    inner.update(text(SALT_TAG) + text(shuffle_id) + u32(nonce))
    outer = hashlib.sha256(opad)
    out = []
    for position in _U32[:size] if size <= MAX_CARDS else tuple(map(u32, range(size))):
        h = inner.copy()
        h.update(position)
        o = outer.copy()
        o.update(h.digest())
        out.append(o.digest())
    return tuple(out)


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


def tree_levels(hashes: Sequence[bytes]) -> tuple[tuple[bytes, ...], ...]:
    """Every level of the RFC 6962 tree over these leaf hashes, leaves first, root last.

    Built bottom-up: each level pairs its nodes left to right and carries an odd last node up
    unchanged. That is the same tree as RFC 6962's recursive split at the largest power of two
    below n (the left part is always a complete, pair-aligned subtree), computed without
    recursion or slicing, and it keeps every inner node so an audit path is a lookup.
    """
    if not hashes:
        raise DerivationError("a Merkle tree needs at least one leaf")
    level = tuple(hashes)
    levels = [level]
    while len(level) > 1:
        paired = [
            hashlib.sha256(b"\x01" + level[i] + level[i + 1]).digest()
            for i in range(0, len(level) - 1, 2)
        ]
        if len(level) % 2:
            paired.append(level[-1])
        level = tuple(paired)
        levels.append(level)
    return tuple(levels)


def path_in(levels: Sequence[Sequence[bytes]], index: int) -> tuple[bytes, ...]:
    """The RFC 6962 audit path of leaf `index` in a tree built by `tree_levels`, nearest
    sibling first (a node carried up unpaired has no sibling on that level)."""
    if not 0 <= index < len(levels[0]):
        raise DerivationError(f"leaf {index} is outside a tree of {len(levels[0])}")
    path = []
    for level in levels[:-1]:
        sibling = index ^ 1
        if sibling < len(level):
            path.append(level[sibling])
        index >>= 1
    return tuple(path)


def merkle_root(leaves: Sequence[bytes]) -> bytes:
    """RFC 6962 Merkle Tree Hash of the leaf data (at least one leaf)."""
    return tree_levels([_leaf_hash(data) for data in leaves])[-1][0]


def audit_path(leaves: Sequence[bytes], index: int) -> tuple[bytes, ...]:
    """RFC 6962 audit path of leaf `index`, nearest sibling first."""
    if not 0 <= index < len(leaves):
        raise DerivationError(f"leaf {index} is outside a tree of {len(leaves)}")
    return path_in(tree_levels([_leaf_hash(data) for data in leaves]), index)


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
    """One segment's base order, salts and tree, as the seed fixes them. `levels` is the
    whole tree (`tree_levels` of the leaves' hashes), so an opening is a lookup."""

    shuffle_id: str
    nonce: int
    base: tuple[Card, ...]
    salts: tuple[bytes, ...]
    leaves: tuple[bytes, ...]
    root: bytes
    levels: tuple[tuple[bytes, ...], ...]

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
            path=path_in(self.levels, b),
        )


# text(card) || u32(32) as every leaf has them (field(salt)'s length: every salt is 32
# bytes), by Card.index: 52 values, encoded once per process
_CARD_TEXTS = tuple(
    text(str(card)) + u32(HASH_BYTES) for card in sorted(standard_deck(), key=lambda c: c.index)
)


def segment(seed: bytes, shuffle_id: str, nonce: int, base: Sequence[Card]) -> Segment:
    """The commitments over `base` (a base order: derived, or a test deck's given order)."""
    salt_bytes = salts(seed, shuffle_id, nonce, len(base))
    # leaf(nonce, b) in one pass with its hash: the parts every leaf shares are encoded once.
    prefix = text(POSITION_TAG) + text(shuffle_id) + u32(nonce)
    numbers = _U32 if len(base) <= MAX_CARDS else tuple(map(u32, range(len(base))))
    leaves = []
    hashes = []
    for b, (card, s) in enumerate(zip(base, salt_bytes, strict=True)):
        data = prefix + numbers[b] + _CARD_TEXTS[card.index] + s
        leaves.append(data)
        hashes.append(hashlib.sha256(b"\x00" + data).digest())
    levels = tree_levels(hashes)
    return Segment(shuffle_id, nonce, tuple(base), salt_bytes, tuple(leaves), levels[-1][0], levels)


class _SegmentMemo:
    """The segments this process derived last, by what derives them (least recently used
    out first), up to `capacity` positions in all. A segment is a pure function of its key,
    so an answer from here is the one `segment` would compute; the key holds the seed's
    SHA-256, not the seed."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._entries: OrderedDict[_MemoKey, Segment] = OrderedDict()
        self._positions = 0
        self._lock = threading.Lock()

    def get(self, key: _MemoKey) -> Segment | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: _MemoKey, value: Segment) -> None:
        with self._lock:
            replaced = self._entries.pop(key, None)
            if replaced is not None:
                self._positions -= len(replaced.base)
            self._entries[key] = value
            self._positions += len(value.base)
            while self._positions > self._capacity and len(self._entries) > 1:
                _, evicted = self._entries.popitem(last=False)
                self._positions -= len(evicted.base)

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._positions = 0


_MemoKey = tuple[bytes, str, int, bytes]
# A dealer derives a hand's segment at CreateShuffle (its root) and again at its first Deal
# (its order), a hand apart when the table creates the next hand's shuffle ahead; an
# auditor's verify and the table answering each viewer's card proof derive the same segment
# more than once. A 52-card segment holds about 20 KB, so 256 decks' worth is about 5 MB.
SEGMENT_MEMO_POSITIONS = 52 * 256
_SEGMENTS = _SegmentMemo(SEGMENT_MEMO_POSITIONS)


def _memo_key(seed: bytes, shuffle_id: str, nonce: int, canonical: Sequence[Card]) -> _MemoKey:
    multiset = bytes(card.index for card in canonical)  # the segment depends on nothing else
    return (hashlib.sha256(seed).digest(), shuffle_id, nonce, multiset)


def forget_segments() -> None:
    """Empty the segment memo (a benchmark's uncached peer; nothing else needs to)."""
    _SEGMENTS.clear()


def seeded_segment(seed: bytes, shuffle_id: str, nonce: int, cards: Iterable[Card]) -> Segment:
    """Segment `nonce` over `cards` (any order: their canonical order is shuffled)."""
    canonical = canonical_order(cards)
    key = _memo_key(seed, shuffle_id, nonce, canonical)
    known = _SEGMENTS.get(key)
    if known is not None:
        return known
    derived = segment(seed, shuffle_id, nonce, _derived_base(seed, shuffle_id, nonce, canonical))
    _SEGMENTS.put(key, derived)
    return derived


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
    *,
    mix: Sequence[int] | None = None,
) -> str | None:
    """Why `opening` does not prove its card against `root` (None: it does). With the
    contributions, also that the card was dealt where the players' permutation puts its base
    position; None for a shuffle dealt in its given order (a test deck: mix is the identity).
    `mix`, when given, is that permutation for the opening's segment (a caller checking many
    openings of one segment computes it once)."""
    try:
        if not 1 <= opening.size <= MAX_CARDS:
            return f"a segment has 1..{MAX_CARDS} positions, not {opening.size}"
        if contributions is None:
            expected_base = opening.position
        else:
            if mix is None:
                mix = mix_permutation(
                    opening.shuffle_id, contributions, opening.nonce, opening.size
                )
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
