"""Players' entropy for the shuffles ahead: relayed to the dealer under the player's own name.

Shuffles are announced two hands ahead (steps.py, at each hand's start): a shuffle takes
entropy commitments while the hand two before it plays, is sealed when the hand before it
starts and takes the committed entropies' reveals during that hand (docs/dealer.md, "Player
entropy"). The dealer refuses anything out of phase; this only checks the caller is seated
and names the shuffle that takes the call now.
"""

from __future__ import annotations

from services.shared import errors
from services.table.buy_ins import own_seat
from services.table.ports import Commitment, DealerPort
from services.table.shell import ShellState
from services.table.tables import Tables


class Entropy:
    def __init__(self, tables: Tables, dealer: DealerPort) -> None:
        self.tables = tables
        self.dealer = dealer

    def contribute(
        self, table_id: str, player: str, hand: int, commitment: bytes, entropy: bytes
    ) -> tuple[Commitment, int, int]:
        """Relay a seated player's entropy round to the dealer, under the player's own name:
        its `commitment` to the shuffle that still takes them (hand last + 2), or the committed
        `entropy` to the sealed shuffle of the next hand (hand last + 1). Returns the shuffle,
        the hand and the commitment's index; the dealer refuses anything out of phase."""
        if bool(commitment) == bool(entropy):
            raise errors.InvalidArgument(
                "send either entropy_commitment (to the shuffle two hands ahead) or entropy "
                "(the committed entropy, to the next hand's sealed shuffle)"
            )
        table = self.tables.load(table_id)
        own_seat(table, player)
        shell = table.shell
        target = table.game.rounds(table.state).last + (2 if commitment else 1)
        hand = hand or target
        found = _first_upcoming(shell, hand)
        if hand != target or found is None:
            phase = "takes commitments" if commitment else "takes reveals"
            raise errors.FailedPrecondition(
                f"hand {hand} of table {table_id} does not take this now: the shuffle that "
                f"{phase} is hand {target}'s"
                + ("" if _first_upcoming(shell, target) else " (not announced yet)")
            )
        shuffle = Commitment(*found)
        if commitment:
            index = self.dealer.contribute(shuffle.shuffle_id, player, commitment)
        else:
            index = self.dealer.reveal(shuffle.shuffle_id, player, entropy)
        return shuffle, hand, index


def _first_upcoming(shell: ShellState, round_: int) -> tuple[str, str] | None:
    """The first shuffle announced for `round_` (id, commitment): the one entropy goes to."""
    return next(((u.shuffle_id, u.commitment) for u in shell.upcoming if u.round == round_), None)
