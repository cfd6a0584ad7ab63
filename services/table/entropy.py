"""Players' entropy for the shuffles ahead: relayed to the dealer under the player's own name.

A standard-deck shuffle is announced before its round (steps.py): it takes commitments until
it is sealed (when the round before it starts, or once its round is next and its commit
window is over: entropy_window.py) and then the committed entropies' reveals until its round
deals from it (docs/dealer.md, "Player entropy"). The dealer refuses anything out of phase;
this checks the caller is seated, names the shuffle that takes the call now and, when the
round that is next waits for entropy, drives the table on once the answer is relayed.
"""

from __future__ import annotations

from collections.abc import Callable

from services.shared import errors
from services.table.buy_ins import own_seat
from services.table.entropy_window import EntropySeen
from services.table.ports import Commitment, DealerPort
from services.table.shell import Announced, ShellState
from services.table.tables import Tables


class Entropy:
    def __init__(
        self,
        tables: Tables,
        dealer: DealerPort,
        seen: EntropySeen | None = None,
        wake: Callable[[str], object] | None = None,
    ) -> None:
        self.tables = tables
        self.dealer = dealer
        self.seen = seen or EntropySeen()
        self.wake = wake  # drives a table on (the retrier's keep_going)

    def contribute(
        self, table_id: str, player: str, hand: int, commitment: bytes, entropy: bytes
    ) -> tuple[Commitment, int, int]:
        """Relay a seated player's entropy round to the dealer, under the player's own name:
        its `commitment` to a shuffle that still takes them, or the committed `entropy` to a
        sealed one (`hand` 0: the earliest such shuffle). Returns the shuffle, the hand and
        the commitment's index; the dealer refuses anything out of phase."""
        if bool(commitment) == bool(entropy):
            raise errors.InvalidArgument(
                "send either entropy_commitment (to a shuffle that takes commitments) or "
                "entropy (the committed entropy, to a sealed shuffle)"
            )
        table = self.tables.load(table_id)
        own_seat(table, player)
        target = _target(table.shell, hand, sealed=bool(entropy))
        if target is None:
            phase = "takes commitments" if commitment else "takes reveals"
            where = f"hand {hand}'s shuffle" if hand else "no shuffle"
            raise errors.FailedPrecondition(
                f"{where} of table {table_id} {phase} now: look at the view's entropy_rounds"
            )
        shuffle = Commitment(target.shuffle_id, target.commitment)
        if commitment:
            index = self.dealer.contribute(shuffle.shuffle_id, player, commitment)
            self.seen.committed(shuffle.shuffle_id, player)
        else:
            index = self.dealer.reveal(shuffle.shuffle_id, player, entropy)
            self.seen.revealed(shuffle.shuffle_id, player)
        if self.wake is not None and target.round == table.game.rounds(table.state).last + 1:
            self.wake(table_id)  # the round that is next may wait for this answer
        return shuffle, target.round, index


def _target(shell: ShellState, hand: int, sealed: bool) -> Announced | None:
    """The announced shuffle (of `hand`, or the earliest) in the phase that takes the call."""
    phase = [u for u in shell.upcoming if u.sealed == sealed and (not hand or u.round == hand)]
    return min(phase, key=lambda u: u.round, default=None)
