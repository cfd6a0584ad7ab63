"""The games `croupier simulate --game` knows, as engine table configurations.

Stakes are small integers (blinds 1/2, or an ante of 1 with a small bet of 2) and every seat
starts each hand with `stack_units` betting units, so results read directly in big blinds.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.games.poker.catalog import (
    HOLDEM_HILO,
    SIX_CARD_OPEN_DRAW,
    SPIT_IN_THE_OCEAN,
    TEXAS_HOLDEM,
)
from services.games.poker.definitions import GameDefinition, Structure, TableConfig


@dataclass(frozen=True, slots=True)
class Preset:
    name: str
    game: GameDefinition
    structure: Structure
    blinds: bool

    @property
    def unit(self) -> int:
        """The big blind (or the small bet in ante games): what results are measured in."""
        return 2

    def config(self, seats: int, first_button: int, stack_units: int) -> TableConfig:
        stack = stack_units * self.unit
        if self.blinds:
            return TableConfig(
                game=self.game,
                structure=self.structure,
                seats=seats,
                small_blind=1,
                big_blind=2,
                min_buy_in=1,
                max_buy_in=stack,
                first_button_seat=first_button,
            )
        return TableConfig(
            game=self.game,
            structure=self.structure,
            seats=seats,
            ante=1,
            small_bet=2,
            min_buy_in=1,
            max_buy_in=stack,
            first_button_seat=first_button,
        )


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("nlhe", TEXAS_HOLDEM, Structure.NO_LIMIT, True),
        Preset("plhe", TEXAS_HOLDEM, Structure.POT_LIMIT, True),
        Preset("flhe", TEXAS_HOLDEM, Structure.FIXED_LIMIT, True),
        Preset("hilo", HOLDEM_HILO, Structure.FIXED_LIMIT, True),
        Preset("spit", SPIT_IN_THE_OCEAN, Structure.FIXED_LIMIT, False),
        Preset("six-card", SIX_CARD_OPEN_DRAW, Structure.FIXED_LIMIT, False),
    )
}


def preset(name: str) -> Preset:
    if name not in PRESETS:
        raise ValueError(f"unknown game {name!r}; choose one of {', '.join(PRESETS)}")
    return PRESETS[name]
