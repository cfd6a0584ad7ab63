"""A round's history, from its events alone: as a record (JSON) and as readable text.

It shows what a player or an auditor needs to check a round: the bet, the five dealt cards,
the split card (where the ticket put it and its second card), the hold, every line's draw
from its own deck, every line's final hand and win, and every deck's commitment and reveal
: each deck's `verification` is a hand history in the dealer's own format
(croupier-hand-history/1: the deck, its commitment, the revealed seed, the contributions and
every card dealt from it, in order), which `croupier verify FILE` checks offline.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from services.games.videopoker import events as ev
from services.games.videopoker.paytables import PAYTABLES
from services.games.videopoker.split import STUB, split_parts, split_text

HAND_HISTORY_FORMAT = "croupier-hand-history/1"  # the dealer's (services/shuffles/history.py)


@dataclass
class DeckRecord:
    name: str
    shuffle_id: str
    commitment: str
    cards: tuple[str, ...] = ()  # the deck (empty: one standard deck)
    reveal: str = ""
    dealt: list[tuple[str, ...]] = field(default_factory=list)  # each draw from it, in order


@dataclass
class RoundRecord:
    round: int
    lines: int = 0
    coins: int = 0
    paytable: str = ""
    bet: int = 0
    player: str = ""
    dealt: tuple[str, ...] = ()
    split_ticket: str = ""
    split_position: int = STUB
    split_card: str = ""  # "Kh|Qh" once known ("" without the feature)
    held: tuple[int, ...] | None = None
    draws: list[tuple[str, ...]] = field(default_factory=list)
    results: tuple[ev.LineResult, ...] = ()
    win: int = 0
    win_paid: bool = False
    voided: str = ""
    refunded: int = 0
    credits_after: int | None = None
    decks: list[DeckRecord] = field(default_factory=list)

    @property
    def ended(self) -> bool:
        return self.credits_after is not None


def rounds_played(events: Iterable[ev.Event]) -> list[int]:
    """The rounds that ended, in order."""
    return [e.round for e in events if isinstance(e, ev.RoundEnded)]


def round_record(events: Iterable[ev.Event], number: int) -> RoundRecord | None:
    """Round `number`'s record from a machine's events (None: no such round)."""
    record: RoundRecord | None = None
    player = ""
    for event in events:
        if isinstance(event, ev.PlayerSeated):
            player = event.player
        if getattr(event, "round", None) != number:
            continue
        if isinstance(event, ev.RoundStarted):
            record = RoundRecord(
                number, event.lines, event.coins, event.paytable, event.bet, player
            )
        if record is None:
            continue
        _fold(record, event)
    return record


def _fold(record: RoundRecord, event: ev.Event) -> None:
    if isinstance(event, ev.DeckOpened):
        deck = DeckRecord(event.name, event.shuffle_id, event.commitment, event.cards)
        record.decks.append(deck)
    elif isinstance(event, ev.HandDealt):
        record.dealt = event.cards
        _dealt_from(record, "deal", event.cards)
    elif isinstance(event, ev.SplitPlaced):
        record.split_ticket, record.split_position = event.ticket, event.position
        _dealt_from(record, "split", (event.ticket,))
        if event.position != STUB:
            record.split_card = split_text(record.dealt[event.position], event.second)
    elif isinstance(event, ev.StubSplitFound):
        record.split_card = split_text(event.base, event.second)
        _dealt_from(record, "deal", (event.base,))
    elif isinstance(event, ev.HoldChosen):
        record.held = event.positions
    elif isinstance(event, ev.LineDrawn):
        record.draws.append(event.cards)
        if event.cards:  # the undealt split card is drawn as its base card
            _dealt_from(record, f"line-{event.line}", tuple(split_parts(c)[0] for c in event.cards))
    elif isinstance(event, ev.LinesSettled):
        record.results, record.win = event.results, event.win
    elif isinstance(event, ev.WinPaid):
        record.win_paid = True
    elif isinstance(event, ev.RoundVoided):
        record.voided = event.reason
    elif isinstance(event, ev.StakeRefunded):
        record.refunded = event.amount
    elif isinstance(event, ev.DeckClosed):
        for deck in record.decks:
            if deck.name == event.name:
                deck.reveal = event.reveal
    elif isinstance(event, ev.RoundEnded):
        record.credits_after = event.stack


def _dealt_from(record: RoundRecord, name: str, cards: tuple[str, ...]) -> None:
    for deck in record.decks:
        if deck.name == name:
            deck.dealt.append(cards)


def verification(deck: DeckRecord) -> dict[str, Any] | None:
    """The deck's hand history for `croupier verify` (None until its reveal is known)."""
    try:
        reveal = json.loads(deck.reveal) if deck.reveal else {}
        seed = reveal.get("revealed_seed_hex", "")
        root = reveal.get("positions_root_hex", "")
        contributions = [
            {
                "contributor": item.get("contributor", ""),
                "entropy": base64.b64decode(item.get("entropy", "")).hex(),
            }
            for item in reveal.get("contributions", [])
        ]
    except (ValueError, AttributeError, binascii.Error):
        return None
    if not seed:
        return None
    if not deck.cards:
        spec: dict[str, Any] = {"kind": "standard", "copies": 1}
    else:
        kind = "cards" if len(set(deck.cards)) == len(deck.cards) else "multiset"
        spec = {"kind": kind, "cards": list(deck.cards)}
    return {
        "format": HAND_HISTORY_FORMAT,
        "shuffle_id": deck.shuffle_id,
        "deck": spec,
        "commitment": deck.commitment,
        "server_seed": seed,
        "contributions": contributions,
        "steps": [{"deal": list(cards)} for cards in deck.dealt],
    } | ({"positions_root": root} if root else {})


def to_json(record: RoundRecord) -> dict[str, Any]:
    """The record as JSON-ready data (the reveals parsed, so a verifier reads them)."""
    return {
        "round": record.round,
        "player": record.player,
        "paytable": record.paytable,
        "lines": record.lines,
        "coins": record.coins,
        "bet": record.bet,
        "dealt": list(record.dealt),
        "split": (
            {
                "ticket": record.split_ticket,
                "position": record.split_position,
                "card": record.split_card,
            }
            if record.split_ticket
            else None
        ),
        "held": None if record.held is None else list(record.held),
        "lines_drawn": [
            {
                "line": result.line,
                "drawn": list(record.draws[result.line - 1]),
                "cards": list(result.cards),
                "hand": result.hand.value,
                "best": list(result.best),
                "win": result.win,
            }
            for result in record.results
        ],
        "win": record.win,
        "voided": record.voided or None,
        "refunded": record.refunded,
        "credits_after": record.credits_after,
        "decks": [
            {
                "name": deck.name,
                "shuffle_id": deck.shuffle_id,
                "commitment": deck.commitment,
                "reveal": json.loads(deck.reveal) if deck.reveal else None,
                "verification": verification(deck),
            }
            for deck in record.decks
        ],
    }


def to_text(record: RoundRecord) -> str:
    table = PAYTABLES.get(record.paytable)
    title = table.title if table else record.paytable
    feature = " (Split Card feature)" if record.coins == 10 else ""
    out = [
        f"Video poker round {record.round}: {title}{feature}, {record.lines} lines x "
        f"{record.coins} coins, bet {record.bet} chips"
        + (f", player {record.player}" if record.player else "")
    ]
    if record.dealt:
        shown = list(record.dealt)
        if record.split_position != STUB and record.split_card:
            shown[record.split_position] = record.split_card
        out.append("Dealt: " + " ".join(shown))
    if record.split_ticket:
        where = (
            f"dealt at position {record.split_position}"
            if record.split_position != STUB
            else "not dealt: the deal deck's sixth card, in every line's draw deck"
        )
        card = f" {record.split_card}" if record.split_card else ""
        out.append(f"Split card{card}: ticket {record.split_ticket}, {where}")
    if record.held is not None:
        kept = " ".join(record.dealt[p] for p in record.held) or "nothing"
        positions = " ".join(map(str, record.held)) or "none"
        out.append(f"Held positions {positions}: {kept}")
    for result in record.results:
        drawn = " ".join(record.draws[result.line - 1]) or "nothing"
        out.append(
            f"Line {result.line}: drew {drawn} -> {' '.join(result.cards)}: "
            f"{result.hand.value} ({' '.join(result.best)}), wins {result.win}"
        )
    if record.voided:
        out.append(f"Voided before the deal ({record.voided}); bet refunded: {record.refunded}")
    else:
        out.append(f"Win: {record.win} chips" + (" (paid)" if record.win_paid else ""))
    if record.credits_after is not None:
        out.append(f"Credits after the round: {record.credits_after}")
    for deck in record.decks:
        state = "revealed" if deck.reveal else "not revealed yet"
        out.append(
            f"Deck {deck.name}: shuffle {deck.shuffle_id}, commitment {deck.commitment} ({state})"
        )
    return "\n".join(out) + "\n"
