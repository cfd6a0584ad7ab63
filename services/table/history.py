"""Hand histories from the stream: PHH (the format pokerkit reads) and readable text.

A finished hand's events (HandStarted .. HandEnded/HandVoided) are exported as they were
recorded. Hole cards the caller may not see are written as "??" per card (pokerkit's unknown
card), so a player's copy shows their own cards and every shown hand; service and admin
callers get the complete history. No-limit and fixed-limit hold'em export as pokerkit's "NT"
and "FT" variants and replay there to the same stacks; the other games use PHH's layout with
croupier's own variant code (pokerkit has no such games), documented in docs/table.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.games.poker import events as ev
from services.games.poker.definitions import TableConfig
from services.shared import errors
from services.shared.auth import Principal, Role
from services.table import codec
from services.table.application import TableApplication
from services.table.folding import table_stream
from services.table.games import poker_history
from services.table.games.poker_history import to_phh as to_phh


@dataclass(frozen=True, slots=True)
class HandHistory:
    hand: int
    phh: str
    text: str


def hand_events(
    app: TableApplication, table_id: str, hand: int
) -> tuple[TableConfig, dict[int, str], list[object]]:
    """The config, seat->player map at the start, and the events of hand `hand` (0 = last)."""
    table = app.load(table_id)
    if hand <= 0:
        hand = table.shell.ended_hand
        if hand == 0:
            raise errors.NotFound(f"table {table_id} has no finished hand yet")
    recorded = app.store.read(table_stream(table_id))
    config = table.engine.config
    players: dict[int, str] = {}
    events: list[object] = []
    inside = False
    for record in recorded:
        event = codec.from_message(record.message)
        if isinstance(event, ev.PlayerSeated):
            players[event.seat] = event.player
        if isinstance(event, ev.HandStarted) and event.hand == hand:
            inside = True
        if inside:
            events.append(event)
        if isinstance(event, ev.HandEnded | ev.HandVoided) and event.hand == hand:
            if not inside:
                break
            return config, dict(players), events
    if inside:
        raise errors.FailedPrecondition(f"hand {hand} of table {table_id} is still in progress")
    raise errors.NotFound(f"table {table_id} has no hand {hand}")


def hand_history(
    app: TableApplication, table_id: str, hand: int, principal: Principal
) -> HandHistory:
    config, players, events = hand_events(app, table_id, hand)
    started = events[0]
    assert isinstance(started, ev.HandStarted)
    full = principal.role in (Role.SERVICE, Role.ADMIN)
    viewer = next((s for s, p in players.items() if p == principal.subject), None)
    phh, text = poker_history.history(config, players, events, viewer, full, table_id)
    return HandHistory(started.hand, phh, text)
