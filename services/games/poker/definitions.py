"""Declarative game definitions and per-table configuration.

A game is data: a sequence of phases (deal hole cards, deal board cards, a betting round, a
draw, showdown) plus a few flags (forced bets, high-low, wild board rank, declare-board). The
generic rules in this package interpret the phases, so adding a variant is mostly writing a
new `GameDefinition` (see `catalog.py` and docs/engine.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from services.games.errors import InvalidAction


class Structure(StrEnum):
    NO_LIMIT = "no-limit"
    POT_LIMIT = "pot-limit"
    FIXED_LIMIT = "fixed-limit"


class OddChips(StrEnum):
    """Who gets the chips a pot (or a high-low half) cannot split evenly among tied winners.
    Either way the winners are taken clockwise from the button's left."""

    # One each, to the first winners (Robert's Rules; the default).
    ONE_EACH_FROM_BUTTON_LEFT = "one_each_from_button_left"
    # All of them to the first winner (pokerkit's rule: a hand history exported from such a
    # table replays in pokerkit to the same stacks).
    ALL_TO_FIRST_FROM_BUTTON_LEFT = "all_to_first_from_button_left"


class ForcedBets(StrEnum):
    BLINDS = "blinds"  # small + big blind (+ optional ante); first round starts left of the BB
    ANTES = "antes"  # antes only; every round starts left of the dealer


@dataclass(frozen=True, slots=True)
class DealHole:
    """Deal `count` cards to every seat in the hand (face down unless `face_up`)."""

    count: int
    face_up: bool = False
    one_at_a_time: bool = True  # round-robin, one card per seat per pass, left of the button
    name: str = "deal"


@dataclass(frozen=True, slots=True)
class DealBoard:
    """Deal `count` community cards face up after burning `burn` cards."""

    count: int
    burn: int = 1
    name: str = "board"  # "flop", "turn", "river", "spit"


@dataclass(frozen=True, slots=True)
class Betting:
    """A betting round. `big_bet` selects the fixed-limit bet size (small or big bet)."""

    big_bet: bool = False
    name: str = "betting"


@dataclass(frozen=True, slots=True)
class Draw:
    """Each player in turn from the dealer's left discards, then gets replacements.

    `min_discards`/`max_discards` bound how many cards (the table's draw limit may lower
    `max_discards` when `limited_by_table`). `face_up` discards are public; `replace=False`
    means no replacement cards (Six-Card Open Draw's open discard).
    """

    max_discards: int
    min_discards: int = 0
    face_up: bool = False
    replace: bool = True
    limited_by_table: bool = True
    name: str = "draw"


@dataclass(frozen=True, slots=True)
class Showdown:
    name: str = "showdown"


Phase = DealHole | DealBoard | Betting | Draw | Showdown


@dataclass(frozen=True, slots=True)
class GameDefinition:
    """What a game is; `TableConfig` says how one table plays it."""

    name: str  # stable id, e.g. "texas-holdem"
    title: str
    phases: tuple[Phase, ...]
    forced_bets: ForcedBets
    structures: tuple[Structure, ...]
    default_structure: Structure
    high_low: bool = False  # split with an ace-to-five eight-or-better low
    board_rank_wild: bool = False  # every card of the first board card's rank is wild (spit)
    board_can_play: bool = False  # declare-board is meaningful (5-card community board)
    min_seats: int = 2
    max_seats: int = 10

    @property
    def betting_rounds(self) -> tuple[Betting, ...]:
        return tuple(p for p in self.phases if isinstance(p, Betting))

    @property
    def first_betting_phase(self) -> int:
        """Index of the first betting round ("no flop, no drop" counts from after it)."""
        return next(i for i, p in enumerate(self.phases) if isinstance(p, Betting))


# The games a live dealer may deal: each has its irregularity procedures in
# services/games/poker/live (hold'em's in procedures.py, the draw games' in draw.py).
LIVE_DEALER_GAMES = frozenset(
    {"texas-holdem", "holdem-hilo", "six-card-open-draw", "spit-in-the-ocean"}
)


@dataclass(frozen=True, slots=True)
class TableConfig:
    """One table's options. Chips are integers. Rake is in basis points (500 = 5%).

    `small_bet`/`big_bet` are the fixed-limit bet sizes; in no-limit and pot-limit the minimum
    bet is the big blind (blinds games) or `small_bet` (ante games). Zero means "derive":
    small_bet defaults to the big blind, big_bet to twice the small bet.
    """

    game: GameDefinition
    structure: Structure | None = None
    seats: int = 6
    small_blind: int = 1
    big_blind: int = 2
    ante: int = 0
    big_blind_ante: bool = False  # only the big blind posts the ante (for the whole table)
    small_bet: int = 0
    big_bet: int = 0
    min_buy_in: int = 1
    max_buy_in: int = 10**12
    draw_limit: int | None = None
    five_of_a_kind_beats_straight_flush: bool = True
    first_button_seat: int = 0
    rake_basis_points: int = 0
    rake_cap: int = 0
    fixed_limit_raises: int = 3  # raises allowed after the bet, per round
    uncapped_heads_up: bool = True  # no raise cap when two players start the round
    timeouts_before_sit_out: int = 0  # 0: never sit a player out for timing out
    odd_chips: OddChips = OddChips.ONE_EACH_FROM_BUTTON_LEFT
    # Cards are reported by a dealer at a physical table instead of drawn from the dealer
    # service (services/games/poker/live): hold'em games only.
    live_dealer: bool = False

    def __post_init__(self) -> None:
        game = self.game
        if self.live_dealer and game.name not in LIVE_DEALER_GAMES:
            raise InvalidAction(
                f"{game.name} cannot be dealt live yet: live-dealer tables deal "
                + " and ".join(sorted(LIVE_DEALER_GAMES))
            )
        if self.structure is None:
            object.__setattr__(self, "structure", game.default_structure)
        if self.structure not in game.structures:
            allowed = ", ".join(s.value for s in game.structures)
            raise InvalidAction(f"{game.name} is played {allowed}, not {self.structure}")
        if not game.min_seats <= self.seats <= game.max_seats:
            raise InvalidAction(
                f"{game.name} seats {game.min_seats}-{game.max_seats} players, not {self.seats}"
            )
        if not 0 <= self.first_button_seat < self.seats:
            raise InvalidAction(f"first button seat must be 0-{self.seats - 1}")
        if game.forced_bets is ForcedBets.BLINDS and not 0 < self.small_blind <= self.big_blind:
            raise InvalidAction("blinds must satisfy 0 < small blind <= big blind")
        if game.forced_bets is ForcedBets.ANTES and self.ante <= 0:
            raise InvalidAction(f"{game.name} needs a positive ante")
        if min(self.ante, self.small_bet, self.big_bet, self.rake_cap) < 0:
            raise InvalidAction("ante, bets and rake cap must not be negative")
        if not 0 <= self.rake_basis_points <= 10_000:
            raise InvalidAction("rake must be 0-10000 basis points")
        if self.small_bet == 0:
            unit = self.big_blind if game.forced_bets is ForcedBets.BLINDS else self.ante * 2
            object.__setattr__(self, "small_bet", unit)
        if self.big_bet == 0:
            object.__setattr__(self, "big_bet", 2 * self.small_bet)
        if not 0 < self.min_buy_in <= self.max_buy_in:
            raise InvalidAction("buy-in range must satisfy 0 < min <= max")
        if self.draw_limit is not None and self.draw_limit < 0:
            raise InvalidAction("draw limit must not be negative")

    @property
    def limit(self) -> Structure:
        assert self.structure is not None
        return self.structure

    @property
    def min_bet(self) -> int:
        """Smallest opening bet in no-limit and pot-limit."""
        if self.game.forced_bets is ForcedBets.BLINDS:
            return self.big_blind
        return self.small_bet

    def max_discards(self, draw: Draw) -> int:
        if draw.limited_by_table and self.draw_limit is not None:
            return min(draw.max_discards, self.draw_limit)
        return draw.max_discards
