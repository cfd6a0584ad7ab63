"""Spit, the two-player real-time card game, and its variations (four piles, alternating
colours, Bicycle's Spit, Speed): a pure rules package behind the one game contract
(`services.games.contract.GameRules`). Standard library only: no I/O, clock or randomness.

    from services.games.spit import RULES, SpitConfig
    state = RULES.initial_state(SpitConfig())
    events = RULES.decide(state, command)          # raises RuleViolation, changes nothing
    state = RULES.apply(state, event)
    state, events = execute(state, command)        # decide + the state after, in one pass

docs/games/spit.md has the rules exactly as implemented and how the game uses the contract.
"""

from services.games.spit.cards import HIDDEN
from services.games.spit.config import SpitConfig, Variation
from services.games.spit.decide import decide, execute
from services.games.spit.events import EVENT_TYPES, SpitEvent
from services.games.spit.moves import Expected, MoveToSpace, PlayCard, Ready, Slap, SpitMove
from services.games.spit.reducer import apply, apply_all
from services.games.spit.rules import RULES, SpitRules
from services.games.spit.state import Phase, SpitState
from services.games.spit.views import SpitView, redact, view_for

__all__ = [
    "EVENT_TYPES",
    "HIDDEN",
    "RULES",
    "Expected",
    "MoveToSpace",
    "Phase",
    "PlayCard",
    "Ready",
    "Slap",
    "SpitConfig",
    "SpitEvent",
    "SpitMove",
    "SpitRules",
    "SpitState",
    "SpitView",
    "Variation",
    "apply",
    "apply_all",
    "decide",
    "execute",
    "redact",
    "view_for",
]
