"""Journal entries: legs that move whole chips of one currency and must balance."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from services.shared.errors import InvalidArgument, NotFound
from services.shared.limits import MAX_CHIPS as MAX_CHIPS

from .accounts import Account


class Side(enum.StrEnum):
    # Chips leave the account.
    DEBIT = "debit"
    # Chips arrive in the account.
    CREDIT = "credit"


@dataclass(frozen=True, slots=True)
class Leg:
    account_id: str
    side: Side
    currency: str
    amount: int

    @property
    def delta(self) -> int:
        """Signed change of the account's balance when this leg posts."""
        return -self.amount if self.side is Side.DEBIT else self.amount


@dataclass(frozen=True, slots=True)
class Metadata:
    table_id: str = ""
    hand_id: str = ""
    reason: str = ""


NO_METADATA = Metadata()
Legs = tuple[Leg, ...]


def debit(account_id: str, currency: str, amount: int) -> Leg:
    return Leg(account_id, Side.DEBIT, currency, amount)


def credit(account_id: str, currency: str, amount: int) -> Leg:
    return Leg(account_id, Side.CREDIT, currency, amount)


def validate_legs(legs: Sequence[Leg], accounts: Mapping[str, Account]) -> str:
    """Check amounts, currencies, existence and balance; return the entry's currency."""
    if not legs:
        raise InvalidArgument("an entry needs at least one debit and one credit leg; got none")
    for number, leg in enumerate(legs, start=1):
        if isinstance(leg.amount, bool) or not isinstance(leg.amount, int) or leg.amount <= 0:
            raise InvalidArgument(
                f"leg {number} ({leg.account_id}): amount must be a positive whole number of"
                f" chips, got {leg.amount}"
            )
        if leg.amount > MAX_CHIPS:
            raise InvalidArgument(
                f"leg {number} ({leg.account_id}): amount {leg.amount} exceeds the maximum"
                f" of {MAX_CHIPS} chips"
            )
    currencies = sorted({leg.currency for leg in legs})
    if len(currencies) > 1:
        raise InvalidArgument(
            f"an entry moves one currency; these legs mix {', '.join(currencies)}"
        )
    currency = currencies[0]
    for number, leg in enumerate(legs, start=1):
        account = accounts.get(leg.account_id)
        if account is None:
            raise NotFound(
                f"account {leg.account_id} does not exist; open it with OpenAccount first"
            )
        if account.currency != currency:
            raise InvalidArgument(
                f"leg {number} moves {currency} but account {leg.account_id} holds"
                f" {account.currency}; an entry cannot mix currencies"
            )
    debits = sum(leg.amount for leg in legs if leg.side is Side.DEBIT)
    credits = sum(leg.amount for leg in legs if leg.side is Side.CREDIT)
    if debits == 0 or credits == 0 or debits != credits:
        raise InvalidArgument(
            f"legs do not balance: debits total {debits} {currency}, credits total {credits}"
            f" {currency}; they must be equal and non-zero"
        )
    return currency


def net_outflow(legs: Sequence[Leg]) -> dict[str, int]:
    """Chips each account loses overall (debits minus credits), only where positive."""
    net: dict[str, int] = {}
    for leg in legs:
        net[leg.account_id] = net.get(leg.account_id, 0) - leg.delta
    return {account_id: amount for account_id, amount in net.items() if amount > 0}
