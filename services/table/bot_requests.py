"""Which bots CreateTable may ask for: a built-in policy, a difficulty in 0..1, at most one
bot per seat.

The table only records requested bots; the workers seat them later under an id that names
the policy and the difficulty in percent (docs/workers.md). A policy they do not know, a
difficulty that id cannot spell (NaN, out of range) or more bots than seats make a table
whose bots never sit down or never play, and nobody hears why, so CreateTable refuses them
with INVALID_ARGUMENT before anything is created. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

# The policies' own list (their modules import only the standard library): one place to add
# a policy.
from services.bots.policies import NAMES as POLICIES
from services.shared.errors import InvalidArgument

MIN_DIFFICULTY = 0.0
MAX_DIFFICULTY = 1.0


def check_requested_bots(bots: Sequence[tuple[str, float]], seats: int) -> None:
    """InvalidArgument naming the first requested bot (policy, difficulty) no worker could
    seat or play at a table of `seats` seats; nothing when every one can."""
    if len(bots) > seats:
        raise InvalidArgument(
            f"{len(bots)} bots requested but the table has {seats} seats: ask for at most "
            f"{seats} bots, or for more seats"
        )
    for index, (policy, difficulty) in enumerate(bots):
        if policy not in POLICIES:
            raise InvalidArgument(
                f"bots[{index}]: unknown bot policy {policy!r}; the policies are "
                f"{', '.join(POLICIES)}"
            )
        # Written so that NaN, which compares false with everything, is refused too.
        if not MIN_DIFFICULTY <= difficulty <= MAX_DIFFICULTY:
            raise InvalidArgument(
                f"bots[{index}] ({policy}): difficulty {difficulty} is outside "
                f"{MIN_DIFFICULTY}..{MAX_DIFFICULTY} (0.0 the weakest, 1.0 the strongest)"
            )
