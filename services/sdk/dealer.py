"""The dealer (`croupier.dealer.v1.DealerService`) as clients use it: read a shuffle's
commitment and, once the hand is over, its revealed seed and every card dealt, to check them
(`croupier verify --table T --hand N`). Dealing itself is the table service's alone."""

from __future__ import annotations

from croupier.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from services.sdk.connection import Caller, ClientSettings, open_channel

SERVICE = "DealerService"


def shuffle_id(table_id: str, hand_number: int) -> str:
    """The id of the shuffle that dealt a table's hand (ShuffleCommitted names it too)."""
    return f"{table_id}.hand-{hand_number}"


class DealerClient:
    def __init__(self, settings: ClientSettings | None = None) -> None:
        self.settings = settings or ClientSettings.from_env()
        self._channel = open_channel(self.settings, "dealer")
        self.stub = dealer_pb2_grpc.DealerServiceStub(self._channel)
        self._caller = Caller(SERVICE, self.settings)

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> DealerClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def shuffle(self, shuffle: str) -> dealer_pb2.ShuffleInfo:
        """A shuffle's public record: commitment, status, and after Close the seed and steps."""
        request = dealer_pb2.GetShuffleRequest(shuffle_id=shuffle)
        return self._caller.call("GetShuffle", self.stub.GetShuffle, request).shuffle

    def verify(self, shuffle: str) -> dealer_pb2.VerifyResponse:
        """The dealer's own check of a closed shuffle (prefer checking it yourself:
        `croupier verify --table T --hand N` re-derives every card locally)."""
        request = dealer_pb2.VerifyRequest(shuffle_id=shuffle)
        return self._caller.call("Verify", self.stub.Verify, request)
