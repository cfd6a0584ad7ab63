"""Round histories from the stream, in each game's own formats (poker: PHH, the format
pokerkit reads, and readable text: services/table/games/poker_history.py).

A finished round's events, from the one that starts it to the one that ends it (the game's
adapter says which: `round_of`), are handed to the game's adapter as they were recorded, with
the seats' players and what the caller may see: a player's copy shows their own cards and
every card shown; service and admin callers get the complete history.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.shared import errors
from services.shared.auth import Principal, Role
from services.table.application import TableApplication
from services.table.folding import table_stream
from services.table.shell import Table


@dataclass(frozen=True, slots=True)
class HandHistory:
    hand: int
    phh: str
    text: str


def hand_events(
    app: TableApplication, table_id: str, hand: int
) -> tuple[Table, int, dict[int, str], list[object]]:
    """The table, the round, its seat->player map at the start and its events (round 0: the
    last finished one)."""
    table = app.load(table_id)
    if hand <= 0:
        hand = table.shell.ended_hand
        if hand == 0:
            raise errors.NotFound(f"table {table_id} has no finished hand yet")
    game = table.game
    players: dict[int, str] = {}
    events: list[object] = []
    inside = False
    for record in app.store.read(table_stream(table_id)):
        decoded = game.events.from_message(record.message)
        event: object = record.message if decoded is None else decoded
        if decoded is not None:
            seating = game.seating(decoded)
            if seating is not None and seating.player:
                players[seating.seat] = seating.player
        bound = game.round_of(decoded) if decoded is not None else None
        if bound == (hand, True):
            inside = True
        if inside:
            events.append(event)
        if bound == (hand, False):
            if not inside:
                break
            return table, hand, dict(players), events
    if inside:
        raise errors.FailedPrecondition(f"hand {hand} of table {table_id} is still in progress")
    raise errors.NotFound(f"table {table_id} has no hand {hand}")


def hand_history(
    app: TableApplication, table_id: str, hand: int, principal: Principal
) -> HandHistory:
    table, number, players, events = hand_events(app, table_id, hand)
    full = principal.role in (Role.SERVICE, Role.ADMIN)
    viewer = next((s for s, p in players.items() if p == principal.subject), None)
    machine, text = table.game.history(table.state, players, events, viewer, full, table_id)
    return HandHistory(number, machine, text)
