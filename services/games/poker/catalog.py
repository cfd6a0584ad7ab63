"""The games croupier deals, each written as data over the generic phases."""

from __future__ import annotations

from services.games.poker.definitions import (
    Betting,
    DealBoard,
    DealHole,
    Draw,
    ForcedBets,
    GameDefinition,
    Showdown,
    Structure,
)

ALL_STRUCTURES = (Structure.NO_LIMIT, Structure.POT_LIMIT, Structure.FIXED_LIMIT)

_HOLDEM_PHASES = (
    DealHole(2),
    Betting(name="preflop"),
    DealBoard(3, name="flop"),
    Betting(name="flop"),
    DealBoard(1, name="turn"),
    Betting(big_bet=True, name="turn"),
    DealBoard(1, name="river"),
    Betting(big_bet=True, name="river"),
    Showdown(),
)

TEXAS_HOLDEM = GameDefinition(
    name="texas-holdem",
    title="Texas hold'em",
    phases=_HOLDEM_PHASES,
    forced_bets=ForcedBets.BLINDS,
    structures=ALL_STRUCTURES,
    default_structure=Structure.NO_LIMIT,
    board_can_play=True,
)

HOLDEM_HILO = GameDefinition(
    name="holdem-hilo",
    title="Hold'em high-low split, eight-or-better",
    phases=_HOLDEM_PHASES,
    forced_bets=ForcedBets.BLINDS,
    structures=ALL_STRUCTURES,
    default_structure=Structure.FIXED_LIMIT,
    high_low=True,
    board_can_play=True,
)

SPIT_IN_THE_OCEAN = GameDefinition(
    name="spit-in-the-ocean",
    title="Spit in the Ocean",
    phases=(
        DealHole(4, one_at_a_time=True),
        DealBoard(1, burn=0, name="spit"),
        Betting(name="before the draw"),
        Draw(max_discards=4),
        Betting(big_bet=True, name="after the draw"),
        Showdown(),
    ),
    forced_bets=ForcedBets.ANTES,
    structures=ALL_STRUCTURES,
    default_structure=Structure.FIXED_LIMIT,
    board_rank_wild=True,
)

SIX_CARD_OPEN_DRAW = GameDefinition(
    name="six-card-open-draw",
    title="Six-Card Open Draw",
    phases=(
        DealHole(6),
        Draw(max_discards=4),
        Betting(name="after the draw"),
        Draw(
            max_discards=1,
            min_discards=1,
            face_up=True,
            replace=False,
            limited_by_table=False,
            name="open discard",
        ),
        Betting(big_bet=True, name="final"),
        Showdown(),
    ),
    forced_bets=ForcedBets.ANTES,
    structures=ALL_STRUCTURES,
    default_structure=Structure.FIXED_LIMIT,
    max_seats=7,
)

GAMES: dict[str, GameDefinition] = {
    g.name: g for g in (TEXAS_HOLDEM, HOLDEM_HILO, SPIT_IN_THE_OCEAN, SIX_CARD_OPEN_DRAW)
}
