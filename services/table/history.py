"""Round histories from the stream, in each game's own formats (poker: PHH, the format
pokerkit reads, and readable text: services/table/games/poker_history.py).

A finished round's events, from the one that starts it to the one that ends it (the game's
adapter says which: `round_of`), are handed to the game's adapter as they were recorded, with
the seats' players and what the caller may see: a player's copy shows their own cards and
every card shown; service and admin callers get the complete history.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from croupier.table.v1 import events_pb2, table_pb2
from services.shared import errors
from services.shared.auth import Principal, Role
from services.table.application import TableApplication
from services.table.card_proofs import card_proof, seen_cards
from services.table.folding import table_stream
from services.table.shell import Table
from services.table.watching import redact_any


@dataclass(frozen=True, slots=True)
class HandHistory:
    hand: int
    phh: str
    text: str
    shuffles: list[table_pb2.HandShuffle] = field(default_factory=list)


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
    # A player of the hand gets the whole reveal when the table's policy says so; anyone else
    # the public part and the openings of the cards the game showed them.
    whole = full or (
        viewer is not None and table.shell.seed_reveal == events_pb2.SEED_REVEAL_HAND_PLAYERS
    )
    shuffles = hand_shuffles(app, table, number, whole)
    revealed = [s for s in shuffles if s.revealed.reveal_json and not s.revealed.unused]
    # (a card seen in a round of several shuffles cannot be told apart between them)
    seen = seen_cards(table.game, events, viewer) if len(revealed) == 1 else frozenset()
    for entry, reveal in _reveals(app, table, number).items():
        for shuffle in shuffles:
            if shuffle.revealed.shuffle_id == entry:
                shuffle.card_proof_json = card_proof(reveal, seen)
    return HandHistory(number, machine, text, shuffles)


def _reveals(app: TableApplication, table: Table, hand: int) -> dict[str, str]:
    """The dealer's whole reveal of each shuffle `hand` dealt from, by shuffle id."""
    return {
        record.message.shuffle_id: record.message.reveal_json
        for record in app.store.read(table_stream(table.table_id))
        if isinstance(record.message, events_pb2.ShuffleRevealed)
        and record.message.hand == hand
        and not record.message.unused
    }


# Which HandShuffle field holds each of the table's shuffle events.
_SHUFFLE_FIELDS: dict[type, str] = {
    events_pb2.ShuffleAnnounced: "announced",
    events_pb2.ShuffleSealed: "sealed",
    events_pb2.ShuffleCommitted: "committed",
    events_pb2.ShuffleRevealed: "revealed",
    events_pb2.ShuffleWithdrawn: "withdrawn",
}


def hand_shuffles(
    app: TableApplication, table: Table, hand: int, full: bool
) -> list[table_pb2.HandShuffle]:
    """The table's records of `hand`'s shuffles, one per shuffle id in the order first
    recorded. They are read from the whole stream: a hand's shuffle is announced and sealed
    during the hands before it, and revealed once it ends. A player's copy goes through the
    watchers' redaction (the reveal's public part), a service's or admin's is as recorded."""
    by_id: dict[str, table_pb2.HandShuffle] = {}
    for record in app.store.read(table_stream(table.table_id)):
        message = record.message
        slot = _SHUFFLE_FIELDS.get(type(message))
        if slot is None or getattr(message, "hand", 0) != hand:
            continue
        shown = message if full else redact_any(message, None, table.game, table.shell.seed_reveal)
        if shown is None:
            continue
        shuffle_id = str(getattr(message, "shuffle_id", ""))
        entry = by_id.setdefault(shuffle_id, table_pb2.HandShuffle())
        getattr(entry, slot).CopyFrom(shown)
    return list(by_id.values())
