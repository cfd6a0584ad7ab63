"""The house's chips for a requested bot, issued and returned in numbered rounds (pure).

A bot's buy-in must be in its own ledger account before `JoinTable` can reserve it, so the
chips are issued before the seat is sure. The cashier's rule that makes this safe: every
issue is closed, either by the seat (JoinTable moves the chips into the table's escrow) or by
a return of exactly that issue to where it came from (`external:world`). One issue and its
close form a *round*; the next try at a seat is the next round, with its own keys:

    issue   Deposit   seat-bot/<table>/<index>/<round>
    join    JoinTable seat-bot-<index>/<round>/<voids>
    return  Withdraw  seat-bot/<table>/<index>/<round>/return

(`voids`: how many of the table's holds on the bot's chips were voided so far, see
`join_key`.)

Which round a bot is in, and whether its chips are out, is read from the ledger itself (the
bot account's movements name these keys), not kept anywhere else: a retried, duplicated or
restarted task finds the same round, so the ledger's idempotency keys make an issue or a
return happen once however often it is sent. A bot account belongs to one bot seat of one
table (the bot id names both), so nothing else moves chips through it before the bot sits.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

_RETURN = "/return"


def _prefix(table_id: str, index: int) -> str:
    return f"seat-bot/{table_id}/{index}/"


def issue_key(table_id: str, index: int, round_no: int) -> str:
    return f"{_prefix(table_id, index)}{round_no}"


def return_key(table_id: str, index: int, round_no: int) -> str:
    return f"{issue_key(table_id, index, round_no)}{_RETURN}"


def join_key(index: int, round_no: int, voids: int) -> str:
    """JoinTable's key. The table keys its ledger hold on the buy-in by it, and replays a
    key's hold on a retry: right after a crash (the hold is still there, the retry picks it
    up), wrong after the hold was voided (a refused join). So the key changes with every
    voided hold on the bot's account, and with every round."""
    return f"seat-bot-{index}/{round_no}/{voids}"


@dataclass(frozen=True, slots=True)
class Movement:
    """One movement of the bot's account, as the ledger's History shows it."""

    reference: str  # a deposit's or withdrawal's idempotency key, or a hold's id
    balance_delta: int
    hold_voided: bool = False


@dataclass(frozen=True, slots=True)
class Funding:
    """Where a bot's seating stands in the ledger."""

    round: int  # the open round: every earlier one was closed by a return
    issued: int  # chips issued in this round and not returned; 0 = not issued yet
    voids: int = 0  # holds on the bot's chips voided so far (refused or abandoned joins)


def funding_of(table_id: str, index: int, movements: Iterable[Movement]) -> Funding:
    """The open round from the bot account's movements.

    Deposits and withdrawals are referenced by their idempotency keys; movements of other
    keys (the table's buy-in hold and post, a cash-out) do not count, except that every
    voided hold counts towards `voids`. The account is this bot's alone, so every hold on
    it is one of its joins.
    """
    prefix = _prefix(table_id, index)
    issued: dict[int, int] = {}
    returned: set[int] = set()
    voids = 0
    for movement in movements:
        voids += movement.hold_voided
        reference, delta = movement.reference, movement.balance_delta
        if not reference.startswith(prefix):
            continue
        rest = reference[len(prefix) :]
        if rest.endswith(_RETURN) and rest[: -len(_RETURN)].isdigit():
            returned.add(int(rest[: -len(_RETURN)]))
        elif rest.isdigit():
            issued[int(rest)] = delta
    open_round = max(returned) + 1 if returned else 0
    return Funding(open_round, issued.get(open_round, 0), voids)
