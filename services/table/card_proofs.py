"""A player's card proof: the openings of the cards it saw, cut from the dealer's reveal.

The table keeps each hand's whole reveal (the seed, every card dealt) in its stream. From it
the dealer's openings are recomputed (services/shuffles/openings.py; docs/dealer.md 2.10) and a
viewer is given only those of the cards it saw: the public ones (board, face-up and spit
deals) and, when the round dealt from one shuffle, each card the game showed the viewer
(its own hole cards, hands shown down), found by reading the round's events as the game
redacts them for that viewer. A card is opened only when it was dealt once in the shuffle,
so a card seen twice in a multi-deck shoe never points at the other copy's position.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from google.protobuf.message import Message

from croupier.dealer.v1 import dealer_pb2
from services.games.cardtext import is_card
from services.shuffles import wire
from services.shuffles.decks import DeckSpec
from services.shuffles.derivation import Contribution
from services.shuffles.history import HandHistoryError, _shuffle_info
from services.shuffles.openings import open_dealt
from services.shuffles.positions import Opening
from services.shuffles.proof import card_proof_json
from services.shuffles.sequence import DealingError
from services.table.games.adapter import GameTable

# Deals every watcher sees face up.
PUBLIC_PURPOSES = frozenset(
    (dealer_pb2.DEAL_PURPOSE_BOARD, dealer_pb2.DEAL_PURPOSE_UP, dealer_pb2.DEAL_PURPOSE_SPIT)
)
_CARD_FIELD = re.compile(r"\bCard\b")


def _annotated_fields(event: object) -> Iterable[tuple[str, str]]:
    fields = getattr(type(event), "FIELDS", None)
    if fields:
        return tuple(fields)
    if dataclasses.is_dataclass(event) and not isinstance(event, type):
        return tuple((f.name, str(f.type)) for f in dataclasses.fields(event))
    return ()


def _cards_in(value: object, found: list[str]) -> None:
    if isinstance(value, str):
        if is_card(value):
            found.append(value)
    elif isinstance(value, tuple | list | frozenset | set):
        for item in value:
            _cards_in(item, found)


def seen_cards(game: GameTable, events: Sequence[object], viewer: int | None) -> frozenset[str]:
    """Every card the game showed `viewer` (None: a spectator) in these events: the values of
    the fields the game's events declare as cards, after the game's own redaction (a hidden
    card reads "??"). Never a name or any other text that happens to look like a card."""
    found: list[str] = []
    for event in events:
        if isinstance(event, Message):
            continue
        visible = game.rules.redact(event, viewer)
        if visible is None:
            continue
        for name, annotation in _annotated_fields(visible):
            if _CARD_FIELD.search(annotation):
                _cards_in(getattr(visible, name, None), found)
    return frozenset(found)


@dataclasses.dataclass(frozen=True, slots=True)
class _Opened:
    """A reveal's openings and what a proof is cut from (read only: shared between calls)."""

    info: dealer_pb2.ShuffleInfo
    deck: DeckSpec
    contributions: tuple[Contribution, ...]
    purposes: tuple[int, ...]
    openings: tuple[Opening, ...]
    dealt: Counter[str]


@lru_cache(maxsize=64)
def _opened(reveal_json: str) -> _Opened | None:
    """Every opening of a reveal, once per process: each viewer's GetHandHistory of a hand asks
    for the same reveal, and only the cut differs. None: no proof can be made of it."""
    try:
        data: Any = json.loads(reveal_json or "{}")
        info = _shuffle_info(data if isinstance(data, dict) else {})
    except (ValueError, HandHistoryError):
        return None
    if not info.positions_root or not info.revealed_seed or info.test_deck:
        return None
    deck = wire.deck_from_wire(info.deck)
    contributions = tuple(wire.contribution_from_wire(c) for c in info.contributions)
    purposes: list[int] = []
    for step in info.steps:
        if step.WhichOneof("step") == "deal":
            purposes += [int(step.deal.purpose)] * len(step.deal.cards)
    try:
        opened = open_dealt(
            info.revealed_seed,
            info.shuffle_id,
            deck.card_multiset(),
            contributions,
            wire.steps_from_wire(info.steps),
        )
    except DealingError:
        return None  # (a record that does not follow its order: an auditor's matter)
    return _Opened(
        info,
        deck,
        contributions,
        tuple(purposes),
        opened.openings,
        Counter(o.card for o in opened.openings),
    )


def forget_openings() -> None:
    """Empty the memo of opened reveals (a benchmark's uncached peer; nothing else needs to)."""
    _opened.cache_clear()


def card_proof(reveal_json: str, seen: frozenset[str]) -> str:
    """The proof (JSON) of the public cards and the `seen` ones of this reveal; "" when the
    shuffle has no per-position commitments (a test deck, a record from before them) or the
    reveal is not the dealer's whole record."""
    opened = _opened(reveal_json)
    if opened is None:
        return ""
    chosen = []
    for opening, purpose in zip(opened.openings, opened.purposes, strict=True):
        if purpose == dealer_pb2.DEAL_PURPOSE_BURN:
            continue  # never shown to anyone
        public = purpose in PUBLIC_PURPOSES
        if public or (opening.card in seen and opened.dealt[opening.card] == 1):
            chosen.append((opening, wire.PURPOSE_NAMES.get(purpose, "")))
    info = opened.info
    proof = card_proof_json(
        info.shuffle_id,
        opened.deck,
        info.commitment,
        info.positions_root,
        list(info.reshuffle_roots),
        opened.contributions,
        [(c.contributor, c.commitment, c.revealed) for c in info.commitments],
        chosen,
    )
    return json.dumps(proof, sort_keys=True)
