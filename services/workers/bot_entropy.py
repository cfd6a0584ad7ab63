"""The built-in bots' entropy: every hand's deck takes each seated bot's, like a player's.

A bot's turns may be played by any worker process, so its entropy for a shuffle is derived,
not drawn: 32 bytes from the workers' own key over (shuffle, bot), through a deterministic
Ed25519 signature (HMAC-SHA256 under the shared development key). Whichever process plays
the turn that answers a REVEAL round reveals what another process committed, and nobody
without the workers' key (which mints the bots' tokens anyway) can predict it. The bot
answers the rounds its turn's view shows (services/sdk/entropy.py).
"""

from __future__ import annotations

import hashlib
import hmac
import struct

import grpc

from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.sdk.errors import from_rpc_error
from services.shared import auth

TAG = b"croupier/bots/v1/entropy"
RPC_TIMEOUT = 5.0


def _field(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def bot_entropy(key: str | auth.Credentials, shuffle_id: str, bot_id: str) -> bytes:
    """The bot's 32 bytes of entropy for `shuffle_id` (the same in every worker process)."""
    message = _field(TAG) + _field(shuffle_id.encode()) + _field(bot_id.encode())
    creds = auth.credentials(key)
    if isinstance(creds, auth.SharedKey):
        return hmac.new(creds.secret.encode(), message, hashlib.sha256).digest()
    if creds.private_key is None:
        raise ValueError("the workers need their signing key to derive the bots' entropy")
    return hashlib.sha256(creds.private_key.sign(message)).digest()


class StubEntropyCalls:
    """The two calls an EntropyContributor makes, on the workers' stub as the bot."""

    def __init__(self, stub: table_pb2_grpc.TableServiceStub) -> None:
        self._stub = stub
        self.metadata: tuple[tuple[str, str], ...] = ()  # the bot's current token

    def view(self, table_id: str) -> table_pb2.TableView:
        request = table_pb2.GetTableViewRequest(table_id=table_id)
        try:
            response = self._stub.GetTableView(request, metadata=self.metadata, timeout=RPC_TIMEOUT)
        except grpc.RpcError as exc:
            raise from_rpc_error(exc, "GetTableView") from exc
        return response.view

    def contribute_entropy(
        self,
        table_id: str,
        *,
        hand_number: int = 0,
        commitment: bytes = b"",
        entropy: bytes = b"",
    ) -> table_pb2.ContributeEntropyResponse:
        request = table_pb2.ContributeEntropyRequest(
            table_id=table_id,
            hand_number=hand_number,
            entropy_commitment=commitment,
            entropy=entropy,
        )
        try:
            response: table_pb2.ContributeEntropyResponse = self._stub.ContributeEntropy(
                request, metadata=self.metadata, timeout=RPC_TIMEOUT
            )
        except grpc.RpcError as exc:
            raise from_rpc_error(exc, "ContributeEntropy") from exc
        return response
