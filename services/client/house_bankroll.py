"""The house's development bankroll under `croupier run`.

A video poker machine plays against the house: each bet goes to the house's account
(`house:rake:<currency>`) and each win is paid out of it, which, like every house account,
cannot go below zero. On a fresh platform that account is empty, so the first win would wait
on a house with nothing to pay it. `croupier run` therefore deposits a development bankroll
into it once (CROUPIER_RUN_HOUSE_BANKROLL chips, 0 = none), under an idempotency key naming
the amount, so a restarted platform does not deposit it again. A production deployment
funds its house the way its operator decides; nothing here runs outside `croupier run`.
"""

from __future__ import annotations

from collections.abc import Mapping

from croupier.ledger.v1 import ledger_pb2
from services.sdk import ClientSettings, LedgerClient

HOUSE_BANKROLL_ENV = "CROUPIER_RUN_HOUSE_BANKROLL"
DEFAULT_HOUSE_BANKROLL = 10_000_000
HOUSE_NAME = "rake"  # the table's house account: services/table/adapters.py house_account
CURRENCY = "CHIP"


def house_account(currency: str = CURRENCY) -> str:
    return f"house:{HOUSE_NAME}:{currency}"


def bankroll_from_env(env: Mapping[str, str]) -> int:
    """The bankroll to deposit; ValueError naming the variable when it is no chip count."""
    text = env.get(HOUSE_BANKROLL_ENV, "").strip()
    if not text:
        return DEFAULT_HOUSE_BANKROLL
    if not text.isdigit():
        raise ValueError(f"{HOUSE_BANKROLL_ENV} must be a whole number of chips, not {text!r}")
    return int(text)


def fund_house(settings: ClientSettings, amount: int, currency: str = CURRENCY) -> int:
    """Open the house's account (if new) and deposit `amount` into it once ever (the key
    names the amount); the account's balance after it."""
    account = house_account(currency)
    with LedgerClient(settings) as ledger:
        ledger.open_account(HOUSE_NAME, currency=currency, kind=ledger_pb2.ACCOUNT_KIND_HOUSE)
        if amount > 0:
            key = f"dev-house-bankroll/{currency}/{amount}"
            ledger.deposit(account, amount, currency=currency, key=key)
        return ledger.balance(account).balance
