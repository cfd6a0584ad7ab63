"""`simulate --full-stack` reads the table's batched WatchTable stream: it counts every
decision the table asked for and every one it timed out (a timed-out decision fails the run,
`cli._full_stack`), wherever in a batch the event sits. The integration test only sees
`timed_out == 0`, which a count that missed every TimedOut would also give."""

from __future__ import annotations

from collections.abc import Iterator

import grpc

from croupier.poker.v1 import events_pb2 as poker_pb2
from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.bots.simulation.full_stack import _watch_hands


class Stream:
    """The WatchTable response stream as the run reads it: messages, then cancel()."""

    def __init__(self, *batches: list[events_pb2.TableEvent]) -> None:
        self.messages = [
            table_pb2.WatchTableResponse(events=table_pb2.TableEventBatch(events=batch))
            for batch in batches
        ]
        self.cancelled = False

    def __iter__(self) -> Iterator[table_pb2.WatchTableResponse]:
        return iter(self.messages)

    def cancel(self) -> None:
        self.cancelled = True


def _asked(seat: int) -> events_pb2.TableEvent:
    return events_pb2.TableEvent(action_requested=events_pb2.ActionRequested(seat=seat))


def _timed_out(seat: int) -> events_pb2.TableEvent:
    return events_pb2.TableEvent(timed_out=poker_pb2.TimedOut(seat=seat))


def _ended(hand: int, *stacks: int) -> events_pb2.TableEvent:
    entries = [poker_pb2.SeatChips(seat=s, amount=a) for s, a in enumerate(stacks)]
    return events_pb2.TableEvent(hand_ended=poker_pb2.HandEnded(hand=hand, stacks=entries))


def test_decisions_and_time_outs_are_counted_in_every_position_of_a_batch() -> None:
    stream = Stream(
        [_asked(0), _timed_out(0), _asked(1)],
        [_asked(0), _ended(1, 90, 110)],
        [_asked(1), _timed_out(1), _ended(2, 100, 100)],
        [_asked(0)],  # after the last hand asked for: not read
    )
    # The seats' own stubs: no seat goes broke here, so none is called (the channel never
    # connects).
    with grpc.insecure_channel("localhost:1") as channel:
        bots = [table_pb2_grpc.TableServiceStub(channel) for _ in range(2)]
        watched = _watch_hands(stream, "t1", 2, bots, 100, None)
    assert watched.deltas == [[-10, 10], [10, -10]]
    assert (watched.decisions, watched.timed_out) == (4, 2)
    assert stream.cancelled
