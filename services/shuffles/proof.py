"""A card proof: the openings of the cards one viewer saw, checkable without the seed.

Format "croupier-card-proof/1" (docs/dealer.md 5.1):

    {
      "format": "croupier-card-proof/1",
      "shuffle_id": "t1.hand-7",
      "deck": {"kind": "standard", "copies": 1},
      "commitment": "<64 hex>",             # the seed commitment, as announced
      "positions_root": "<64 hex>",         # segment 0's root, announced with it
      "reshuffle_roots": ["<64 hex>"],      # segment 1, 2, ...: fixed at each reshuffle
      "contributions": [{"contributor": "alice", "entropy": "<hex>"}],
      "commitments": [{"contributor": "alice", "commitment": "<hex>", "revealed": true}],
      "openings": [{"dealt_index": 0, "nonce": 0, "position": 0, "base_position": 31,
                    "size": 52, "card": "Ah", "salt": "<64 hex>", "path": ["<64 hex>", ...],
                    "purpose": "hole"}]
    }

Checking one: every opening must lead to its segment's root from the base position that the
players' permutation (recomputed from the listed contributions) gives its dealing position.
Pure: parsing takes an already decoded JSON value; errors name the offending field.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from services.shuffles import wire
from services.shuffles.decks import MAX_CARDS, DeckSpec
from services.shuffles.derivation import Contribution, DerivationError, entropy_commitment
from services.shuffles.history import HandHistoryError, _deck, _deck_json, _hex, _shuffle_id
from services.shuffles.positions import Opening, check_opening, mix_permutation

FORMAT = "croupier-card-proof/1"


@dataclass(frozen=True, slots=True)
class ProvenCard:
    opening: Opening
    purpose: str


@dataclass(frozen=True, slots=True)
class CardProof:
    shuffle_id: str
    deck: DeckSpec
    commitment: bytes
    positions_root: bytes
    reshuffle_roots: tuple[bytes, ...]
    contributions: tuple[Contribution, ...]
    commitments: tuple[tuple[str, bytes, bool], ...]
    cards: tuple[ProvenCard, ...]


def is_card_proof(data: Any) -> bool:
    return isinstance(data, dict) and data.get("format") == FORMAT


def opening_json(opening: Opening, purpose: str) -> dict[str, Any]:
    return {
        "dealt_index": opening.dealt_index,
        "nonce": opening.nonce,
        "position": opening.position,
        "base_position": opening.base_position,
        "size": opening.size,
        "card": opening.card,
        "salt": opening.salt.hex(),
        "path": [h.hex() for h in opening.path],
        "purpose": purpose,
    }


def card_proof_json(
    shuffle_id: str,
    deck: DeckSpec,
    commitment: bytes,
    positions_root: bytes,
    reshuffle_roots: Sequence[bytes],
    contributions: Sequence[Contribution],
    commitments: Sequence[tuple[str, bytes, bool]],
    cards: Sequence[tuple[Opening, str]],
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "shuffle_id": shuffle_id,
        "deck": _deck_json(wire.deck_to_wire(deck)),
        "commitment": commitment.hex(),
        "positions_root": positions_root.hex(),
        "reshuffle_roots": [r.hex() for r in reshuffle_roots],
        "contributions": [
            {"contributor": c.contributor, "entropy": c.entropy.hex()} for c in contributions
        ],
        "commitments": [
            {"contributor": who, "commitment": digest.hex(), "revealed": revealed}
            for who, digest, revealed in commitments
        ],
        "openings": [opening_json(o, purpose) for o, purpose in cards],
    }


def _int(item: dict[str, Any], name: str, where: str) -> int:
    value = item.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise HandHistoryError(f"'{where}{name}' must be a non-negative integer")
    return value


def parse_card_proof(data: Any) -> CardProof:
    if not is_card_proof(data):
        raise HandHistoryError(f"'format' must be {FORMAT!r}")
    shuffle_id = _shuffle_id(data)
    contributions = []
    for number, item in enumerate(data.get("contributions") or []):
        where = f"contributions[{number}]."
        if not isinstance(item, dict) or not isinstance(item.get("contributor"), str):
            raise HandHistoryError(f"'contributions[{number}]' must name a contributor")
        try:
            contributions.append(Contribution(item["contributor"], _hex(item, "entropy", where)))
        except DerivationError as exc:
            raise HandHistoryError(f"'contributions[{number}]': {exc}") from exc
    commitments = []
    for number, item in enumerate(data.get("commitments") or []):
        if not isinstance(item, dict):
            raise HandHistoryError(f"'commitments[{number}]' must be an object")
        commitments.append(
            (
                str(item.get("contributor", "")),
                _hex(item, "commitment", f"commitments[{number}]."),
                item.get("revealed") is True,
            )
        )
    roots = data.get("reshuffle_roots") or []
    if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
        raise HandHistoryError("'reshuffle_roots' must be a list of hex strings")
    openings = data.get("openings")
    if not isinstance(openings, list):
        raise HandHistoryError("'openings' must be a list")
    cards = []
    for number, item in enumerate(openings):
        where = f"openings[{number}]."
        if not isinstance(item, dict):
            raise HandHistoryError(f"'openings[{number}]' must be an object")
        path = item.get("path")
        if not isinstance(path, list) or not all(isinstance(h, str) for h in path):
            raise HandHistoryError(f"'{where}path' must be a list of hex strings")
        try:
            hashes = tuple(bytes.fromhex(h) for h in path)
        except ValueError as exc:
            raise HandHistoryError(f"'{where}path' must be a list of hex strings") from exc
        if not isinstance(item.get("card"), str):
            raise HandHistoryError(f"'{where}card' must be a card such as 'Ah'")
        opening = Opening(
            shuffle_id=shuffle_id,
            nonce=_int(item, "nonce", where),
            position=_int(item, "position", where),
            dealt_index=_int(item, "dealt_index", where),
            base_position=_int(item, "base_position", where),
            size=_int(item, "size", where),
            card=item["card"],
            salt=_hex(item, "salt", where),
            path=hashes,
        )
        cards.append(ProvenCard(opening, str(item.get("purpose", ""))))
    return CardProof(
        shuffle_id=shuffle_id,
        deck=_deck(data.get("deck")),
        commitment=_hex(data, "commitment"),
        positions_root=_hex(data, "positions_root"),
        reshuffle_roots=tuple(_hex({"r": r}, "r", "reshuffle_roots.") for r in roots),
        contributions=tuple(contributions),
        commitments=tuple(commitments),
        cards=tuple(cards),
    )


@dataclass(frozen=True, slots=True)
class CardVerdict:
    card: ProvenCard
    problem: str | None  # None: proven


@dataclass(frozen=True, slots=True)
class ProofCheck:
    verdicts: tuple[CardVerdict, ...]
    warnings: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return all(v.problem is None for v in self.verdicts)


def check_card_proof(proof: CardProof) -> ProofCheck:
    """Check every opening against its segment's root and the players' permutation."""
    verdicts = []
    warnings: list[str] = []
    seen: set[tuple[int, int]] = set()
    mixes: dict[tuple[str, int, int], tuple[int, ...]] = {}
    for proven in proof.cards:
        o = proven.opening
        problem: str | None
        if o.nonce == 0:
            root = proof.positions_root
            problem = (
                None
                if o.size == proof.deck.size
                else f"segment 0 has {proof.deck.size} positions, not {o.size}"
            )
        elif o.nonce <= len(proof.reshuffle_roots):
            root = proof.reshuffle_roots[o.nonce - 1]
            problem = None
        else:
            root, problem = b"", f"no root is listed for segment {o.nonce}"
        if (o.nonce, o.position) in seen:
            problem = f"position {o.position} of segment {o.nonce} is opened twice"
        seen.add((o.nonce, o.position))
        if problem is None:
            # one permutation per segment, not per card (each is a Fisher-Yates of its size)
            segment = (o.shuffle_id, o.nonce, o.size)
            if segment not in mixes and 1 <= o.size <= MAX_CARDS:
                mixes[segment] = mix_permutation(o.shuffle_id, proof.contributions, o.nonce, o.size)
            problem = check_opening(o, root, proof.contributions, mix=mixes.get(segment))
        verdicts.append(CardVerdict(proven, problem))
    if any(v.card.opening.nonce > 0 for v in verdicts):
        warnings.append(
            "some cards come from a reshuffled segment, whose root was fixed at the reshuffle, "
            "after the players' entropy: only an auditor with the seed can check that root"
        )
    if not proof.contributions:
        warnings.append("no player entropy: the order is the house's seed alone")
    withheld = [who for who, _, revealed in proof.commitments if not revealed]
    if withheld:
        warnings.append(f"withheld commitments (not mixed into the order): {', '.join(withheld)}")
    return ProofCheck(tuple(verdicts), tuple(warnings))


def contributor_in_proof(proof: CardProof, contributor: str, entropy: bytes | None) -> str | None:
    """Why `contributor`'s entropy is not mixed into this proof's order (None: it is)."""
    mine = [c for c in proof.contributions if c.contributor == contributor]
    if not mine:
        return f"no entropy from {contributor} was mixed into the order"
    if entropy is not None and mine[0].entropy != entropy:
        return f"the entropy recorded for {contributor} is not the one given"
    committed = [d for who, d, _ in proof.commitments if who == contributor]
    if committed and committed[0] != entropy_commitment(
        proof.shuffle_id, contributor, mine[0].entropy
    ):
        return f"{contributor}'s entropy does not match its commitment"
    return None
