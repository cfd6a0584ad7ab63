"""The dealer (`croupier.dealer.v1.DealerService`) as clients use it: read a shuffle's
commitment and, once the hand is over, its revealed seed and every card dealt, to check them
(`croupier verify --table T --hand N`). Dealing itself is the table service's alone."""

from __future__ import annotations

from croupier.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from croupier.table.v1 import table_pb2
from services.sdk.connection import Caller, ClientSettings, open_channel

SERVICE = "DealerService"


def shuffle_id(table_id: str, hand_number: int) -> str:
    """The id of the shuffle that dealt a table's hand (ShuffleCommitted names it too)."""
    return f"{table_id}.hand-{hand_number}"


def shown_commitment(shuffle: table_pb2.HandShuffle) -> str:
    """The commitment (hex) the table showed every watcher before `shuffle` dealt its first
    card (`GetHandHistoryResponse.shuffles`): the announced one (a standard deck, announced
    ahead of its hand), else the one committed at the hand's start (a custom deck). A
    ValueError when the table recorded two different ones for the same shuffle."""
    announced = shuffle.announced.commitment if shuffle.HasField("announced") else ""
    committed = shuffle.committed.commitment if shuffle.HasField("committed") else ""
    if announced and committed and announced != committed:
        raise ValueError(
            f"the table announced {announced} for shuffle {shuffle.committed.shuffle_id} but "
            f"committed {committed} at the hand's start"
        )
    return announced or committed


def shown_positions_root(shuffle: table_pb2.HandShuffle) -> str:
    """The positions root (hex; docs/dealer.md 2.10) the table showed with the commitment
    before `shuffle` dealt a card; "" for a shuffle without per-position commitments. A
    ValueError when the table recorded two different ones."""
    announced = shuffle.announced.positions_root if shuffle.HasField("announced") else ""
    committed = shuffle.committed.positions_root if shuffle.HasField("committed") else ""
    if announced and committed and announced != committed:
        raise ValueError(
            f"the table announced positions root {announced} but committed {committed}"
        )
    return announced or committed


def shuffle_id_of(shuffle: table_pb2.HandShuffle) -> str:
    """The dealer's id of a hand's shuffle, from whichever of its records the table holds."""
    for record in (shuffle.announced, shuffle.committed, shuffle.sealed, shuffle.revealed):
        if record.shuffle_id:
            return str(record.shuffle_id)
    return ""


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
