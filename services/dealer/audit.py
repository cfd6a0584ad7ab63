"""What `croupier verify` checks beyond the cards: what a fair deal would not contain, and
whether the cards a hand history says each seat received are the ones the committed order put
at that seat's positions.

Pure functions over a parsed `HandHistoryRecord` (and a hand history's text).

**The dealing convention** (docs/dealer.md 3.1): a hand's hole cards are one HOLE deal, dealt
one card at a time round the table starting left of the button, so with n players the player
i-th from the button's left (PHH's p1, p2, ...) gets the HOLE deal's cards i, i + n, i + 2n,
...; board cards are the BOARD deals in order (burns are their own BURN deals between them).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass

from services.shuffles.derivation import derive_order
from services.shuffles.history import HandHistoryRecord, StepNote
from services.shuffles.positions import mixed_order
from services.shuffles.verification import Dealt, Reshuffled

MAX_RESHUFFLES = 8
UNKNOWN = "??"


def unusual(record: HandHistoryRecord) -> list[str]:
    """Everything in the record a fair deal by this platform would not contain, or that a
    player should know about (no player entropy, withheld commitments), in words."""
    found: list[str] = []
    if record.test_deck:
        found.append("TEST DECK: the order was set explicitly, not derived from the seed")
    if not record.contributions:
        found.append("no player entropy: this order is the house's seed alone")
    withheld = [c.contributor for c in record.commitments if not c.revealed]
    if withheld:
        found.append(
            f"{len(withheld)} commitment(s) withheld (not revealed in time, so not in the "
            f"order): {', '.join(withheld)}"
        )
    dealt = 0
    reshuffles = 0
    notes: tuple[StepNote | None, ...] = record.notes or tuple(None for _ in record.steps)
    for number, (step, note) in enumerate(zip(record.steps, notes, strict=True)):
        if isinstance(step, Dealt):
            dealt += len(step.cards)
            if note is not None and note.purpose in ("", "unspecified"):
                found.append(f"step {number}: a deal with no purpose")
            continue
        assert isinstance(step, Reshuffled)
        reshuffles += 1
        if dealt == 0:
            found.append(f"step {number}: a reshuffle before any card was dealt")
        if not step.include:
            found.append(f"step {number}: a reshuffle that returned no cards")
        if note is not None and note.needed and note.size:
            remaining = note.size - len(step.include)
            if note.needed <= remaining:
                found.append(
                    f"step {number}: a reshuffle nobody needed ({remaining} cards remained "
                    f"for a draw of {note.needed})"
                )
    unplaced = [
        number
        for number, (step, note) in enumerate(zip(record.steps, notes, strict=True))
        if isinstance(step, Dealt) and note is not None and not note.positioned
    ]
    if unplaced:
        found.append(
            f"{len(unplaced)} deal(s) did not name their place in the shuffle (steps "
            f"{', '.join(map(str, unplaced))}): a repeat of such a request under a new key is "
            "dealt the next cards, so these could have been dealt more than once"
        )
    if reshuffles > MAX_RESHUFFLES:
        found.append(f"{reshuffles} reshuffles (the dealer allows {MAX_RESHUFFLES})")
    return found


@dataclass(frozen=True, slots=True)
class Received:
    """One card a hand history says someone received, and what the record has there."""

    who: str  # "p1 alice", or "board"
    position: int  # in the whole shuffle's dealing order
    claimed: str
    recorded: str | None  # None: the record has no card at that position

    @property
    def ok(self) -> bool:
        return self.claimed == self.recorded


@dataclass(frozen=True, slots=True)
class RecipientCheck:
    received: tuple[Received, ...]
    hidden: int  # cards the history shows as unknown ("??"): not checked

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.received)


class HistoryFormatError(ValueError):
    """A hand history that cannot be read."""


def _deal_spans(record: HandHistoryRecord, purpose: str) -> list[tuple[int, tuple[str, ...]]]:
    """(first position, cards) of every deal with `purpose`, in order."""
    spans = []
    position = 0
    for step, note in zip(record.steps, record.notes, strict=True):
        if isinstance(step, Dealt):
            if note.purpose.lower().removeprefix("deal_purpose_") == purpose:
                spans.append((position, tuple(str(c) for c in step.cards)))
            position += len(step.cards)
    return spans


Spans = list[tuple[int, tuple[str, ...]]]


def _conventional_spans(
    record: HandHistoryRecord, hole_cards: int, board_groups: list[int]
) -> tuple[Spans, Spans]:
    """Where the dealing convention (module docstring) puts the hole and board cards in the
    order derived from the record's seed and contributions (segment 0, a standard deck): the
    hole deal first, then each board deal after its one-card burn."""
    derive = mixed_order if record.positions_root else derive_order
    order = [
        str(c)
        for c in derive(
            record.server_seed,
            record.shuffle_id,
            record.contributions,
            0,
            record.deck.card_multiset(),
        )
    ]
    holes = [(0, tuple(order[:hole_cards]))]
    boards = []
    position = hole_cards
    for size in board_groups:
        position += 1  # the burn
        boards.append((position, tuple(order[position : position + size])))
        position += size
    return holes, boards


def _split(cards: str) -> list[str]:
    return [cards[i : i + 2] for i in range(0, len(cards), 2)]


def check_phh(record: HandHistoryRecord, phh: str) -> RecipientCheck:
    """Each card the hand history (PHH, as `croupier history --phh` or GetHandHistory gives
    it) says a player or the board received, against the record's card at that position."""
    if not record.notes and not record.public_reveal:
        raise HistoryFormatError("the shuffle record names no deal purposes to check against")
    try:
        data = tomllib.loads(phh)
    except tomllib.TOMLDecodeError as exc:
        raise HistoryFormatError(f"not a PHH hand history: {exc}") from exc
    actions = data.get("actions")
    players = data.get("players", [])
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise HistoryFormatError("the hand history has no 'actions' list")
    hole_deals: list[tuple[int, list[str]]] = []  # (player index, cards), first round only
    board: list[str] = []
    board_groups: list[int] = []
    for action in actions:
        parts = action.split()
        if parts[:2] == ["d", "dh"] and len(parts) == 4 and not board:
            index = int(parts[2].removeprefix("p")) - 1
            if any(i == index for i, _ in hole_deals):
                break  # a second deal to someone: a draw, not the hole deal
            hole_deals.append((index, _split(parts[3])))
        elif parts[:2] == ["d", "db"] and len(parts) == 3:
            board += _split(parts[2])
            board_groups.append(len(_split(parts[2])))
    received: list[Received] = []
    hidden = 0
    if record.public_reveal:
        holes, boards = _conventional_spans(
            record, sum(len(c) for _, c in hole_deals), board_groups
        )
    else:
        holes, boards = _deal_spans(record, "hole"), _deal_spans(record, "board")
    if hole_deals:
        start, cards = holes[0] if holes else (0, ())
        n = len(hole_deals)
        for order, (index, claimed) in enumerate(hole_deals):
            name = players[index] if index < len(players) else ""
            who = f"p{index + 1} {name}".strip()
            for j, card in enumerate(claimed):
                if card == UNKNOWN:
                    hidden += 1
                    continue
                offset = j * n + order
                recorded = cards[offset] if offset < len(cards) else None
                received.append(Received(who, start + offset, card, recorded))
    flat = [(start + k, card) for start, cards in boards for k, card in enumerate(cards)]
    for k, card in enumerate(board):
        if card == UNKNOWN:
            hidden += 1
            continue
        position, recorded = flat[k] if k < len(flat) else (-1, None)
        received.append(Received("board", position, card, recorded))
    return RecipientCheck(tuple(received), hidden)


@dataclass(frozen=True, slots=True)
class Mine:
    """What the record holds of one contributor's entropy."""

    committed: bool
    revealed: bool  # in the order (the key mixes it in)
    matches: bool | None  # the entropy recorded is the one given (None: none given)

    @property
    def ok(self) -> bool:
        return self.revealed and self.matches is not False

    def describe(self) -> str:
        if not self.committed and not self.revealed:
            return "NOT IN THIS RECORD: no commitment and no entropy under this name"
        if not self.revealed:
            return "committed but WITHHELD: the entropy was not revealed in time, not in the order"
        if self.matches is False:
            return "MISMATCH: the entropy recorded under this name is not the one given"
        checked = ", the entropy you gave" if self.matches else ""
        return f"committed and revealed{checked}: mixed into this deck's order"


def contribution_of(record: HandHistoryRecord, contributor: str, entropy: bytes | None) -> Mine:
    revealed = [c for c in record.contributions if c.contributor == contributor]
    committed = any(c.contributor == contributor for c in record.commitments) or bool(revealed)
    matches = None if entropy is None or not revealed else revealed[0].entropy == entropy
    return Mine(committed, bool(revealed), matches)
