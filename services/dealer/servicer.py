"""gRPC adapter: request -> application -> response. No rules live here."""

# Method names are fixed by the proto (CreateShuffle, Deal, ...).
# ruff: noqa: N802

from __future__ import annotations

import grpc

from croupier.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from services.dealer.application import DealerApplication, Loaded
from services.dealer.views import shuffle_info
from services.shared.auth import current_principal
from services.shared.errors import DomainError, InvalidArgument
from services.shuffles import wire
from services.shuffles.derivation import DerivationError
from services.shuffles.verification import verify

# Commands in one AdvanceShuffles batch: a hand's boundary takes four (close, seal, create,
# deal); the bound keeps one request's work (and its hold on a server thread) small.
MAX_BATCH = 8


class DealerServicer(dealer_pb2_grpc.DealerServiceServicer):
    def __init__(self, app: DealerApplication) -> None:
        self._app = app

    def _info(self, shuffle_id: str) -> dealer_pb2.ShuffleInfo:
        state, remaining = self._app.get(shuffle_id)
        return shuffle_info(state, remaining)

    def _info_after(self, loaded: Loaded) -> dealer_pb2.ShuffleInfo:
        """The shuffle as the command left it (no second read of the stream)."""
        return shuffle_info(loaded.state, self._app.remaining(loaded))

    def CreateShuffle(
        self, request: dealer_pb2.CreateShuffleRequest, context: grpc.ServicerContext
    ) -> dealer_pb2.CreateShuffleResponse:
        order = wire.cards_from_wire(request.test_deck_order, "test_deck_order")
        loaded = self._app.create_shuffle(
            current_principal(), request.shuffle_id, wire.deck_from_wire(request.deck), order
        )
        return dealer_pb2.CreateShuffleResponse(shuffle=self._info_after(loaded))

    def Contribute(
        self, request: dealer_pb2.ContributeRequest, context: grpc.ServicerContext
    ) -> dealer_pb2.ContributeResponse:
        index = self._app.contribute(
            current_principal(), request.shuffle_id, request.contributor, request.entropy_commitment
        )
        return dealer_pb2.ContributeResponse(index=index)

    def RevealEntropy(
        self, request: dealer_pb2.RevealEntropyRequest, context: grpc.ServicerContext
    ) -> dealer_pb2.RevealEntropyResponse:
        index = self._app.reveal(
            current_principal(), request.shuffle_id, request.contributor, request.entropy
        )
        return dealer_pb2.RevealEntropyResponse(index=index)

    def Seal(
        self, request: dealer_pb2.SealRequest, context: grpc.ServicerContext
    ) -> dealer_pb2.SealResponse:
        loaded = self._app.seal(current_principal(), request.shuffle_id)
        return dealer_pb2.SealResponse(shuffle=self._info_after(loaded))

    def Deal(
        self, request: dealer_pb2.DealRequest, context: grpc.ServicerContext
    ) -> dealer_pb2.DealResponse:
        result = self._app.deal(
            current_principal(),
            request.shuffle_id,
            request.count,
            request.purpose,
            request.recipient,
            request.idempotency_key,
            request.burn,
            request.position if request.HasField("position") else None,
        )
        return dealer_pb2.DealResponse(
            cards=result.cards,
            first_position=result.first_position,
            remaining=result.remaining,
            burned=result.burned,
        )

    def Reshuffle(
        self, request: dealer_pb2.ReshuffleRequest, context: grpc.ServicerContext
    ) -> dealer_pb2.ReshuffleResponse:
        include = wire.cards_from_wire(request.cards_to_include, "cards_to_include")
        sequence = self._app.reshuffle(
            current_principal(),
            request.shuffle_id,
            include,
            request.idempotency_key,
            request.needed,
            request.position if request.HasField("position") else None,
        )
        return dealer_pb2.ReshuffleResponse(nonce=sequence.nonce, remaining=sequence.remaining)

    def Close(
        self, request: dealer_pb2.CloseRequest, context: grpc.ServicerContext
    ) -> dealer_pb2.CloseResponse:
        loaded = self._app.close(current_principal(), request.shuffle_id, request.reason)
        return dealer_pb2.CloseResponse(shuffle=self._info_after(loaded))

    def AdvanceShuffles(
        self, request: dealer_pb2.AdvanceShufflesRequest, context: grpc.ServicerContext
    ) -> dealer_pb2.AdvanceShufflesResponse:
        """Each command through its own RPC's handler, in order: the batch has exactly the
        rules of the calls it replaces, whatever those become."""
        principal = current_principal()
        commands = request.commands
        if not 1 <= len(commands) <= MAX_BATCH:
            raise InvalidArgument(
                f"send 1..{MAX_BATCH} commands (create, seal, deal or close), got {len(commands)}"
            )
        # The whole batch is the table's alone, even a batch that would fail before any
        # command of it ran (each command checks it again).
        self._app.require_table(principal, "advance shuffles")
        response = dealer_pb2.AdvanceShufflesResponse()
        for index, command in enumerate(commands):
            which = command.WhichOneof("command")
            try:
                response.results.append(self._command(which, command, context))
            except DomainError as exc:
                exc.message = f"command {index} ({which}): {exc.message}"
                exc.args = (exc.message,)
                raise
        return response

    def _command(
        self, which: str | None, command: dealer_pb2.ShuffleCommand, context: grpc.ServicerContext
    ) -> dealer_pb2.ShuffleCommandResult:
        if which == "create":
            return dealer_pb2.ShuffleCommandResult(
                create=self.CreateShuffle(command.create, context)
            )
        if which == "seal":
            return dealer_pb2.ShuffleCommandResult(seal=self.Seal(command.seal, context))
        if which == "deal":
            if not command.deal.idempotency_key:
                # A retried batch must find its cards, never deal new ones.
                raise InvalidArgument("a deal in a batch needs its idempotency_key")
            return dealer_pb2.ShuffleCommandResult(deal=self.Deal(command.deal, context))
        if which == "close":
            return dealer_pb2.ShuffleCommandResult(close=self.Close(command.close, context))
        raise InvalidArgument("each command is one of create, seal, deal or close")

    def GetShuffle(
        self, request: dealer_pb2.GetShuffleRequest, context: grpc.ServicerContext
    ) -> dealer_pb2.GetShuffleResponse:
        info = self._info(request.shuffle_id)
        if info.dealt_count and not self._app.sees_record(current_principal()):
            # The seed rebuilds every dealt card, unshown hands included: a player proves its
            # own cards with their openings instead (docs/dealer.md 2.10). A shuffle closed
            # before its first card hides nobody's: its seed stays public.
            info.ClearField("revealed_seed")
            info.ClearField("steps")
        return dealer_pb2.GetShuffleResponse(shuffle=info)

    def Verify(
        self, request: dealer_pb2.VerifyRequest, context: grpc.ServicerContext
    ) -> dealer_pb2.VerifyResponse:
        current_principal()
        subject = request.WhichOneof("subject")
        if subject == "shuffle_id":
            return wire.verification_to_wire(self._app.verify_closed(request.shuffle_id))
        if subject != "history":
            raise InvalidArgument("send a shuffle_id or a complete history to verify")
        history = request.history
        try:
            result = verify(
                history.commitment,
                history.server_seed,
                history.shuffle_id,
                wire.deck_from_wire(history.deck),
                [wire.contribution_from_wire(c) for c in history.contributions],
                wire.steps_from_wire(history.steps),
                history.positions_root,
            )
        except DerivationError as exc:  # a history no shuffle could have (e.g. its id)
            raise InvalidArgument(f"history: {exc}") from exc
        return wire.verification_to_wire(result)
