"""TableService over gRPC: translate the request, call the application, translate the result.

The caller is the principal of the RPC: a player acts, joins and leaves as their own subject
(the seat's player id), so acting for another player's seat is PERMISSION_DENIED.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import NamedTuple

import grpc

from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.games import contract as c
from services.games.errors import InvalidAction
from services.shared import errors
from services.shared.auth import Principal, Role, current_principal
from services.shared.status import status_of
from services.table import dealer_reports, translate
from services.table.application import TableApplication, TableSpec, require_key
from services.table.dealer_reports import require_dealer_of
from services.table.history import hand_history
from services.table.shell import Table
from services.table.watch_wire import WatchMessage
from services.table.watching import TableWatcher


class ActCall(NamedTuple):
    """`TableApplication.act`'s arguments for one ActRequest."""

    table_id: str
    player: str
    command: Callable[[Table, int], c.Move]
    key: str
    expected_version: int | None
    seat: int | None


class TableServicer(table_pb2_grpc.TableServiceServicer):
    def __init__(self, app: TableApplication, watcher: TableWatcher) -> None:
        self.app = app
        self.watcher = watcher

    def CreateTable(  # noqa: N802 - gRPC method name
        self, request: table_pb2.CreateTableRequest, context: grpc.ServicerContext
    ) -> table_pb2.CreateTableResponse:
        principal = current_principal()
        if request.bots and principal.role not in (Role.SERVICE, Role.ADMIN):
            raise errors.PermissionDenied(
                f"{principal.role.value} '{principal.subject}' may not ask for bots: they play "
                "with the house's chips, which only the platform's services and admins commit;"
                " create the table without bots"
            )
        game = self.app.catalog.for_options(request.options)
        spec = TableSpec(
            config=game.config_from_options(request.options),
            game=game,
            options=request.options,
            currency=request.options.currency or "CHIP",
            action_time_ms=request.options.action_time_ms,
            time_bank_ms=request.options.time_bank_ms,
            time_bank_chunk_ms=request.options.time_bank_chunk_ms,
            time_bank_refill_ms=request.options.time_bank_refill_ms,
            time_bank_refill_every_hands=request.options.time_bank_refill_every_hands,
            time_bank_cap_ms=request.options.time_bank_cap_ms,
            bots=tuple((b.policy, b.difficulty) for b in request.bots),
            table_id=request.table_id,
            min_players_to_start=max(2, request.options.min_players_to_start),
            seed_reveal=request.options.seed_reveal,
        )
        table = self.app.create_table(spec, principal.subject, request.idempotency_key)
        return table_pb2.CreateTableResponse(table_id=table.table_id, version=table.version)

    def ListTables(  # noqa: N802
        self, request: table_pb2.ListTablesRequest, context: grpc.ServicerContext
    ) -> table_pb2.ListTablesResponse:
        current_principal()
        page = self.app.list_tables(request.page_token, request.page_size)
        return table_pb2.ListTablesResponse(
            tables=[self.watcher.summary(table) for table in page.tables],
            next_page_token=page.next_token,
        )

    def JoinTable(  # noqa: N802
        self, request: table_pb2.JoinTableRequest, context: grpc.ServicerContext
    ) -> table_pb2.JoinTableResponse:
        principal = current_principal()
        if request.HasField("bot") and principal.role not in (Role.SERVICE, Role.ADMIN):
            raise errors.PermissionDenied(
                f"{principal.role.value} '{principal.subject}' may not set JoinTableRequest.bot:"
                " only the platform's services and admins seat a bot; join without it"
            )
        is_bot = principal.role is Role.BOT or request.HasField("bot")
        seat, version = self.app.join(
            request.table_id,
            principal.subject,
            request.seat,
            request.buy_in,
            request.account_id,
            require_key(request.idempotency_key),
            is_bot=is_bot,
            any_account=principal.role is Role.SERVICE,
        )
        return table_pb2.JoinTableResponse(seat=seat, version=version)

    def TopUp(  # noqa: N802
        self, request: table_pb2.TopUpRequest, context: grpc.ServicerContext
    ) -> table_pb2.TopUpResponse:
        principal = current_principal()
        done = self.app.top_up(
            request.table_id,
            principal.subject,
            request.amount,
            require_key(request.idempotency_key),
        )
        return table_pb2.TopUpResponse(stack=done.stack, version=done.version)

    def SitOut(  # noqa: N802
        self, request: table_pb2.SitOutRequest, context: grpc.ServicerContext
    ) -> table_pb2.SitOutResponse:
        by = current_principal().subject
        version = self.app.seat_command(
            request.table_id,
            by,
            f"sitout/{require_key(request.idempotency_key)}",
            lambda s: c.SitOut(s, by),
        )
        return table_pb2.SitOutResponse(version=version)

    def SitIn(  # noqa: N802
        self, request: table_pb2.SitInRequest, context: grpc.ServicerContext
    ) -> table_pb2.SitInResponse:
        by = current_principal().subject
        option = self.app.current(request.table_id).game.sit_in_option(request)
        version = self.app.seat_command(
            request.table_id,
            by,
            f"sitin/{require_key(request.idempotency_key)}",
            lambda s: c.SitIn(s, by, option),
        )
        return table_pb2.SitInResponse(version=version)

    def LeaveTable(  # noqa: N802
        self, request: table_pb2.LeaveTableRequest, context: grpc.ServicerContext
    ) -> table_pb2.LeaveTableResponse:
        by = current_principal().subject
        done = self.app.leave(request.table_id, by, f"leave/{require_key(request.idempotency_key)}")
        return table_pb2.LeaveTableResponse(left=done.left, version=done.version)

    def CloseTable(  # noqa: N802
        self, request: table_pb2.CloseTableRequest, context: grpc.ServicerContext
    ) -> table_pb2.CloseTableResponse:
        principal = current_principal()
        done = self.app.close(
            request.table_id,
            principal.subject,
            require_key(request.idempotency_key),
            privileged=principal.role in (Role.SERVICE, Role.ADMIN),
            expected_version=request.expected_version or None,
        )
        status = table_pb2.TABLE_STATUS_CLOSED if done.closed else table_pb2.TABLE_STATUS_CLOSING
        return table_pb2.CloseTableResponse(version=done.version, status=status)

    def Act(  # noqa: N802
        self, request: table_pb2.ActRequest, context: grpc.ServicerContext
    ) -> table_pb2.ActResponse:
        return self.act_for(request, current_principal())

    def Play(  # noqa: N802
        self, request_iterator: Iterator[table_pb2.PlayRequest], context: grpc.ServicerContext
    ) -> Iterator[table_pb2.PlayResponse]:
        """Each request one Act, answered in order. The caller is authenticated once, for the
        stream; a refused Act is answered with its status and the stream goes on."""
        principal = current_principal()
        for request in request_iterator:
            key = request.act.idempotency_key
            try:
                applied = self.act_for(request.act, principal)
            except errors.DomainError as exc:
                yield table_pb2.PlayResponse(
                    idempotency_key=key,
                    error=table_pb2.PlayError(
                        code=status_of(exc).value[0], message=errors.bounded(exc.message)
                    ),
                )
                continue
            yield table_pb2.PlayResponse(idempotency_key=key, act=applied)

    def act_for(self, request: table_pb2.ActRequest, principal: Principal) -> table_pb2.ActResponse:
        version = self.app.act(*self.act_call(request, principal))
        return table_pb2.ActResponse(version=version)

    def act_call(self, request: table_pb2.ActRequest, principal: Principal) -> ActCall:
        """The application's `act` arguments for `request` (both runtimes send them)."""
        require_key(request.idempotency_key)
        game = self.app.catalog.for_move(request)
        move, precondition = game.move_from_request(request)
        by = principal.subject

        def command(table: Table, seat: int) -> c.Move:
            if table.game is not game:
                raise InvalidAction(
                    f"table {request.table_id} plays {table.game.name}: send its move in "
                    f"ActRequest.{table.game.proto_field}"
                )
            return c.Move(seat, move, by, precondition, self.app.clock())

        # Without a seat, the caller's own is found on the state the move is decided on.
        return ActCall(
            request.table_id,
            principal.subject,
            command,
            request.idempotency_key,
            request.expected_version or None,
            request.seat if request.HasField("seat") else None,
        )

    def GetTableView(  # noqa: N802
        self, request: table_pb2.GetTableViewRequest, context: grpc.ServicerContext
    ) -> table_pb2.GetTableViewResponse:
        principal = current_principal()
        table = self.app.load(request.table_id)
        return table_pb2.GetTableViewResponse(view=self.watcher.view(table, principal))

    # Batched responses come serialized already: watch_wire.add_table_service registers this
    # method with a response serializer that sends bytes as they are (hence the override).
    def WatchTable(  # type: ignore[override]  # noqa: N802
        self, request: table_pb2.WatchTableRequest, context: grpc.ServicerContext
    ) -> Iterator[WatchMessage]:
        principal = current_principal()
        stop = threading.Event()
        context.add_callback(stop.set)
        yield from self.watcher.watch(
            request.table_id, principal, request.from_version, stop, request.batch
        )

    def GetHandHistory(  # noqa: N802
        self, request: table_pb2.GetHandHistoryRequest, context: grpc.ServicerContext
    ) -> table_pb2.GetHandHistoryResponse:
        principal = current_principal()
        history = hand_history(self.app, request.table_id, request.hand_number, principal)
        return table_pb2.GetHandHistoryResponse(
            hand_number=history.hand,
            phh=history.phh,
            text=history.text,
            shuffles=history.shuffles,
        )

    def ContributeEntropy(  # noqa: N802
        self, request: table_pb2.ContributeEntropyRequest, context: grpc.ServicerContext
    ) -> table_pb2.ContributeEntropyResponse:
        player = current_principal().subject
        shuffle, hand, index = self.app.contribute(
            request.table_id,
            player,
            request.hand_number,
            request.entropy_commitment,
            request.entropy,
        )
        return table_pb2.ContributeEntropyResponse(
            hand_number=hand,
            shuffle_id=shuffle.shuffle_id,
            commitment=shuffle.commitment,
            index=index,
        )

    def ReportCard(  # noqa: N802
        self, request: table_pb2.ReportCardRequest, context: grpc.ServicerContext
    ) -> table_pb2.ReportCardResponse:
        principal = current_principal()
        require_dealer_of(principal, request.table_id)
        key = require_key(request.idempotency_key)
        report = dealer_reports.dealt_card(request)
        version, table = self.app.report(request.table_id, principal.subject, f"card/{key}", report)
        return table_pb2.ReportCardResponse(version=version, next_card=translate.next_card(table))

    def ReportIrregularity(  # noqa: N802
        self, request: table_pb2.ReportIrregularityRequest, context: grpc.ServicerContext
    ) -> table_pb2.ReportIrregularityResponse:
        principal = current_principal()
        require_dealer_of(principal, request.table_id)
        key = require_key(request.idempotency_key)
        report = dealer_reports.irregularity(request)
        version, table = self.app.report(
            request.table_id, principal.subject, f"irregular/{key}", report
        )
        due = translate.next_card(table)
        return table_pb2.ReportIrregularityResponse(version=version, next_card=due)

    def ApplyTimeout(  # noqa: N802
        self, request: table_pb2.ApplyTimeoutRequest, context: grpc.ServicerContext
    ) -> table_pb2.ApplyTimeoutResponse:
        current_principal().require(Role.SERVICE, Role.ADMIN)
        hand, action_number = request.hand_number, request.action_number
        if request.deadline_id:
            hand, action_number = translate.parse_deadline_id(request.deadline_id)
        applied, version = self.app.apply_timeout(request.table_id, hand, action_number)
        return table_pb2.ApplyTimeoutResponse(applied=applied, version=version)
