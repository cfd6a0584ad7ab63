"""The chip ledger (`croupier.ledger.v1.LedgerService`) for clients.

    ledger = LedgerClient(ClientSettings(token=alice))
    ledger.open_account("alice")                      # player:alice:CHIP
    ledger.balance(player_account("alice")).available
    ledger.withdraw(player_account("alice"), 50)      # a player cashes out of their own

Deposits and transfers are the platform's own (service role); under `croupier run` the
development cashier (`croupier account deposit`) makes them for a player (docs/clients.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from services.sdk.connection import Caller, ClientSettings, caller_of, new_key, open_channel

SERVICE = "LedgerService"
DEFAULT_CURRENCY = "CHIP"
PLAYER_ROLES = ("player", "bot")


def player_account(subject: str, currency: str = DEFAULT_CURRENCY) -> str:
    """The id of a player's (or bot's) account: what JoinTable buys in from by default."""
    return f"player:{subject}:{currency}"


class LedgerClient:
    def __init__(self, settings: ClientSettings | None = None) -> None:
        self.settings = settings or ClientSettings.from_env()
        self._channel = open_channel(self.settings, "ledger")
        self.stub = ledger_pb2_grpc.LedgerServiceStub(self._channel)
        self._caller = Caller(SERVICE, self.settings)

    def close(self) -> None:
        self._channel.close()

    def new_key(self, what: str) -> str:
        """A fresh idempotency key for a ledger command. A player's (or bot's) keys live in
        their own namespace, `player:<subject>/...`, which the ledger keeps apart from the
        platform's; a service's are plain."""
        caller = caller_of(self.settings.token)
        if caller is not None and caller[1] in PLAYER_ROLES:
            return f"player:{caller[0]}/{new_key(what)}"
        return new_key(what)

    def __enter__(self) -> LedgerClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def open_account(
        self,
        name: str,
        *,
        currency: str = DEFAULT_CURRENCY,
        kind: ledger_pb2.AccountKind.ValueType = ledger_pb2.ACCOUNT_KIND_PLAYER,
    ) -> ledger_pb2.OpenAccountResponse:
        """Open an account (idempotent: `created` is False when it existed)."""
        request = ledger_pb2.OpenAccountRequest(kind=kind, name=name, currency=currency)
        return self._caller.call("OpenAccount", self.stub.OpenAccount, request)

    def deposit(
        self,
        account_id: str,
        amount: int,
        *,
        currency: str = DEFAULT_CURRENCY,
        key: str | None = None,
    ) -> ledger_pb2.DepositResponse:
        """Chips from outside into an account (service role)."""
        request = ledger_pb2.DepositRequest(
            idempotency_key=key or self.new_key("deposit"),
            account_id=account_id,
            amount=chips_pb2.ChipAmount(currency=currency, amount=amount),
        )
        return self._caller.call("Deposit", self.stub.Deposit, request)

    def withdraw(
        self,
        account_id: str,
        amount: int,
        *,
        currency: str = DEFAULT_CURRENCY,
        key: str | None = None,
    ) -> ledger_pb2.WithdrawResponse:
        """Cash out: chips from an account to outside (a player: their own account only)."""
        request = ledger_pb2.WithdrawRequest(
            idempotency_key=key or self.new_key("withdraw"),
            account_id=account_id,
            amount=chips_pb2.ChipAmount(currency=currency, amount=amount),
        )
        return self._caller.call("Withdraw", self.stub.Withdraw, request)

    def transfer(
        self, legs: Iterable[ledger_pb2.Leg], *, key: str | None = None
    ) -> ledger_pb2.TransferResponse:
        request = ledger_pb2.TransferRequest(
            idempotency_key=key or self.new_key("transfer"), legs=legs
        )
        return self._caller.call("Transfer", self.stub.Transfer, request)

    def balance(self, account_id: str) -> ledger_pb2.Balance:
        """Balance, held (reserved for a buy-in) and available chips."""
        request = ledger_pb2.GetBalanceRequest(account_id=account_id)
        return self._caller.call("GetBalance", self.stub.GetBalance, request).balance

    def history(self, account_id: str, *, page_size: int = 100) -> Iterator[ledger_pb2.Movement]:
        """Every movement of an account, newest first, a page at a time."""
        before = ""
        while True:
            request = ledger_pb2.HistoryRequest(
                account_id=account_id, limit=page_size, before=before
            )
            page = self._caller.call("History", self.stub.History, request)
            yield from page.movements
            before = page.next_cursor
            if not before or not page.movements:
                return

    def audit(self) -> ledger_pb2.AuditResponse:
        """Check that every chip is accounted for (admin or service role)."""
        return self._caller.call("Audit", self.stub.Audit, ledger_pb2.AuditRequest())
