"""The poker engine: one generic engine playing every poker variant as data (standard library
only: no I/O, clock or randomness).

Public API (see docs/engine.md):
  decide(state, command) -> list[Event]       validate a command; raises RuleViolation
  execute(state, command) -> (state, events)  decide + the resulting state in one pass
  apply(state, event) -> TableState           fold one event in (never validates)
  replay(events) -> TableState                rebuild a table from its stream
  legal_actions(state, seat) -> LegalActions  what a seat may do now, with amount ranges
  view_for(state, viewer) -> View             what a seat (or a spectator) may see
  redact(event, viewer) -> Event | None       an event as that viewer may see it
  pending_chance(state) -> ChanceRequest|None what the engine needs from the dealer/evaluator
"""

from services.games.errors import (
    InvalidAction,
    NotAllowedNow,
    NotYourSeat,
    RuleViolation,
    UnknownTarget,
)
from services.games.poker.catalog import (
    GAMES,
    HOLDEM_HILO,
    SIX_CARD_OPEN_DRAW,
    SPIT_IN_THE_OCEAN,
    TEXAS_HOLDEM,
)
from services.games.poker.chance import (
    ChanceRequest,
    NeedCards,
    NeedHandStart,
    NeedRanks,
    NeedReshuffle,
    deal_from,
    pending_chance,
    rank_hands,
    reshuffle,
)
from services.games.poker.commands import (
    Act,
    Command,
    DealCards,
    LeaveTable,
    ReshuffleDiscards,
    SitDown,
    SitIn,
    SitOut,
    StartHand,
    SupplyHandRanks,
    TimeOut,
    TopUp,
    VoidHand,
)
from services.games.poker.definitions import (
    Betting,
    DealBoard,
    DealHole,
    Draw,
    ForcedBets,
    GameDefinition,
    OddChips,
    Showdown,
    Structure,
    TableConfig,
)
from services.games.poker.events import EVENT_TYPES, Action, Event
from services.games.poker.legal import LegalActions, legal_actions
from services.games.poker.reducer import apply, apply_all, replay
from services.games.poker.rules import decide, execute
from services.games.poker.state import HandState, SeatState, TableState, new_table
from services.games.poker.views import View, redact, view_for
from services.games.ranking import HandRanker, HandValue, RankRequest, SeatRank

__all__ = [
    "EVENT_TYPES",
    "GAMES",
    "HOLDEM_HILO",
    "SIX_CARD_OPEN_DRAW",
    "SPIT_IN_THE_OCEAN",
    "TEXAS_HOLDEM",
    "Act",
    "Action",
    "Betting",
    "ChanceRequest",
    "Command",
    "DealBoard",
    "DealCards",
    "DealHole",
    "Draw",
    "Event",
    "ForcedBets",
    "GameDefinition",
    "HandRanker",
    "HandState",
    "HandValue",
    "InvalidAction",
    "LeaveTable",
    "LegalActions",
    "NeedCards",
    "NeedHandStart",
    "NeedRanks",
    "NeedReshuffle",
    "NotAllowedNow",
    "NotYourSeat",
    "OddChips",
    "RankRequest",
    "ReshuffleDiscards",
    "RuleViolation",
    "SeatRank",
    "SeatState",
    "Showdown",
    "SitDown",
    "SitIn",
    "SitOut",
    "StartHand",
    "Structure",
    "SupplyHandRanks",
    "TableConfig",
    "TableState",
    "TimeOut",
    "TopUp",
    "UnknownTarget",
    "View",
    "VoidHand",
    "apply",
    "apply_all",
    "deal_from",
    "decide",
    "execute",
    "legal_actions",
    "new_table",
    "pending_chance",
    "rank_hands",
    "redact",
    "replay",
    "reshuffle",
    "view_for",
]
