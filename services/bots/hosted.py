"""Bots that play in real time: hosted players, not a task per decision.

A turn-based bot (poker's `random`, `tight`, `equity`) is asked for each decision it owes, and
the workers play that one decision (`bot_move`). A real-time game has no turns: a Spit bot
watches its table and plays the moment it sees a legal play, after its reaction time. Such a
bot is *hosted*: the workers' bot host keeps one long-lived player per seated bot (its own
WatchTable and Play streams, services/workers/bot_host.py), and the table schedules no bot
turns for it. Which policies are hosted, and what their difficulty means, lives here. Pure:
the table service reads it at CreateTable.
"""

from __future__ import annotations

# The built-in policy of each real-time game: "spit" plays services/games/spit/bot.py.
HOSTED_POLICIES = ("spit",)
# The real-time games, by the member of TableOptions.game_options that makes a table one
# (their table adapters say `realtime`; the workers read a table's kind off its options).
REALTIME_GAME_OPTIONS = ("spit",)

# A hosted bot's reaction time at difficulty d is a uniform draw in
# [(1 - d) * REACTION_LOW_MS, (1 - d) * REACTION_HIGH_MS]: 300-1,200 ms at 0.5 (a quick
# person), 600-2,400 ms at 0 and no wait at all at 1 (the benchmark's fast bot).
REACTION_LOW_MS = 600
REACTION_HIGH_MS = 2_400


def is_hosted(policy: str) -> bool:
    """Whether bots of `policy` are hosted players rather than turns the workers play."""
    return policy in HOSTED_POLICIES


def reaction_window_ms(difficulty: float) -> tuple[int, int]:
    """(low, high) of a hosted bot's reaction time in milliseconds at `difficulty` (0..1)."""
    slowness = 1.0 - max(0.0, min(1.0, difficulty))
    return round(slowness * REACTION_LOW_MS), round(slowness * REACTION_HIGH_MS)
