"""Players' entropy, answered automatically: an `EntropyContributor` mixes a fresh secret of
the caller's into every hand's deck, so that neither the house nor any other single player
can choose it (docs/dealer.md, "Player entropy").

    contributor = EntropyContributor(tables)
    for item in tables.watch("hu-1"):
        contributor.on_item("hu-1", item)      # answers every entropy round it shows
        ...

A table announces each hand's shuffle before the hand (`TableView.entropy_rounds`, the
`ShuffleAnnounced` and `ShuffleSealed` events): while a round is COMMIT the contributor draws
32 bytes from the operating system's CSPRNG and sends only their commitment (SHA-256 bound to
the shuffle and the player); once it is REVEAL it sends the bytes. The secret never leaves the
process before the shuffle is sealed, so nobody can pick their own entropy after seeing it.
`contributed` keeps what was sent, so a player can look for it in the hand's reveal
(`croupier verify FILE --contributor NAME --entropy HEX`).
"""

from __future__ import annotations

import enum
import hashlib
import secrets
import struct
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from croupier.table.v1 import events_pb2, table_pb2
from services.sdk.errors import (
    AlreadyExists,
    CroupierError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
)
from services.sdk.table import WatchItem

ENTROPY_TAG = "croupier/dealer/v1/entropy"
ENTROPY_BYTES = 32
# Shuffles one contributor remembers (its secrets until revealed, then what it sent).
REMEMBERED = 256


def _field(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def entropy_commitment(shuffle_id: str, contributor: str, entropy: bytes) -> bytes:
    """SHA-256( text(tag) || text(shuffle_id) || text(contributor) || field(entropy) ), the
    commitment docs/dealer.md section 1.1 defines."""
    parts = (ENTROPY_TAG.encode(), shuffle_id.encode(), contributor.encode(), entropy)
    return hashlib.sha256(b"".join(_field(p) for p in parts)).digest()


class EntropyCalls(Protocol):
    """What a contributor calls: the SDK's TableClient, or a bot worker's own stub."""

    def view(self, table_id: str) -> table_pb2.TableView: ...

    def contribute_entropy(
        self,
        table_id: str,
        *,
        hand_number: int = 0,
        commitment: bytes = b"",
        entropy: bytes = b"",
    ) -> table_pb2.ContributeEntropyResponse: ...


# (shuffle id, player) -> that player's entropy for the shuffle: a deterministic secret, for
# a player whose commitment and reveal may be sent by different processes (the bot workers).
Derive = Callable[[str, str], bytes]


class Sent(enum.Enum):
    """How a call to the table ended."""

    ACCEPTED = "accepted"
    REFUSED = "refused"  # too late, not seated, out of phase: final for this round
    FAILED = "failed"  # unavailable, deadline: unknown whether it arrived; may be sent again


@dataclass(slots=True)
class Contribution:
    """One shuffle's entropy as this contributor sent it. `committed` is set when the
    commitment is sent, before its answer: the table may seal the shuffle (and the caller see
    it) while that answer is still on its way back, and the reveal must not wait for it."""

    table_id: str
    hand: int
    shuffle_id: str
    entropy: bytes
    committed: bool = False
    revealed: bool = False
    unsent: bool = False  # the commitment's call failed: a later answer sends it again


class EntropyContributor:
    """Answers the entropy rounds of the tables its caller sits at (thread-safe)."""

    def __init__(
        self,
        tables: EntropyCalls,
        *,
        draw: Callable[[int], bytes] = secrets.token_bytes,
        derive: Derive | None = None,
        remembered: int = REMEMBERED,
    ) -> None:
        self._tables = tables
        self._draw = draw
        self._derive = derive
        self._remembered = remembered
        self._lock = threading.Lock()
        self._by_shuffle: OrderedDict[str, Contribution] = OrderedDict()
        self._names: dict[str, str] = {}  # table id -> the caller's player id there
        self.refusals: list[str] = []  # rounds the table refused (too late, not seated...)

    @property
    def contributed(self) -> list[Contribution]:
        with self._lock:
            return list(self._by_shuffle.values())

    def on_item(self, table_id: str, item: WatchItem) -> int:
        """Answer what a watched view or event asks for; how many rounds were answered."""
        if isinstance(item, table_pb2.TableView):
            return self.answer(item)
        kind = item.WhichOneof("event")
        if kind == "shuffle_announced":
            event = item.shuffle_announced
            name = self._names.get(table_id)
            if name is None:
                return self.answer(self._tables.view(table_id))
            return int(self._commit(table_id, name, event.hand, event.shuffle_id))
        if kind == "shuffle_sealed":
            sealed: events_pb2.ShuffleSealed = item.shuffle_sealed
            name = self._names.get(table_id)
            if name is None or name not in sealed.committed:
                return 0
            return int(self._reveal(table_id, sealed.hand, sealed.shuffle_id))
        return 0

    def answer(self, view: table_pb2.TableView) -> int:
        """Answer every entropy round `view` shows that this contributor has not answered:
        a commitment to each COMMIT round, the committed entropy to each REVEAL round. A
        spectator's view asks for nothing. How many rounds were answered."""
        seats = {s.seat: s.player_id for s in view.seats}
        name = seats.get(view.viewer_seat, "") if view.viewer_seat >= 0 else ""
        if not name:
            return 0
        self._names[view.table_id] = name
        answered = 0
        for r in view.entropy_rounds:
            if r.phase == table_pb2.ENTROPY_PHASE_COMMIT:
                answered += self._commit(view.table_id, name, r.hand, r.shuffle_id)
            elif r.phase == table_pb2.ENTROPY_PHASE_REVEAL:
                answered += self._reveal(view.table_id, r.hand, r.shuffle_id)
        return answered

    def _commit(self, table_id: str, name: str, hand: int, shuffle_id: str) -> bool:
        with self._lock:
            mine = self._by_shuffle.get(shuffle_id)
            if mine is not None and not mine.unsent:
                return False
            if mine is None:
                entropy = (
                    self._derive(shuffle_id, name)
                    if self._derive is not None
                    else self._draw(ENTROPY_BYTES)
                )
                mine = Contribution(table_id, hand, shuffle_id, entropy)
                self._by_shuffle[shuffle_id] = mine
                while len(self._by_shuffle) > self._remembered:
                    self._by_shuffle.popitem(last=False)
            # An ALREADY_EXISTS answer is this commitment when it may have been sent before:
            # a second try after a failed call (the first may have arrived, the same entropy
            # again), or an entropy derived alike by every process of this player. A fresh
            # draw that meets one is another process's commitment: refused, never revealed.
            ours = mine.unsent or self._derive is not None
            mine.committed, mine.unsent = True, False
        commitment = entropy_commitment(shuffle_id, name, mine.entropy)
        sent = self._send(table_id, hand, shuffle_id, commitment=commitment, known_is_ours=ours)
        if sent is not Sent.ACCEPTED:
            with self._lock:
                mine.committed = False
                mine.unsent = sent is Sent.FAILED
        return sent is Sent.ACCEPTED

    def _reveal(self, table_id: str, hand: int, shuffle_id: str) -> bool:
        with self._lock:
            mine = self._by_shuffle.get(shuffle_id)
            name = self._names.get(table_id)
            if mine is None and self._derive is not None and name is not None:
                # (committed by another process of this player, maybe: the table refuses a
                # reveal without a commitment, and nothing changes)
                entropy = self._derive(shuffle_id, name)
                mine = Contribution(table_id, hand, shuffle_id, entropy, committed=True)
                self._by_shuffle[shuffle_id] = mine
            if mine is None or not mine.committed or mine.revealed:
                return False
            mine.revealed = True  # (once: a second reveal is refused anyway)
        sent = self._send(table_id, hand, shuffle_id, entropy=mine.entropy)
        if sent is Sent.FAILED:
            with self._lock:
                mine.revealed = False  # a later answer (while the window lasts) tries again
        return sent is Sent.ACCEPTED

    def _send(
        self,
        table_id: str,
        hand: int,
        shuffle_id: str,
        *,
        commitment: bytes = b"",
        entropy: bytes = b"",
        known_is_ours: bool = False,
    ) -> Sent:
        try:
            self._tables.contribute_entropy(
                table_id, hand_number=hand, commitment=commitment, entropy=entropy
            )
        except AlreadyExists as known:
            if known_is_ours:
                return Sent.ACCEPTED  # (the table has this very commitment: `_commit`)
            self.refusals.append(f"{shuffle_id}: {known.message}")
            return Sent.REFUSED
        except (FailedPrecondition, NotFound, InvalidArgument) as refused:
            # Too late (the window ended, the hand was dealt), not seated, or a reveal that
            # does not match the commitment on record: final for this round, and the hand
            # goes on without this entropy, as the table promises.
            self.refusals.append(f"{shuffle_id}: {refused.message}")
            return Sent.REFUSED
        except CroupierError as failed:
            self.refusals.append(f"{shuffle_id}: {failed.code.name}: {failed.message}")
            return Sent.FAILED
        return Sent.ACCEPTED
