"""A poker table as the table shell drives it (`PokerRules`, game_rules.py): the engine's state
plus the bookkeeping of the process around its hands.

The engine (`TableState`) knows seats, hands and chips. Around every hand the table also needs
the dealer's shuffle of the hand opened before its first card (and the next hand's opened one
hand ahead), the hand's rake moved to the house once it is over, and its shuffle revealed; and
each decision a seat owes needs a name for its deadline. `PokerTable` keeps those next to the
engine's state, folded from the same events (`DeckCommitted`, `RakeSettled`, `DeckRevealed`
and the engine's own), so the engine's state, events and digest are exactly what they were.
"""

from __future__ import annotations

from typing import Final

from services.games.poker.definitions import TableConfig
from services.games.poker.events import (
    ActionTaken,
    BoardDeclared,
    CardsDiscarded,
    CardsShown,
    DeckCommitted,
    DeckRevealed,
    Event,
    HandEnded,
    HandMucked,
    HandStarted,
    HandVoided,
    PotAwarded,
    RakeSettled,
    TableOpened,
)
from services.games.poker.reducer import apply as apply_to_engine
from services.games.poker.state import LiveDeal, new_table
from services.games.poker.state import PokerTable as PokerTable

# The events that are a seat's decision: each one moves the hand's decision count on, so the
# next decision's deadline has a new name.
_DECISIONS: Final[frozenset[type]] = frozenset(
    {ActionTaken, CardsDiscarded, CardsShown, HandMucked, BoardDeclared}
)


def new_poker_table(config: TableConfig) -> PokerTable:
    return PokerTable(new_table(config), live=LiveDeal() if config.live_dealer else None)


def apply(table: PokerTable, event: Event) -> PokerTable:
    """Fold one event in: the process's own events here, every other one into the engine."""
    if isinstance(event, DeckCommitted):
        decks = (*table.decks, event)
        return PokerTable(
            table.engine, decks, table.rake, table.rake_due, table.decisions, table.live
        )
    if isinstance(event, DeckRevealed):
        kept = tuple([deck for deck in table.decks if deck.hand != event.hand])
        return PokerTable(
            table.engine, kept, table.rake, table.rake_due, table.decisions, table.live
        )
    if isinstance(event, RakeSettled):
        return PokerTable(table.engine, table.decks, 0, 0, table.decisions, table.live)
    engine = apply_to_engine(table.engine, event)
    rake = table.rake
    rake_due = table.rake_due
    decisions = table.decisions
    if type(event) in _DECISIONS:
        decisions += 1
    elif isinstance(event, HandStarted):
        decisions = 0
    elif isinstance(event, PotAwarded):
        rake += event.rake
    elif isinstance(event, HandEnded):
        rake_due = event.hand if rake else 0
    elif isinstance(event, HandVoided):
        rake = 0  # nothing was awarded: every chip went back
    elif isinstance(event, TableOpened):
        return PokerTable(engine, live=LiveDeal() if event.config.live_dealer else None)
    return PokerTable(engine, table.decks, rake, rake_due, decisions, table.live)
