"""The player's moves and the machine's configuration (the game's own records)."""

from __future__ import annotations

from dataclasses import dataclass

from services.games.videopoker.paytables import PAYTABLES


@dataclass(frozen=True, slots=True)
class MachineConfig:
    """One video poker machine: the pay tables it offers and what a coin is worth in chips."""

    paytables: tuple[str, ...] = tuple(PAYTABLES)
    denomination: int = 1  # chips per coin
    # The table's buy-in range (the shell checks buy-ins against it; kept here so a machine's
    # configuration is the whole of its options).
    min_buy_in: int = 1
    max_buy_in: int = 10**12


@dataclass(frozen=True, slots=True)
class Deal:
    """Bet `coins` a line on `lines` lines of `paytable` and deal (coins 10: the Split Card
    feature)."""

    lines: int
    coins: int
    paytable: str


@dataclass(frozen=True, slots=True)
class Hold:
    """Keep the cards at `positions` (0..4, any order, none to all five) of round `round` (0:
    the round in play) and draw the rest on every line."""

    round: int
    positions: tuple[int, ...]


Move = Deal | Hold


@dataclass(frozen=True, slots=True)
class LegalMoves:
    """What the player may do now: deal (with the choices and the largest affordable bet),
    or hold in round `hold_round`."""

    deal: bool = False
    lines: tuple[int, ...] = ()
    coins: tuple[int, ...] = ()
    paytables: tuple[str, ...] = ()
    credits: int = 0  # chips the next bet may use
    hold_round: int = 0  # 0: no hold owed
