"""The command keys a table remembers (key -> the version its command's events ended at).

`CommandKeys` holds what a dict would after inserting every accepted key as the newest (a key
accepted again moves to the newest place) and dropping the oldest beyond `limit`: the same
entries in the same order. But it is immutable and cheap to extend. Every command adds one
key, and copying all 512 entries of a dict on each command was ~5% of the table process's
GIL time (py-spy over a 10-table bench_table row). Here a command copies only the keys added
since the last compaction (fewer than `recent_limit`); the older ones sit in a dict shared by
every state until the next compaction and never changed, each with its position, so a
lookup knows whether newer keys have pushed it out.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TypeVar, overload

T = TypeVar("T")


def scoped(part: str) -> str:
    """A caller's part of a command key (their key, their id) with '/' escaped ('%' too, so
    the escape is one-to-one). A command key then has a fixed number of '/'-separated parts,
    so no caller can choose a key that is another command's key plus a suffix the table
    derives from it (`<key>/post`, `<key>/post/recorded`, `<key>/void`): a join keyed
    "k/post/recorded" once took the idempotency key of a later join's buy-in step, and the
    table, finding the step "done", waited for it for ever."""
    return part.replace("%", "%25").replace("/", "%2F")


# How many command keys a table remembers for answering retries (per table, newest kept).
REMEMBERED_KEYS = 512
# Keys added since the last compaction, kept apart so a command copies at most this many.
RECENT_KEYS = 64


class CommandKeys(Mapping[str, int]):
    """The newest `limit` command keys -> version, oldest first (an immutable Mapping)."""

    __slots__ = ("_limit", "_older", "_older_count", "_recent", "_recent_limit")

    def __init__(
        self,
        older: dict[str, tuple[int, int]] | None = None,
        recent: dict[str, int] | None = None,
        *,
        limit: int = REMEMBERED_KEYS,
        recent_limit: int = RECENT_KEYS,
    ) -> None:
        # older: key -> (position, version), positions 0, 1, ... in insertion order; recent:
        # key -> version, inserted after every older key. Neither is changed after this.
        self._older = older if older is not None else {}
        self._older_count = len(self._older)
        self._recent = recent if recent is not None else {}
        self._limit = limit
        self._recent_limit = recent_limit

    @classmethod
    def of(
        cls,
        keys: Mapping[str, int],
        *,
        limit: int = REMEMBERED_KEYS,
        recent_limit: int = RECENT_KEYS,
    ) -> CommandKeys:
        """The newest `limit` entries of `keys` (any mapping, oldest first)."""
        if isinstance(keys, CommandKeys) and keys._limit == limit:
            return keys
        entries = list(keys.items())[-limit:] if limit > 0 else []
        older = {k: (i, v) for i, (k, v) in enumerate(entries)}
        return cls(older, limit=limit, recent_limit=recent_limit)

    def _first_live(self) -> int:
        """Older keys at positions below this were pushed out by newer ones."""
        return self._older_count + len(self._recent) - self._limit

    def _live_older(self, key: str) -> int | None:
        entry = self._older.get(key)
        if entry is None or entry[0] < self._first_live():
            return None
        return entry[1]

    @overload
    def get(self, key: str, /) -> int | None: ...

    @overload
    def get(self, key: str, default: int, /) -> int: ...

    @overload
    def get(self, key: str, default: T, /) -> int | T: ...

    def get(self, key: str, default: object = None, /) -> object:
        # (no KeyError on a miss: every new command looks its key up and misses)
        version = self._recent.get(key)
        if version is not None:
            return version
        version = self._live_older(key)
        return default if version is None else version

    def __getitem__(self, key: str) -> int:
        version = self._recent.get(key)
        if version is None:
            version = self._live_older(key)
            if version is None:
                raise KeyError(key)
        return version

    def __len__(self) -> int:
        return min(self._limit, self._older_count + len(self._recent))

    def __iter__(self) -> Iterator[str]:
        first = self._first_live()
        for key, (position, _) in self._older.items():
            if position >= first:
                yield key
        yield from self._recent

    def __repr__(self) -> str:
        return f"CommandKeys({dict(self.items())!r})"

    def accepted(self, key: str, version: int) -> CommandKeys:
        """These keys with `key` -> `version` as the newest (the oldest dropped past the limit)."""
        if key in self._recent or self._live_older(key) is not None:
            # Accepted again (rare: a known key is answered before deciding): move it to the
            # newest place the plain way.
            entries = dict(self.items())
            entries.pop(key)
            entries[key] = version
            return CommandKeys.of(entries, limit=self._limit, recent_limit=self._recent_limit)
        recent = dict(self._recent)
        recent[key] = version
        if len(recent) < min(self._recent_limit, self._limit):
            return CommandKeys(
                self._older, recent, limit=self._limit, recent_limit=self._recent_limit
            )
        # Compaction: the live older keys and the recent ones become the new older dict.
        first = self._older_count + len(recent) - self._limit
        live = [(k, v) for k, (position, v) in self._older.items() if position >= first]
        live += recent.items()
        older = {k: (i, v) for i, (k, v) in enumerate(live)}
        return CommandKeys(older, limit=self._limit, recent_limit=self._recent_limit)
