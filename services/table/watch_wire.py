"""Batched WatchTable responses as bytes, joined from each event's serialized TableEvent.

A batched watcher's message is `WatchTableResponse{events: TableEventBatch{events: [...]}}`.
Built as messages, each event was copied into the batch and the batch into the response, and
the whole serialized per message. In protobuf's wire format an embedded message field is its
tag, its length (a varint) and the embedded message's own serialization, one after another
for a repeated field. So the serialization of the batch response is exactly the concatenation
built here (`batch_item` per event, `batch_response` around them): watching.py serializes
each event's TableEvent once per distinct view and caches the item, and a batch costs one
join. The client parses the same bytes as before; tests/unit/table/test_watch_wire.py pins
them against the messages' own serialization.

gRPC serializes what a streaming servicer yields with the method's response serializer, so
the table registers WatchTable with `serialize_response`, which sends bytes as they are and
serializes a message as the generated code would (the first view, unbatched events). Every
other RPC keeps the generated registration. The interceptors (services/shared/interceptors.py)
pass the stream's items through without looking at them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import grpc

from croupier.table.v1 import table_pb2, table_pb2_grpc

# A message of a WatchTable stream: a response, or a batched one serialized already.
WatchMessage = table_pb2.WatchTableResponse | bytes

_LENGTH_DELIMITED = 2  # the wire type of embedded messages, strings and bytes


def varint(value: int) -> bytes:
    """`value` (>= 0) as a protobuf base-128 varint, low group first."""
    if value < 0:
        raise ValueError(f"a length is never negative, got {value}")
    if value < 0x80:
        return _ONE_BYTE[value]
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_ONE_BYTE = [bytes((n,)) for n in range(0x80)]


def _tag(message: Any, field: str) -> bytes:
    number: int = message.DESCRIPTOR.fields_by_name[field].number
    return varint(number << 3 | _LENGTH_DELIMITED)


# TableEventBatch.events (1) and WatchTableResponse.events (3), from the descriptors.
_ITEM_TAG = _tag(table_pb2.TableEventBatch, "events")
_BATCH_TAG = _tag(table_pb2.WatchTableResponse, "events")


def batch_item(table_event: bytes) -> bytes:
    """One serialized TableEvent as an element of `TableEventBatch.events`."""
    return b"".join((_ITEM_TAG, varint(len(table_event)), table_event))


def batch_response(items: Sequence[bytes]) -> bytes:
    """The serialized `WatchTableResponse{events: TableEventBatch{events}}` of `batch_item`s."""
    batch = b"".join(items)
    return b"".join((_BATCH_TAG, varint(len(batch)), batch))


def serialize_response(response: WatchMessage) -> bytes:
    """WatchTable's response serializer: bytes as they are, a message serialized."""
    if isinstance(response, bytes):
        return response
    return response.SerializeToString()


class _Registrar:
    """Takes the generated code's method handlers instead of a server, to register them."""

    def __init__(self) -> None:
        self.handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}

    def add_generic_rpc_handlers(self, handlers: object) -> None:
        pass  # (made from the same handlers as the registered ones, below)

    def add_registered_method_handlers(
        self, service: str, handlers: dict[str, grpc.RpcMethodHandler[Any, Any]]
    ) -> None:
        self.handlers = dict(handlers)


def add_table_service(servicer: table_pb2_grpc.TableServiceServicer, server: grpc.Server) -> None:
    """`table_pb2_grpc.add_TableServiceServicer_to_server`, with WatchTable's responses
    serialized by `serialize_response`."""
    registrar = _Registrar()
    table_pb2_grpc.add_TableServiceServicer_to_server(servicer, cast(grpc.Server, registrar))
    handlers = registrar.handlers
    watch = handlers["WatchTable"]  # (KeyError: the generated code registers differently)
    assert watch.unary_stream is not None
    handlers["WatchTable"] = grpc.unary_stream_rpc_method_handler(
        watch.unary_stream,
        request_deserializer=watch.request_deserializer,
        response_serializer=serialize_response,
    )
    name = table_pb2.DESCRIPTOR.services_by_name["TableService"].full_name
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(name, handlers),))
    server.add_registered_method_handlers(name, handlers)
