"""gRPC adapter: request -> application (with the caller's principal) -> response."""
# ruff: noqa: N802  (method names are the RPC names gRPC dispatches to)

from __future__ import annotations

import grpc

from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from services.ledger.application import LedgerApplication
from services.shared.auth import current_principal


class LedgerServicer(ledger_pb2_grpc.LedgerServiceServicer):
    def __init__(self, application: LedgerApplication) -> None:
        self._app = application

    def OpenAccount(
        self, request: ledger_pb2.OpenAccountRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.OpenAccountResponse:
        return self._app.open_account(request, current_principal())

    def Deposit(
        self, request: ledger_pb2.DepositRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.DepositResponse:
        return self._app.deposit(request, current_principal())

    def Withdraw(
        self, request: ledger_pb2.WithdrawRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.WithdrawResponse:
        return self._app.withdraw(request, current_principal())

    def Transfer(
        self, request: ledger_pb2.TransferRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.TransferResponse:
        return self._app.transfer(request, current_principal())

    def Reserve(
        self, request: ledger_pb2.ReserveRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.ReserveResponse:
        return self._app.reserve(request, current_principal())

    def Post(
        self, request: ledger_pb2.PostRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.PostResponse:
        return self._app.post(request, current_principal())

    def Void(
        self, request: ledger_pb2.VoidRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.VoidResponse:
        return self._app.void(request, current_principal())

    def GetReservation(
        self, request: ledger_pb2.GetReservationRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.GetReservationResponse:
        return self._app.get_reservation(request, current_principal())

    def GetBalance(
        self, request: ledger_pb2.GetBalanceRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.GetBalanceResponse:
        return self._app.get_balance(request, current_principal())

    def History(
        self, request: ledger_pb2.HistoryRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.HistoryResponse:
        return self._app.history(request, current_principal())

    def Audit(
        self, request: ledger_pb2.AuditRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.AuditResponse:
        return self._app.audit(request, current_principal())
