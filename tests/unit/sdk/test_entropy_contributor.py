"""The SDK's EntropyContributor: a commitment to each COMMIT round the caller's view shows,
the committed entropy to each REVEAL round, each once; nothing for a spectator; a round the
table refuses (too late, already sent) is noted and never raised, since the hand goes on
without it. The commitment is the one the dealer checks (docs/dealer.md, 1.1)."""

from __future__ import annotations

from croupier.table.v1 import events_pb2, table_pb2
from services.sdk import (
    AlreadyExists,
    EntropyContributor,
    FailedPrecondition,
    InvalidArgument,
    Unavailable,
    entropy_commitment,
)
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


class SealsOnTheLastCommitment(Table):
    """A table that seals the shuffle as the last commitment is recorded and tells its
    players before the committer's own call has returned (what a busy machine does)."""

    def __init__(self) -> None:
        super().__init__()
        self.contributor: EntropyContributor | None = None
        self.reveals_during_commit: list[int] = []

    def contribute_entropy(
        self,
        table_id: str,
        *,
        hand_number: int = 0,
        commitment: bytes = b"",
        entropy: bytes = b"",
    ) -> table_pb2.ContributeEntropyResponse:
        answer = super().contribute_entropy(
            table_id, hand_number=hand_number, commitment=commitment, entropy=entropy
        )
        if commitment and self.contributor is not None:
            self.reveals_during_commit.append(self.contributor.answer(view((hand_number, REVEAL))))
        return answer


def test_a_shuffle_sealed_before_the_commitments_answer_returns_is_still_revealed() -> None:
    table = SealsOnTheLastCommitment()
    contributor = table.contributor = EntropyContributor(table)
    assert contributor.answer(view((2, COMMIT))) == 1
    assert table.reveals_during_commit == [1]
    (mine,) = contributor.contributed
    assert table.sent == [
        (2, entropy_commitment("t1.hand-2", "alice", mine.entropy), b""),
        (2, b"", mine.entropy),
    ]


class FailsOnce(Table):
    """A table whose first call of each kind fails after it may have been recorded."""

    def __init__(self, recorded: bool) -> None:
        super().__init__()
        self.recorded = recorded
        self.failed: set[bool] = set()
        self.commitments: set[bytes] = set()

    def contribute_entropy(
        self,
        table_id: str,
        *,
        hand_number: int = 0,
        commitment: bytes = b"",
        entropy: bytes = b"",
    ) -> table_pb2.ContributeEntropyResponse:
        kind = bool(commitment)
        if commitment and commitment in self.commitments:
            raise AlreadyExists("alice has committed to this shuffle already")
        if kind not in self.failed:
            self.failed.add(kind)
            if self.recorded:
                super().contribute_entropy(
                    table_id, hand_number=hand_number, commitment=commitment, entropy=entropy
                )
                if commitment:
                    self.commitments.add(commitment)
            raise Unavailable("the table service is restarting")
        if commitment:
            self.commitments.add(commitment)
        return super().contribute_entropy(
            table_id, hand_number=hand_number, commitment=commitment, entropy=entropy
        )


def test_a_call_that_failed_is_sent_again_with_the_same_entropy_on_the_next_answer() -> None:
    for recorded in (False, True):  # the failed commitment lost, or recorded and its answer lost
        table = FailsOnce(recorded)
        contributor = EntropyContributor(table)
        assert contributor.answer(view((5, COMMIT))) == 0
        assert contributor.answer(view((5, COMMIT))) == 1
        assert contributor.answer(view((5, COMMIT))) == 0
        (mine,) = contributor.contributed
        commitment = entropy_commitment("t1.hand-5", "alice", mine.entropy)
        assert table.sent[-1] == (5, commitment, b"")
        assert contributor.answer(view((5, REVEAL))) == 0  # that reveal's call fails
        assert contributor.answer(view((5, REVEAL))) == 1
        assert contributor.answer(view((5, REVEAL))) == 0
        assert table.sent[-1] == (5, b"", mine.entropy)


class CommittedElsewhere(Table):
    """A table that holds a commitment of this player from another process already, and
    refuses a reveal that does not match it."""

    def contribute_entropy(
        self,
        table_id: str,
        *,
        hand_number: int = 0,
        commitment: bytes = b"",
        entropy: bytes = b"",
    ) -> table_pb2.ContributeEntropyResponse:
        if commitment:
            raise AlreadyExists("alice has committed to this shuffle already")
        self.sent.append((hand_number, commitment, entropy))
        raise InvalidArgument("the entropy does not match alice's commitment")


def test_a_fresh_entropy_meeting_another_processs_commitment_is_refused_and_never_revealed() -> (
    None
):
    table = CommittedElsewhere()
    contributor = EntropyContributor(table)
    assert contributor.answer(view((6, COMMIT))) == 0
    assert contributor.refusals == ["t1.hand-6: alice has committed to this shuffle already"]
    assert contributor.answer(view((6, REVEAL))) == 0
    assert table.sent == []  # its own entropy is not what the table holds: nothing sent


def test_a_reveal_the_table_finds_not_matching_is_final() -> None:
    table = CommittedElsewhere()
    derived = EntropyContributor(table, derive=lambda sid, player: b"x" * 32)
    derived.answer(view())
    assert derived.answer(view((8, REVEAL))) == 0
    assert derived.answer(view((8, REVEAL))) == 0  # not sent again: the table refused it
    assert len(table.sent) == 1
    assert derived.refusals == ["t1.hand-8: the entropy does not match alice's commitment"]
