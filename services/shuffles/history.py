"""The hand-history file `croupier verify` checks: JSON <-> the values `verify` takes.

Format "croupier-hand-history/1" (docs/dealer.md has the full description):

    {
      "format": "croupier-hand-history/1",
      "shuffle_id": "table-42.hand-7",
      "deck": {"kind": "standard", "copies": 1},  # or {"kind": "multiset", "cards": [...]}
      "commitment": "<64 hex>",
      "server_seed": "<64 hex>",
      "contributions": [{"contributor": "alice", "entropy": "<hex>"}],
      "commitments": [{"contributor": "alice", "commitment": "<hex>", "revealed": true}],
      "positions_root": "<64 hex>",  # only with per-position commitments (section 2.10)
      "steps": [
        {"deal": ["As", "Kd"], "purpose": "hole", "recipient": "seat-1", "positioned": true},
        {"reshuffle": ["Kd"], "nonce": 1, "size": 40, "needed": 3}
      ]
    }

Also read, and converted to that form first: a closed shuffle's `ShuffleInfo` as protobuf JSON
(either field spelling: `revealed_seed` or the standard `revealedSeed`), the table's
`ShuffleRevealed` event (its `reveal_json` is that ShuffleInfo), alone or inside a TableEvent.

Pure: parsing takes an already decoded JSON value; errors name the offending field.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format

from croupier.dealer.v1 import dealer_pb2
from services.games.cards import InvalidCardError, parse_cards
from services.shuffles import wire
from services.shuffles.decks import DECK_KINDS, DeckSpec, DeckSpecError
from services.shuffles.derivation import Contribution, DerivationError, check_shuffle_id
from services.shuffles.verification import Dealt, Reshuffled, Step, VerificationResult, verify

FORMAT = "croupier-hand-history/1"


class HandHistoryError(ValueError):
    """A hand-history file that cannot be read; the message names the field."""


@dataclass(frozen=True, slots=True)
class StepNote:
    """What the record says about a step beyond its cards (not needed to verify them)."""

    purpose: str = ""  # deals: hole, board, burn, draw, spit, ...
    recipient: str = ""
    nonce: int = 0  # reshuffles: the segment it started, its size and the draw's need
    size: int = 0
    needed: int = 0
    # deals: the request named its position in the shuffle, so the dealer would have answered
    # a repeat of it (under any key) with these same cards
    positioned: bool = False


@dataclass(frozen=True, slots=True)
class CommitmentNote:
    contributor: str
    revealed: bool


@dataclass(frozen=True, slots=True)
class HandHistoryRecord:
    shuffle_id: str
    deck: DeckSpec
    commitment: bytes
    server_seed: bytes
    contributions: tuple[Contribution, ...]
    steps: tuple[Step, ...]
    notes: tuple[StepNote, ...] = ()  # one per step when the file has them
    commitments: tuple[CommitmentNote, ...] = ()
    test_deck: bool = False
    # the table's public reveal to watchers: no deck spec or steps (a standard deck is assumed)
    public_reveal: bool = False
    # per-position commitments (docs/dealer.md 2.10): b"" for a shuffle recorded before them
    positions_root: bytes = b""

    def verify(self) -> VerificationResult:
        return verify(
            self.commitment,
            self.server_seed,
            self.shuffle_id,
            self.deck,
            self.contributions,
            self.steps,
            self.positions_root,
        )


def _field(data: Mapping[str, Any], name: str, kind: type, where: str = "") -> Any:
    value = data.get(name)
    if not isinstance(value, kind):
        raise HandHistoryError(f"{where}{name!r} must be a {kind.__name__}, got {value!r}")
    return value


def _hex(data: Mapping[str, Any], name: str, where: str = "") -> bytes:
    text = _field(data, name, str, where)
    try:
        return bytes.fromhex(text)
    except ValueError as exc:
        raise HandHistoryError(f"{where}{name!r} must be hexadecimal") from exc


def _cards(value: Any, where: str) -> tuple[Any, ...]:
    if not isinstance(value, list) or not all(isinstance(card, str) for card in value):
        raise HandHistoryError(f"{where} must be a list of two-character cards")
    try:
        return parse_cards(value)
    except InvalidCardError as exc:
        raise HandHistoryError(f"{where}: {exc}") from exc


def _deck(data: Any) -> DeckSpec:
    if not isinstance(data, dict) or data.get("kind") not in DECK_KINDS:
        raise HandHistoryError(f"'deck' must be an object with 'kind' one of {DECK_KINDS}")
    copies = data.get("copies", 1)
    if not isinstance(copies, int):
        raise HandHistoryError("'deck.copies' must be an integer")
    try:
        cards = [str(c) for c in _cards(data.get("cards", []), "'deck.cards'")]
        return DeckSpec.parse(data["kind"], cards, copies)
    except DeckSpecError as exc:
        raise HandHistoryError(f"'deck': {exc}") from exc


def _note(data: Any) -> StepNote:
    def number(name: str) -> int:
        value = data.get(name, 0)
        return value if isinstance(value, int) else 0

    def word(name: str) -> str:
        value = data.get(name, "")
        return value if isinstance(value, str) else ""

    return StepNote(
        word("purpose"),
        word("recipient"),
        number("nonce"),
        number("size"),
        number("needed"),
        data.get("positioned") is True,
    )


def _step(data: Any, number: int) -> Step:
    where = f"'steps[{number}]'"
    if isinstance(data, dict) and "deal" in data:
        return Dealt(_cards(data["deal"], f"{where}.deal"))
    if isinstance(data, dict) and "reshuffle" in data:
        root = _hex(data, "positions_root", f"{where}.") if data.get("positions_root") else b""
        return Reshuffled(_cards(data["reshuffle"], f"{where}.reshuffle"), root)
    raise HandHistoryError(f"{where} must be {{'deal': [...]}} or {{'reshuffle': [...]}}")


def parse_hand_history(data: Any) -> HandHistoryRecord:
    """A record from the decoded JSON of a hand-history file.

    Also accepted: a closed shuffle's `ShuffleInfo` in protobuf JSON form (what `Close` and
    `GetShuffle` return, e.g. as the table service records it at the end of a hand); it is
    converted to the hand-history form first.
    """
    data = _unwrap(data)
    if "format" not in data and "commitment_hex" in data and not data.get("revealed_seed_hex"):
        raise HandHistoryError(
            "this is a table's public reveal, which holds no seed (the table gives the seed "
            "only to whom its seed_reveal policy names, so unshown hands stay private): check "
            "the cards you saw with your card proof (croupier verify --table T --hand N, or "
            "GetHandHistory's shuffles[].card_proof_json)"
        )
    if (
        "format" not in data
        and data.get("status") in ("SHUFFLE_STATUS_CLOSED", dealer_pb2.SHUFFLE_STATUS_CLOSED)
        and not (data.get("revealed_seed") or data.get("revealedSeed"))
    ):
        raise HandHistoryError(
            "this shuffle record holds no seed: the dealer gives a closed shuffle's seed and "
            "dealt cards only to the table, admins and auditors, so unshown hands stay "
            "private; check the cards you saw with your card proof (croupier verify --table T "
            "--hand N)"
        )
    if "format" not in data and "revealed_seed_hex" in data and "steps" not in data:
        data = _from_watchers_reveal(data)
    if "format" not in data and ("revealed_seed" in data or "revealedSeed" in data):
        info = _shuffle_info(data)
        data = hand_history_json(history_from_info(info)) | {"test_deck": info.test_deck}
    if data.get("format") != FORMAT:
        raise HandHistoryError(f"'format' must be {FORMAT!r}, got {data.get('format')!r}")
    contributions = []
    for number, item in enumerate(_field(data, "contributions", list)):
        where = f"contributions[{number}]."
        if not isinstance(item, dict):
            raise HandHistoryError(f"'contributions[{number}]' must be an object")
        try:
            contributions.append(
                Contribution(_field(item, "contributor", str, where), _hex(item, "entropy", where))
            )
        except DerivationError as exc:
            raise HandHistoryError(f"'contributions[{number}]': {exc}") from exc
    steps = _field(data, "steps", list)
    commitments = data.get("commitments", [])
    if not isinstance(commitments, list) or not all(isinstance(c, dict) for c in commitments):
        raise HandHistoryError("'commitments' must be a list of objects")
    return HandHistoryRecord(
        shuffle_id=_shuffle_id(data),
        deck=_deck(data.get("deck")),
        commitment=_hex(data, "commitment"),
        server_seed=_hex(data, "server_seed"),
        contributions=tuple(contributions),
        steps=tuple(_step(step, number) for number, step in enumerate(steps)),
        notes=tuple(_note(step) for step in steps),
        commitments=tuple(
            CommitmentNote(str(c.get("contributor", "")), c.get("revealed") is True)
            for c in commitments
        ),
        test_deck=data.get("test_deck") is True,
        public_reveal=data.get("public_reveal") is True,
        positions_root=_hex(data, "positions_root") if data.get("positions_root") else b"",
    )


def _from_watchers_reveal(data: dict[str, Any]) -> dict[str, Any]:
    """The hand-history form of the reveal a table watcher receives (seed, commitment and
    contributions only, entropies in base64): a standard deck and no recorded steps, so the
    cards are checked against the derived order under the dealing convention (--history)."""
    contributions = []
    for number, item in enumerate(
        _field(data, "contributions", list) if "contributions" in data else []
    ):
        if not isinstance(item, dict) or not isinstance(item.get("entropy"), str):
            raise HandHistoryError(f"'contributions[{number}]' must name an entropy")
        try:
            entropy = base64.b64decode(item["entropy"], validate=True)
        except ValueError as exc:
            raise HandHistoryError(f"'contributions[{number}].entropy' must be base64") from exc
        contributions.append({"contributor": item.get("contributor"), "entropy": entropy.hex()})
    return {
        "format": FORMAT,
        "shuffle_id": data.get("shuffle_id"),
        "deck": {"kind": "standard", "copies": 1},
        "commitment": data.get("commitment_hex"),
        "server_seed": data.get("revealed_seed_hex"),
        "contributions": contributions,
        "steps": [],
        "public_reveal": True,
        "positions_root": data.get("positions_root_hex", ""),
    }


def _shuffle_id(data: Mapping[str, Any]) -> str:
    shuffle_id: str = _field(data, "shuffle_id", str)
    try:
        check_shuffle_id(shuffle_id)
    except DerivationError as exc:
        raise HandHistoryError(f"'shuffle_id': {exc}") from exc
    return shuffle_id


# The spellings of the table's ShuffleRevealed record: the event, or a TableEvent holding it.
_REVEAL_KEYS = ("reveal_json", "revealJson")
# The table's ShuffleRevealed event, or GetShuffle's whole answer ({"shuffle": ShuffleInfo}).
_EVENT_KEYS = ("shuffle_revealed", "shuffleRevealed", "shuffle")


def _unwrap(data: Any) -> dict[str, Any]:
    """The shuffle record inside whatever the table stored or a client exported."""
    if not isinstance(data, dict):
        raise HandHistoryError("a hand history is a JSON object")
    for key in _EVENT_KEYS:
        if isinstance(data.get(key), dict):
            return _unwrap(data[key])
    for key in _REVEAL_KEYS:
        if key in data:
            text = data[key]
            if not isinstance(text, str):
                raise HandHistoryError(f"{key!r} must be the reveal as a JSON string")
            try:
                inner = json.loads(text)
            except json.JSONDecodeError as exc:
                raise HandHistoryError(f"{key!r} is not JSON: {exc}") from exc
            if not isinstance(inner, dict):
                raise HandHistoryError(f"{key!r} must hold a JSON object")
            return inner
    return data


def _shuffle_info(data: dict[str, Any]) -> dealer_pb2.ShuffleInfo:
    try:
        return json_format.ParseDict(data, dealer_pb2.ShuffleInfo(), ignore_unknown_fields=True)
    except json_format.ParseError as exc:
        raise HandHistoryError(f"not a ShuffleInfo: {exc}") from exc


def _deck_json(deck: dealer_pb2.DeckSpec) -> dict[str, Any]:
    if deck.kind == dealer_pb2.DECK_KIND_STANDARD:
        return {"kind": "standard", "copies": deck.copies or 1}
    kind = "cards" if deck.kind == dealer_pb2.DECK_KIND_CARDS else "multiset"
    return {"kind": kind, "cards": list(deck.cards)}


def hand_history_json(history: dealer_pb2.HandHistory) -> dict[str, Any]:
    """The JSON form of a HandHistory message (what GetShuffle/Close return once closed)."""
    steps: list[dict[str, Any]] = []
    for step in history.steps:
        if step.WhichOneof("step") == "deal":
            steps.append(
                {
                    "deal": list(step.deal.cards),
                    "purpose": wire.PURPOSE_NAMES.get(step.deal.purpose, "unspecified"),
                    "recipient": step.deal.recipient,
                }
                | ({"positioned": True} if step.deal.positioned else {})
            )
        else:
            r = step.reshuffle
            steps.append(
                {
                    "reshuffle": list(r.included),
                    "nonce": r.nonce,
                    "size": r.size,
                    "needed": r.needed,
                }
                | ({"positions_root": r.positions_root.hex()} if r.positions_root else {})
            )
    return {
        "format": FORMAT,
        "shuffle_id": history.shuffle_id,
        "deck": _deck_json(history.deck),
        "commitment": history.commitment.hex(),
        "server_seed": history.server_seed.hex(),
        "contributions": [
            {"contributor": c.contributor, "entropy": c.entropy.hex()}
            for c in history.contributions
        ],
        "commitments": [
            {
                "contributor": c.contributor,
                "commitment": c.commitment.hex(),
                "revealed": c.revealed,
            }
            for c in history.commitments
        ],
        "steps": steps,
    } | ({"positions_root": history.positions_root.hex()} if history.positions_root else {})


def history_from_info(info: dealer_pb2.ShuffleInfo) -> dealer_pb2.HandHistory:
    """The HandHistory of a closed shuffle's public info."""
    if not info.revealed_seed:
        raise HandHistoryError(f"shuffle {info.shuffle_id} is not closed: no seed to verify with")
    return dealer_pb2.HandHistory(
        shuffle_id=info.shuffle_id,
        deck=info.deck,
        commitment=info.commitment,
        server_seed=info.revealed_seed,
        contributions=info.contributions,
        steps=info.steps,
        commitments=info.commitments,
        positions_root=info.positions_root,
    )


def describe(result: VerificationResult, steps: Sequence[Step]) -> str:
    """One human line about a verification result."""
    if result.ok:
        deals = sum(1 for s in steps if isinstance(s, Dealt))
        return f"OK: all {result.cards_checked} dealt cards ({deals} deals) match the commitment"
    assert result.mismatch is not None
    return f"MISMATCH ({result.mismatch.kind}): {result.mismatch.message}"
