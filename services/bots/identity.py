"""A built-in bot's player id names its policy and difficulty: `bot-<policy>-<percent>-<name>`.

Whoever seats or plays a built-in bot (the workers, the simulation, the table's limits on ids)
reads and writes the id through these two functions, so its spelling lives in one place.
"""

from __future__ import annotations

DEFAULT_POLICY = "tight"
DEFAULT_DIFFICULTY = 0.5


def bot_id(policy: str, name: str, difficulty: float = DEFAULT_DIFFICULTY) -> str:
    """The player id of a built-in bot: `bot-<policy>-<difficulty in percent>-<name>`.

    Only letters, digits and dashes, so it is safe inside ledger account ids.
    """
    return f"bot-{policy}-{round(difficulty * 100)}-{name}"


def bot_identity(player: str) -> tuple[str, float]:
    """Policy and difficulty a built-in bot's player id names (see `bot_id`).

    Any other id (an external bot) plays the default policy if the table asks the workers.
    """
    parts = player.split("-", 3)
    if len(parts) == 4 and parts[0] == "bot" and parts[1] and parts[2].isdigit():
        return parts[1], min(100, int(parts[2])) / 100
    return DEFAULT_POLICY, DEFAULT_DIFFICULTY


# A seated built-in bot brings 100 big blinds (or 200 antes), or at a table with a stake per
# game (Spit) 20 stakes, within the table's buy-in range.
BOT_BUY_IN_BIG_BLINDS = 100
BOT_BUY_IN_STAKES = 20


def bot_buy_in(big_blind: int, ante: int, min_buy_in: int, max_buy_in: int, stake: int = 0) -> int:
    """The chips the house gives a requested bot at a table with these stakes (0 = unset):
    the workers issue exactly this, and CreateTable bounds a table's bots by it."""
    if stake:
        target = BOT_BUY_IN_STAKES * stake
    else:
        target = BOT_BUY_IN_BIG_BLINDS * max(big_blind, 2 * ante, 1)
    if max_buy_in:
        target = min(target, max_buy_in)
    return max(target, min_buy_in)
