"""What a shuffle looks like from outside: the public ShuffleInfo, the closed HandHistory."""

from __future__ import annotations

from croupier.dealer.v1 import dealer_pb2, events_pb2
from services.dealer.shuffle import ShuffleState
from services.shuffles import wire


def _status(state: ShuffleState) -> dealer_pb2.ShuffleStatus.ValueType:
    if state.closed:
        return dealer_pb2.SHUFFLE_STATUS_CLOSED
    if state.dealing:
        return dealer_pb2.SHUFFLE_STATUS_DEALING
    return dealer_pb2.SHUFFLE_STATUS_SEALED if state.sealed else dealer_pb2.SHUFFLE_STATUS_OPEN


def commitments(state: ShuffleState) -> list[dealer_pb2.EntropyCommitment]:
    return [
        dealer_pb2.EntropyCommitment(
            contributor=c.contributor,
            commitment=c.commitment,
            accepted_from=c.accepted_from,
            revealed=c.revealed,
        )
        for c in state.commitments
    ]


def history_steps(state: ShuffleState) -> list[dealer_pb2.HistoryStep]:
    steps = []
    for entry in state.history:
        if isinstance(entry, events_pb2.CardsDealt):
            deal = dealer_pb2.DealStep(
                cards=entry.cards,
                purpose=entry.purpose,
                recipient=entry.recipient,
                positioned=entry.positioned,
            )
            steps.append(dealer_pb2.HistoryStep(deal=deal))
        else:
            reshuffle = dealer_pb2.ReshuffleStep(
                included=entry.included,
                nonce=entry.nonce,
                size=entry.size,
                needed=entry.needed,
                at_unix_ms=entry.at_unix_ms,
                positions_root=entry.positions_root,
            )
            steps.append(dealer_pb2.HistoryStep(reshuffle=reshuffle))
    return steps


def shuffle_info(state: ShuffleState, remaining: int) -> dealer_pb2.ShuffleInfo:
    """Public information. Dealt cards and the seed only once the shuffle is closed."""
    info = dealer_pb2.ShuffleInfo(
        shuffle_id=state.shuffle_id,
        deck=wire.deck_to_wire(state.deck),
        commitment=state.commitment,
        status=_status(state),
        dealt_count=state.dealt_count,
        remaining=remaining,
        nonce=state.nonce,
        contributions=[wire.contribution_to_wire(c) for c in state.contributions],
        test_deck=state.is_test_deck,
        commitments=commitments(state),
        positions_root=state.positions_root,
        reshuffle_roots=[
            h.positions_root for h in state.history if isinstance(h, events_pb2.DeckReshuffled)
        ],
    )
    if state.revealed_seed is not None:
        info.revealed_seed = state.revealed_seed
        info.steps.extend(history_steps(state))
    return info


def hand_history(state: ShuffleState) -> dealer_pb2.HandHistory:
    """The complete record a verifier needs (only for closed shuffles)."""
    assert state.revealed_seed is not None, "hand histories exist only after Close"
    return dealer_pb2.HandHistory(
        shuffle_id=state.shuffle_id,
        deck=wire.deck_to_wire(state.deck),
        commitment=state.commitment,
        server_seed=state.revealed_seed,
        contributions=[wire.contribution_to_wire(c) for c in state.contributions],
        steps=history_steps(state),
        commitments=commitments(state),
        positions_root=state.positions_root,
    )
