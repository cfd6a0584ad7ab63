"""The entropy window: how long a round waits for its players' entropy before its first card.

A standard-deck shuffle is announced before its round (steps.py). Its round does not start
(and a game's request for it is not answered) until the shuffle is *settled*:

1. while it takes commitments, until every seated player has committed or its commit window
   (`commit_until_ms`, CROUPIER_TABLE_ENTROPY_COMMIT_MS after it was announced for the round
   that is next) has passed; then it is sealed;
2. once sealed, until every player who committed has revealed or its reveal window
   (`reveal_until_ms`, CROUPIER_TABLE_ENTROPY_REVEAL_MS after the seal) has passed.

A player who does not answer in time is left out (a withheld commitment, in the dealer's
record); no round waits longer than the two windows. In the steady state the shuffle of
round N+1 is sealed when round N starts and its reveals arrive during round N, so only a
table's first round (and one after a gap) waits at all.

Who has answered is known from this instance's relays (`EntropySeen`, in memory); a relay
another instance took is not seen here, and the window's end bounds the wait then.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal

from services.shared import errors
from services.table.shell import Announced

# Shuffles whose answers one instance remembers (a table has two ahead at a time).
SEEN_BOUND = 8192


@dataclass(frozen=True, slots=True)
class EntropyTiming:
    """The two windows, in milliseconds (CROUPIER_TABLE_ENTROPY_COMMIT_MS / _REVEAL_MS)."""

    commit_ms: int = 400
    reveal_ms: int = 400


# No waiting: a round takes the entropy that is in when it is next (the announced shuffles
# are still sealed a round ahead). What an in-process table gets unless it names a timing.
NO_WAIT = EntropyTiming(0, 0)


class EntropyWindowOpen(errors.FailedPrecondition):
    """The round waits for its players' entropy until `due_ms` at most (the process goes on
    in the background: the retrier and any relayed answer drive the table again)."""

    def __init__(self, message: str, due_ms: int) -> None:
        super().__init__(message)
        self.due_ms = due_ms


class EntropySeen:
    """Which players' commitments and reveals this instance relayed, per shuffle."""

    def __init__(self, bound: int = SEEN_BOUND) -> None:
        self._bound = bound
        self._lock = threading.Lock()
        self._seen: OrderedDict[str, tuple[frozenset[str], frozenset[str]]] = OrderedDict()

    def committed(self, shuffle_id: str, player: str) -> None:
        self._add(shuffle_id, player, revealed=False)

    def revealed(self, shuffle_id: str, player: str) -> None:
        self._add(shuffle_id, player, revealed=True)

    def of(self, shuffle_id: str) -> tuple[frozenset[str], frozenset[str]]:
        """(who committed, who revealed) to `shuffle_id`, as far as this instance relayed."""
        with self._lock:
            return self._seen.get(shuffle_id, (frozenset(), frozenset()))

    def _add(self, shuffle_id: str, player: str, revealed: bool) -> None:
        with self._lock:
            committed, shown = self._seen.pop(shuffle_id, (frozenset(), frozenset()))
            if revealed:
                shown = shown | {player}
            else:
                committed = committed | {player}
            self._seen[shuffle_id] = (committed, shown)
            while len(self._seen) > self._bound:
                self._seen.popitem(last=False)


Settle = Literal["seal", "go"]


def settle(
    shuffle: Announced,
    now_ms: int,
    seated: frozenset[str],
    seen: tuple[frozenset[str], frozenset[str]],
) -> Settle:
    """What an announced shuffle whose round is next needs now (pure): "seal" (its
    commitments are in, or their window is over), "go" (sealed and its reveals in, or their
    window over); raises EntropyWindowOpen while the round must still wait."""
    committed, revealed = seen
    if not shuffle.sealed:
        if now_ms >= shuffle.commit_until_ms or seated <= committed:
            return "seal"
        missing = len(seated - committed)
        raise EntropyWindowOpen(
            f"round {shuffle.round} waits for {missing} player(s)' entropy commitments to "
            f"{shuffle.shuffle_id}",
            shuffle.commit_until_ms,
        )
    if now_ms >= shuffle.reveal_until_ms or set(shuffle.committed) <= revealed:
        return "go"
    raise EntropyWindowOpen(
        f"round {shuffle.round} waits for the committed entropy of "
        f"{len(set(shuffle.committed) - revealed)} player(s) to {shuffle.shuffle_id}",
        shuffle.reveal_until_ms,
    )
