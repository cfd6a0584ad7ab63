"""The SDK's EntropyContributor: a commitment to each COMMIT round the caller's view shows,
the committed entropy to each REVEAL round, each once; nothing for a spectator; a round the
table refuses (too late, already sent) is noted and never raised, since the hand goes on
without it. The commitment is the one the dealer checks (docs/dealer.md, 1.1)."""

from __future__ import annotations

from croupier.table.v1 import events_pb2, table_pb2
from services.sdk import EntropyContributor, FailedPrecondition, entropy_commitment
from services.shuffles.derivation import entropy_commitment as dealer_commitment

COMMIT = table_pb2.ENTROPY_PHASE_COMMIT
REVEAL = table_pb2.ENTROPY_PHASE_REVEAL


class Table:
    """The two table calls a contributor makes, recorded (a refusal on demand)."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, bytes, bytes]] = []
        self.refuse = False
        self.current = table_pb2.TableView()

    def view(self, table_id: str) -> table_pb2.TableView:
        return self.current

    def contribute_entropy(
        self,
        table_id: str,
        *,
        hand_number: int = 0,
        commitment: bytes = b"",
        entropy: bytes = b"",
    ) -> table_pb2.ContributeEntropyResponse:
        if self.refuse:
            raise FailedPrecondition("hand 3's shuffle takes no commitments now")
        self.sent.append((hand_number, commitment, entropy))
        return table_pb2.ContributeEntropyResponse(hand_number=hand_number)


def view(*rounds: tuple[int, int], viewer: int = 0) -> table_pb2.TableView:
    message = table_pb2.TableView(table_id="t1", viewer_seat=viewer)
    message.seats.add(seat=0, player_id="alice")
    for hand, phase in rounds:
        message.entropy_rounds.add(hand=hand, shuffle_id=f"t1.hand-{hand}", phase=phase)
    return message


def test_the_commitment_is_the_one_the_dealer_checks() -> None:
    entropy = bytes(range(32))
    assert entropy_commitment("t1.hand-1", "alice", entropy) == dealer_commitment(
        "t1.hand-1", "alice", entropy
    )


def test_each_round_is_answered_once_commitment_first_then_the_committed_entropy() -> None:
    table = Table()
    contributor = EntropyContributor(table)
    assert contributor.answer(view((1, COMMIT), (2, COMMIT))) == 2
    assert contributor.answer(view((1, COMMIT), (2, COMMIT))) == 0  # the same view again
    first, second = table.sent
    mine = {c.hand: c.entropy for c in contributor.contributed}
    assert first == (1, entropy_commitment("t1.hand-1", "alice", mine[1]), b"")
    assert second == (2, entropy_commitment("t1.hand-2", "alice", mine[2]), b"")
    assert mine[1] != mine[2] and len(mine[1]) == 32
    assert contributor.answer(view((1, REVEAL), (2, COMMIT))) == 1
    assert table.sent[-1] == (1, b"", mine[1])
    assert contributor.answer(view((1, REVEAL))) == 0


def test_a_round_it_never_committed_to_is_not_revealed_and_a_spectator_sends_nothing() -> None:
    table = Table()
    contributor = EntropyContributor(table)
    assert contributor.answer(view((4, REVEAL))) == 0
    assert contributor.answer(view((5, COMMIT), viewer=-1)) == 0
    assert table.sent == []


def test_a_refused_round_is_noted_and_the_caller_goes_on() -> None:
    table = Table()
    table.refuse = True
    contributor = EntropyContributor(table)
    assert contributor.answer(view((3, COMMIT))) == 0
    assert contributor.refusals == ["t1.hand-3: hand 3's shuffle takes no commitments now"]


def test_watched_events_are_answered_without_reading_the_view_again() -> None:
    table = Table()
    contributor = EntropyContributor(table)
    contributor.answer(view())  # learns its name at the table
    announced = events_pb2.TableEvent(
        shuffle_announced=events_pb2.ShuffleAnnounced(hand=7, shuffle_id="t1.hand-7")
    )
    assert contributor.on_item("t1", announced) == 1
    others = events_pb2.TableEvent(
        shuffle_sealed=events_pb2.ShuffleSealed(hand=7, shuffle_id="t1.hand-7", committed=["bob"])
    )
    assert contributor.on_item("t1", others) == 0  # alice is not among its committers
    sealed = events_pb2.TableEvent(
        shuffle_sealed=events_pb2.ShuffleSealed(
            hand=7, shuffle_id="t1.hand-7", committed=["bob", "alice"]
        )
    )
    assert contributor.on_item("t1", sealed) == 1
    assert table.sent[-1] == (7, b"", contributor.contributed[0].entropy)


def test_a_derived_entropy_is_revealed_by_a_contributor_that_did_not_commit_it() -> None:
    table = Table()
    derived = EntropyContributor(table, derive=lambda sid, player: f"{sid}/{player}".encode() * 2)
    derived.answer(view())
    assert derived.answer(view((9, REVEAL))) == 1
    assert table.sent == [(9, b"", b"t1.hand-9/alicet1.hand-9/alice")]
