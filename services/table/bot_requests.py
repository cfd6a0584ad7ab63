"""Which bots CreateTable may ask for: a built-in policy, a difficulty in 0..1, at most one
bot per seat.

The table only records requested bots; the workers seat them later under an id that names
the policy and the difficulty in percent (docs/workers.md). A policy they do not know, a
difficulty that id cannot spell (NaN, out of range) or more bots than seats make a table
whose bots never sit down or never play, and nobody hears why, so CreateTable refuses them
with INVALID_ARGUMENT before anything is created. Pure: no I/O.

Requested bots play with the house's chips, so asking for them is an operator's decision
(the table service lets only services and admins do it), and what one table's bots may take
from the house is bounded (`check_bot_chips`); the workers draw every bot's chips from the
house's bot bankroll, which bounds all tables together (docs/workers.md).
"""

from __future__ import annotations

from collections.abc import Sequence

# The policies' own list (their modules import only the standard library): one place to add
# a policy.
from services.bots.identity import bot_buy_in
from services.bots.policies import NAMES as POLICIES
from services.shared.errors import InvalidArgument

# Most chips the bots of one table may bring from the house, all together (the default of
# CROUPIER_TABLE_MAX_BOT_CHIPS).
MAX_BOT_CHIPS_PER_TABLE = 10_000_000

MIN_DIFFICULTY = 0.0
MAX_DIFFICULTY = 1.0


def check_requested_bots(
    bots: Sequence[tuple[str, float]], seats: int, policies: Sequence[str] = POLICIES
) -> None:
    """InvalidArgument naming the first requested bot (policy, difficulty) no worker could
    seat or play at a table of `seats` seats whose game the `policies` play; nothing when
    every one can."""
    if len(bots) > seats:
        raise InvalidArgument(
            f"{len(bots)} bots requested but the table has {seats} seats: ask for at most "
            f"{seats} bots, or for more seats"
        )
    for index, (policy, difficulty) in enumerate(bots):
        if policy not in policies:
            raise InvalidArgument(
                f"bots[{index}]: unknown bot policy {policy!r}; the policies of this game are "
                f"{', '.join(policies)}"
            )
        # Written so that NaN, which compares false with everything, is refused too.
        if not MIN_DIFFICULTY <= difficulty <= MAX_DIFFICULTY:
            raise InvalidArgument(
                f"bots[{index}] ({policy}): difficulty {difficulty} is outside "
                f"{MIN_DIFFICULTY}..{MAX_DIFFICULTY} (0.0 the weakest, 1.0 the strongest)"
            )


def check_bot_chips(
    bots: int,
    big_blind: int,
    ante: int,
    min_buy_in: int,
    max_buy_in: int,
    limit: int,
    stake: int = 0,
) -> None:
    """InvalidArgument when `bots` requested bots would bring more than `limit` chips of the
    house's in all (each brings `bot_buy_in` of these stakes)."""
    if not bots:
        return
    each = bot_buy_in(big_blind, ante, min_buy_in, max_buy_in, stake)
    if bots * each > limit:
        raise InvalidArgument(
            f"{bots} bots would bring {bots * each} of the house's chips ({each} each: 100 "
            f"big blinds, or 20 stakes, within the buy-in range); a table's bots may bring at "
            f"most {limit}: "
            "ask for fewer bots or lower stakes"
        )
