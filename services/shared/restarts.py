"""How soon a supervisor starts a crashed process again: a second after a long run, then
backing off (2, 4 ... 30 s) while it keeps crashing, so a process that cannot start (its
dependency down for minutes) neither spins nor is given up on."""

from __future__ import annotations

# A process that ran this long before it died was healthy: its crash is counted as the first.
HEALTHY_UPTIME_S = 60.0
FIRST_DELAY_S = 1.0
MAX_DELAY_S = 30.0


def restart_delay(crashes_in_a_row: int) -> float:
    """Seconds to wait before the next start after `crashes_in_a_row` (>= 1) quick crashes."""
    return min(MAX_DELAY_S, FIRST_DELAY_S * float(2 ** min(max(crashes_in_a_row, 1) - 1, 16)))


def crashes_after(previous: int, uptime_s: float) -> int:
    """The count of quick crashes in a row once a process that ran `uptime_s` died."""
    return 1 if uptime_s >= HEALTHY_UPTIME_S else previous + 1
