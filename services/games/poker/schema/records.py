"""The records the engine's hot paths build besides events and state, each declared once
here (tools/gen_records.py writes services/games/poker/records.py from it) as a native class
under mypyc: a player's `Act`, the dealer's `DealCards`, the engine's `NeedCards` request, a
seat's `LegalActions` and the betting arithmetic's `BetOptions`. The modules that use them
(commands, chance, legal, betting) export them too."""

from __future__ import annotations

from services.games.cardtext import Card
from services.games.values import Record


class Act(Record):
    """One player decision. `amount` is the "raise to" total for bet and raise; `cards` for
    discard (empty = stand pat) and open-discard (exactly one)."""

    seat: int
    action: str
    amount: int | None = None
    cards: tuple[Card, ...] = ()
    hand: int | None = None
    by: str | None = None


class DealCards(Record):
    """Chance input: cards for the pending `NeedCards` request, target None = the board.

    `deals` lists (target, cards) for every target of the request; `burned` the burn cards.
    """

    deals: tuple[tuple[int | None, tuple[Card, ...]], ...]
    burned: tuple[Card, ...] = ()

    @classmethod
    def to_seat(cls, seat: int, cards: tuple[Card, ...]) -> DealCards:
        return cls(((seat, cards),))

    @classmethod
    def to_board(cls, cards: tuple[Card, ...], burned: tuple[Card, ...] = ()) -> DealCards:
        return cls(((None, cards),), burned)


class NeedCards(Record):
    """Deal `count` cards to each target (seat, or None for the board) in `targets` order,
    after burning `burn`. `one_at_a_time`: round-robin, one card per target per pass."""

    targets: tuple[tuple[int | None, int], ...]
    burn: int = 0
    face_up: bool = False
    one_at_a_time: bool = False

    @property
    def total(self) -> int:
        return self.burn + sum(n for _, n in self.targets)


class LegalActions(Record):
    """Empty `actions` means the seat cannot act now (`to_act` says who can, if anyone).

    Amounts are "to" totals for the current betting round: a bet or raise is legal for any
    `min_to <= amount <= max_to`; `all_in_to` is the total if the seat goes all in;
    `to_call` is the chips a call adds. Draws: discard between `min_discards` and
    `max_discards` of `discardable`.
    """

    seat: int
    actions: frozenset[str] = frozenset()
    to_act: int | None = None
    to_call: int = 0
    min_to: int = 0
    max_to: int = 0
    all_in_to: int = 0
    min_discards: int = 0
    max_discards: int = 0
    discardable: tuple[Card, ...] = ()

    def allows(self, action: str) -> bool:
        return action in self.actions


class BetOptions(Record):
    """A seat's betting options (services/games/poker/betting.py); nothing mutates one once
    built."""

    to_call: int  # chips needed to call (capped at the stack)
    can_check: bool
    raise_kind: str | None  # Action.BET or Action.RAISE when a full bet/raise is possible
    min_to: int  # smallest full bet/raise total
    max_to: int  # largest bet/raise total (capped at the stack)
    all_in_to: int  # the seat's round bet if it goes all in
    all_in_legal: bool
    bet: int  # the seat's round bet now
    stack: int  # the seat's chips behind
