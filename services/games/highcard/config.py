"""How one high-card table plays: the ante every round and the buy-in range."""

from __future__ import annotations

from dataclasses import dataclass

from services.games.errors import InvalidAction


@dataclass(frozen=True, slots=True)
class HighCardConfig:
    """Chips are whole integers. Two seats, always."""

    ante: int = 1
    min_buy_in: int = 1
    max_buy_in: int = 10**12

    def __post_init__(self) -> None:
        if self.ante <= 0:
            raise InvalidAction(f"the ante must be positive, not {self.ante}")
        if not 0 < self.min_buy_in <= self.max_buy_in:
            raise InvalidAction("the buy-in range must satisfy 0 < min <= max")
