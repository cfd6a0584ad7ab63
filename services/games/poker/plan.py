"""Facts about a table's configuration that the hot paths ask for on every event, computed
once per `TableConfig` instead of re-deriving them from the game definition each time.

Kept outside the state so states stay plain data: the cache is keyed by the config's
identity (every state of a table shares one config object) and checked with `is`, so a
recycled id can never return another config's plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from services.games.poker.definitions import (
    Betting,
    DealBoard,
    DealHole,
    Draw,
    ForcedBets,
    Phase,
    Showdown,
    Structure,
    TableConfig,
)
from services.games.poker.events import PhaseStarted

# Phase kinds by index, compared as small ints instead of isinstance chains. `Final` literals:
# mypyc compiles them in as constants, where a plain module global is a dict lookup per use.
DEAL_HOLE: Final = 0
DEAL_BOARD: Final = 1
BETTING: Final = 2
DRAW: Final = 3
SHOWDOWN: Final = 4
_KINDS: dict[type, int] = {
    DealHole: DEAL_HOLE,
    DealBoard: DEAL_BOARD,
    Betting: BETTING,
    Draw: DRAW,
    Showdown: SHOWDOWN,
}


@dataclass(frozen=True, slots=True)
class Plan:
    phases: tuple[Phase, ...]
    kinds: tuple[int, ...]  # the kind of each phase (DEAL_HOLE ... SHOWDOWN)
    units: tuple[int, ...]  # the fixed-limit bet size in each phase (big bet in big-bet rounds)
    first_betting: int  # index of the first betting round
    fixed_limit: bool
    pot_limit: bool
    blinds: bool
    # Each phase's `PhaseStarted` event, built once: events are immutable values, and a
    # frozen dataclass costs about a microsecond per field to build.
    started: tuple[PhaseStarted, ...]


def _kind(phase: Phase) -> int:
    for cls, kind in _KINDS.items():
        if isinstance(phase, cls):
            return kind
    raise TypeError(f"unknown phase {phase!r}")


_PLANS: dict[int, tuple[TableConfig, Plan]] = {}
_MAX_PLANS = 1024  # replays decode fresh configs: bound the cache, rebuilding is cheap


# Every state of a table shares one config: the last answer, checked with `is`, saves the
# id() and dict look-up on almost every call. One tuple, swapped atomically, in a `Final`
# one-item list: compiled code reads a `Final` global directly, a plain one from the module's
# dict.
_LAST: Final[list[tuple[TableConfig | None, Plan | None]]] = [(None, None)]


def plan_of(config: TableConfig) -> Plan:
    last = _LAST[0]
    if last[0] is config:
        return last[1]  # type: ignore[return-value]
    entry = _PLANS.get(id(config))
    if entry is not None and entry[0] is config:
        _LAST[0] = entry
        return entry[1]
    phases = config.game.phases
    plan = Plan(
        phases=phases,
        kinds=tuple(_kind(p) for p in phases),
        units=tuple(
            config.big_bet if isinstance(p, Betting) and p.big_bet else config.small_bet
            for p in phases
        ),
        first_betting=config.game.first_betting_phase,
        fixed_limit=config.limit is Structure.FIXED_LIMIT,
        pot_limit=config.limit is Structure.POT_LIMIT,
        blinds=config.game.forced_bets is ForcedBets.BLINDS,
        started=tuple(PhaseStarted(i, p.name) for i, p in enumerate(phases)),
    )
    if len(_PLANS) >= _MAX_PLANS:
        _PLANS.clear()
    _PLANS[id(config)] = _LAST[0] = (config, plan)
    return plan
