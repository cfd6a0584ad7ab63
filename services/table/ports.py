"""What the table application needs from the world, as small protocols.

gRPC adapters (`services.table.adapters`) implement them against the dealer, evaluator and
ledger services; the scheduler port is what the Celery adapter implements. The
engine's own ranking port (`services.games.ranking.HandRanker`) is used for showdowns.
Every mutating call carries a deterministic idempotency key so a step repeated after a crash
has its effect once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from services.games.cardtext import Card
from services.games.contract import DealPurpose, DeckSpec

STANDARD_DECK = DeckSpec()  # one standard 52-card deck

# One DealerPort call for `DealerPort.advance`: the method's name ("open_shuffle", "seal",
# "deal" or "close"), its positional and its keyword arguments.
ShuffleCall = tuple[str, tuple[Any, ...], Mapping[str, Any]]
BATCHED_METHODS = frozenset({"open_shuffle", "seal", "deal", "close"})


@dataclass(frozen=True, slots=True)
class Commitment:
    """A sealed shuffle: its id and the public commitment published before the first card."""

    shuffle_id: str
    commitment: str
    # the Merkle root over its salted card positions (hex; docs/dealer.md 2.10), public with
    # the commitment; "" from a dealer without per-position commitments
    positions_root: str = ""


@dataclass(frozen=True, slots=True)
class BuyInHold:
    """A buy-in's hold in the ledger: its reservation id and its status as the ledger answered
    ("pending", "posted", "voided"). A retried Reserve gets the original reservation, which
    may have been posted or voided since; only a pending one holds chips for the table."""

    reservation_id: str
    status: str


class DealerPort(Protocol):
    """The only holder of undealt cards."""

    def open_shuffle(self, shuffle_id: str, deck: DeckSpec = STANDARD_DECK) -> Commitment:
        """Create (or find again) the shuffle `shuffle_id` of `deck` and commit to it."""
        ...

    def contribute(self, shuffle_id: str, contributor: str, commitment: bytes) -> int:
        """Record `contributor`'s entropy commitment in an unsealed shuffle; its index."""
        ...

    def seal(self, shuffle_id: str) -> tuple[str, ...]:
        """Close the shuffle to commitments; their reveals are taken until the first card.
        Who committed, in commitment order."""
        ...

    def reveal(self, shuffle_id: str, contributor: str, entropy: bytes) -> int:
        """Reveal `contributor`'s committed entropy to a sealed shuffle; its index."""
        ...

    def deal(
        self,
        shuffle_id: str,
        count: int,
        step: str,
        purpose: DealPurpose,
        burn: int = 0,
        position: int | None = None,
    ) -> tuple[Card, ...]:
        """`burn` burned cards then the next `count` cards of the deck, in one request (the
        burned cards first in the result); `step` names the dealing step so a repeated
        request returns the same cards instead of new ones. `purpose`: hole, board, burn,
        draw or spit (the dealer records each card with it, the burned ones as burns).
        `position`: how many cards the table's events hold from the shuffle; the dealer
        answers a position it dealt with the cards dealt there, whatever the step's key,
        and refuses a mismatch or a skip (dealer.proto, DealRequest.position)."""
        ...

    def reshuffle(
        self,
        shuffle_id: str,
        cards: Sequence[Card],
        step: str,
        needed: int,
        position: int | None = None,
    ) -> None:
        """Shuffle `cards` (discards) back under the stub so a draw of `needed` cards, more
        than the stub holds, can go on; `position` as for `deal` (one taken again at the
        position it was recorded at is answered, not refused)."""
        ...

    def close(self, shuffle_id: str, reason: str) -> str:
        """End the shuffle and return its reveal (JSON) for `croupier verify`."""
        ...

    def advance(self, calls: Sequence[ShuffleCall]) -> tuple[Any, ...]:
        """Several `open_shuffle` / `seal` / `deal` / `close` calls in ONE round trip
        (AdvanceShuffles), performed in order, each with its own call's rules; what each
        would have returned, in order. A failure is the first failing call's error (the
        calls before it done: each is idempotent, so doing them again alone is safe)."""
        ...


class LedgerPort(Protocol):
    """Chip movements. The table's escrow account holds every chip in play at the table."""

    def ensure_accounts(self, table_id: str, currency: str) -> None:
        """Open the table's escrow and the house rake accounts (idempotent)."""
        ...

    def player_account(self, player: str, currency: str) -> str:
        """The default wallet account id of `player`."""
        ...

    def reserve_buy_in(
        self, key: str, table_id: str, account: str, amount: int, currency: str
    ) -> BuyInHold:
        """Hold `amount` in `account` for the table (a repeated key finds its first hold)."""
        ...

    def post(self, key: str, reservation_id: str, table_id: str) -> None:
        """Move a reserved buy-in to the table's escrow."""
        ...

    def void(self, key: str, reservation_id: str, reason: str) -> None:
        """Release a reserved buy-in that will not be used."""
        ...

    def pay_out(
        self, key: str, table_id: str, account: str, amount: int, currency: str, reason: str
    ) -> None:
        """Move chips from the table's escrow to `account` (cash-out)."""
        ...

    def rake(self, key: str, table_id: str, hand: int, amount: int, currency: str) -> None:
        """Move chips a round owes the house (a hand's rake, a banked game's loss) from the
        table's escrow to the house."""
        ...

    def from_house(self, key: str, table_id: str, hand: int, amount: int, currency: str) -> None:
        """Move chips the house owes a round (a banked game's win) into the table's escrow."""
        ...


class SchedulerPort(Protocol):
    """Triggers for timeouts and bot turns (Celery in production). A trigger only
    asks the table service to act; the table re-checks the world, so duplicates are no-ops.
    `only_if_lost` (the table's recovery sends what it waits for again): send nothing when
    the scheduler knows the trigger is still on its way."""

    def schedule_timeout(
        self,
        table_id: str,
        hand: int,
        action_number: int,
        deadline_unix_ms: int,
        *,
        only_if_lost: bool = False,
        swept: bool = False,
    ) -> None: ...

    def schedule_timeouts(
        self, table_id: str, timeouts: Sequence[tuple[int, int, int]], *, swept: bool = False
    ) -> None:
        """The table's open timed decisions are now exactly `timeouts`, each (round, decision
        number, deadline in Unix ms): trigger the new or moved ones, forget the others (the
        game closed or renamed them). `swept` (a real-time game, whose deadlines move with
        every card played): no trigger each; the workers sweep the index for them."""
        ...

    def schedule_bot_turn(
        self,
        table_id: str,
        hand: int,
        action_number: int,
        seat: int,
        player: str,
        *,
        only_if_lost: bool = False,
    ) -> None: ...

    def schedule_seat_bot(
        self,
        table_id: str,
        index: int,
        policy: str,
        difficulty: float,
        *,
        only_if_lost: bool = False,
    ) -> None:
        """Seat bot number `index` of the table's `TableCreated.bots` (policy, difficulty)."""
        ...

    def schedule_bot_entropy(self, table_id: str, bots: Sequence[str]) -> None:
        """Let each seated bot in `bots` answer the table's entropy rounds now (a shuffle was
        announced or sealed): its commitment or its reveal, whether or not it has a turn in
        the hand (docs/dealer.md, "Player entropy")."""
        ...


@runtime_checkable
class SweptWriting(Protocol):
    """A scheduler whose real-time (swept) deadlines an asyncio runtime may write from its
    event loop (`CeleryScheduler`): where its index is, and the hook that hands them over."""

    @property
    def swept_redis(self) -> Any:
        """The swept index's `RedisTarget`, None when not known."""
        ...

    def write_swept_through(self, submit: Any) -> None: ...


class NoScheduler:
    """No timeouts and no bot turns: decisions wait for the player (tests, `--no-workers`)."""

    def schedule_timeout(
        self,
        table_id: str,
        hand: int,
        action_number: int,
        deadline_unix_ms: int,
        *,
        only_if_lost: bool = False,
        swept: bool = False,
    ) -> None:
        return None

    def schedule_timeouts(
        self, table_id: str, timeouts: Sequence[tuple[int, int, int]], *, swept: bool = False
    ) -> None:
        return None

    def schedule_bot_turn(
        self,
        table_id: str,
        hand: int,
        action_number: int,
        seat: int,
        player: str,
        *,
        only_if_lost: bool = False,
    ) -> None:
        return None

    def schedule_seat_bot(
        self,
        table_id: str,
        index: int,
        policy: str,
        difficulty: float,
        *,
        only_if_lost: bool = False,
    ) -> None:
        return None

    def schedule_bot_entropy(self, table_id: str, bots: Sequence[str]) -> None:
        return None
