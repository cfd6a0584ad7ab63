"""Which accounts each reservation moves, remembered by this process to save a Redis read.

Post and Void name only a reservation; its accounts are in its stored legs, so without a hint
the ledger reads the reservation first and then the accounts. A reservation's legs never change
once opened (ids are never reused), so the hint can only be missing, never wrong for a live
reservation; the application still checks it against the legs it loads and reads again when
they differ (a store rebuilt under a running process). Bounded, least recently used first out.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence


class ReservationAccounts:
    def __init__(self, capacity: int = 65536) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self._capacity = capacity
        self._items: OrderedDict[str, tuple[str, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, reservation_id: str) -> tuple[str, ...] | None:
        with self._lock:
            accounts = self._items.get(reservation_id)
            if accounts is not None:
                self._items.move_to_end(reservation_id)
            return accounts

    def remember(self, reservation_id: str, accounts: Sequence[str]) -> None:
        with self._lock:
            self._items[reservation_id] = tuple(accounts)
            self._items.move_to_end(reservation_id)
            while len(self._items) > self._capacity:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
