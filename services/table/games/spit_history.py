"""A finished Spit game as readable text (GetHandHistory's `text`): one line per thing that
happened, cards as the viewer may see them (face-down cards "??"), everything for a service
or admin caller. Spit has no standard machine-readable history format, so `phh` is empty."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from services.games.spit import RULES
from services.games.spit import events as ev


def _cards(cards: Sequence[str]) -> str:
    return " ".join(cards) or "-"


def text(
    players: Mapping[int, str],
    events: Sequence[object],
    viewer: int | None,
    full: bool,
    table_id: str,
) -> str:
    def who(seat: int | None) -> str:
        return players.get(seat, f"seat {seat}") if seat is not None else "the side stack"

    lines: list[str] = []
    for stored in events:
        if not isinstance(stored, ev.SpitEvent):
            continue
        event = stored if full else RULES.redact(stored, viewer)
        if event is None:
            continue
        line = _LINES.get(type(event))
        if line is not None:
            lines.append(line(event, who))
    head = f"Spit at table {table_id}: " + ", ".join(
        f"seat {seat} {player}" for seat, player in sorted(players.items())
    )
    return "\n".join([head, *lines]) + "\n"


Who = Callable[[int | None], str]
_LINES: dict[type[Any], Callable[[Any, Who], str]] = {
    ev.GameStarted: lambda e, who: f"game {e.game} starts with deal {e.deal} (stake {e.stake})",
    ev.ShuffleCommitted: lambda e, who: (
        f"deal {e.round}: the dealer commits to shuffle {e.name!r} ({e.commitment})"
    ),
    ev.LaidOut: lambda e, who: (
        f"deal {e.deal}: {who(e.seat)} lays out "
        + " | ".join(_cards(p) for p in e.places)
        + f"; spit cards {_cards(e.spit)}"
    ),
    ev.SideStackDealt: lambda e, who: f"side stack {e.stack}: {_cards(e.cards)}",
    ev.PlayerReady: lambda e, who: f"{who(e.seat)} is ready" + (" (time)" if e.timed_out else ""),
    ev.Spat: lambda e, who: f"{who(e.seat)} spits {e.card} onto pile {e.pile}",
    ev.CardPlayed: lambda e, who: (
        f"{who(e.seat)} plays {e.card} from place {e.source} onto pile {e.target}"
        + (" (after a race)" if e.raced else "")
    ),
    ev.CardMoved: lambda e, who: (
        f"{who(e.seat)} moves {e.card} from pile {e.source} into space {e.target}"
    ),
    ev.CardTurnedUp: lambda e, who: f"{who(e.seat)} turns up {e.card} on pile {e.pile}",
    ev.SlotFilled: lambda e, who: f"{who(e.seat)} fills place {e.slot} with {e.card}",
    ev.Stalled: lambda e, who: f"{who(e.seat)} could play and did not: the game goes on",
    ev.MiddleGathered: lambda e, who: "the middle piles are gathered for new side stacks",
    ev.DealOver: lambda e, who: (
        f"deal {e.deal} is over ({e.reason}"
        + (f": {who(e.cleared)} cleared the layout" if e.cleared is not None else "")
        + ")"
    ),
    ev.Slapped: lambda e, who: (
        f"{who(e.seat)} "
        + (f"slaps pile {e.pile}" if e.pile is not None else "does not slap in time")
        + f" and takes pile {e.takes}"
    ),
    ev.DealEnded: lambda e, who: (
        f"deal {e.deal} ends ({e.reason}): "
        + ", ".join(f"{who(seat)} holds {count} cards" for seat, count in enumerate(e.cards))
    ),
    ev.GameEnded: lambda e, who: (
        f"game {e.game} ends ({e.reason}): "
        + (f"{who(e.winner)} wins" if e.winner is not None else "nobody wins")
        + f", stacks {e.stacks[0]} and {e.stacks[1]}"
    ),
    ev.ShuffleRevealed: lambda e, who: f"deal {e.round}: shuffle {e.name!r} revealed",
}
