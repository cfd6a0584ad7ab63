"""The physical table of a live-dealer draw hand (Six-Card Open Draw, Spit in the Ocean), as a
pure state machine.

The dealer reports every card as it leaves the deck; the players' discards and actions come from
the engine (its `CardsDiscarded`, `ActionTaken` and `DiscardsReshuffled`). `handle(state,
command)` checks a report against the hand and returns the new state and its events: accepted,
refused with an error that changes nothing, or turned into the procedure the rules prescribe
(docs/games/irregularities.md, "Draw games"):

- the initial deal follows hold'em's misdeal rules: the first or second card exposed, or two
  exposed cards, is a misdeal; one other exposed card is replaced once every starting hand is
  dealt and is dead (set aside, never dealt again in the hand);
- one extra card to the first player after the deal goes back to the deck (these games burn no
  card); a second is a misdeal;
- in the draw, a card the dealer exposes cannot be kept: it is dead and the player gets its
  replacement after every other player has drawn; a card dealt beyond the player's discards
  goes back to the deck;
- when the stub is short, the discards (not the drawing player's own) are shuffled into it.

The deck is the set of cards nobody has seen: a reshuffle returns cards to it.
Standard library only: this is part of the pure game core.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

from services.games.cards import Card, standard_deck
from services.games.poker.live.procedures import (
    BOARD,
    BURN,
    Acted,
    DeclareMisdeal,
    Due,
    Event,
    Expose,
    Fold,
    ReportCard,
    ReportError,
    ordinal,
)


class Stage(Enum):
    DEAL = "deal"  # the starting hands are being dealt
    REPLACE = "replace"  # the exposed starting card's replacement is due
    SPIT = "spit"  # Spit in the Ocean's board card is due
    PLAY = "play"  # betting, the draw and the showdown


@dataclass(frozen=True, slots=True)
class Discard:
    """A player's discard, as the engine recorded it: face down, the player is owed as many
    replacement cards; face up (the open discard), none."""

    seat: int
    cards: tuple[Card, ...]
    face_up: bool = False


@dataclass(frozen=True, slots=True)
class Reshuffle:
    """The discards `cards` are shuffled into the stub (the engine's `DiscardsReshuffled`)."""

    cards: tuple[Card, ...]


DrawCommand = ReportCard | Expose | DeclareMisdeal | Acted | Fold | Discard | Reshuffle


@dataclass(slots=True)
class DrawHand:
    seats: tuple[int, ...]  # in dealing order: the first is the first player dealt to
    hole_count: int  # cards in a starting hand
    spit: bool  # one board card after the deal, without a burn
    stage: Stage = Stage.DEAL
    holes: dict[int, list[Card]] = field(default_factory=dict)
    board: list[Card] = field(default_factory=list)
    dead: list[Card] = field(default_factory=list)  # exposed cards: never dealt again
    discards: list[Card] = field(default_factory=list)  # the pile a short stub takes back
    own_discards: dict[int, list[Card]] = field(default_factory=dict)  # this draw's, by seat
    deck: set[Card] = field(default_factory=set)
    folded: set[int] = field(default_factory=set)
    hole_dealt: int = 0
    exposed: list[tuple[int, Card]] = field(default_factory=list)  # starting cards exposed
    replacement_for: int | None = None
    extra_cards: int = 0
    acted: bool = False  # a player acted or discarded: no misdeal any more
    drawer: int | None = None  # the seat whose replacement cards are being dealt
    owed: int = 0  # cards still due to `drawer` now
    drawing: list[Card] = field(default_factory=list)  # dealt face down to `drawer` so far
    drawn: set[int] = field(default_factory=set)  # seats whose draw is dealt (this draw)
    late: list[int] = field(default_factory=list)  # a replacement owed after the others drew
    last_drawer: int | None = None  # dealt their draw; no one has discarded since
    redeals: int = 0

    def in_play(self) -> set[Card]:
        seen = set(self.board) | set(self.dead) | set(self.discards)
        for cards in self.holes.values():
            seen |= set(cards)
        return seen

    def live_seats(self) -> list[int]:
        return [s for s in self.seats if s not in self.folded]

    def late_due(self) -> bool:
        """Every player has drawn and an exposed draw card's replacement is still owed."""
        return (
            bool(self.late) and self.owed == 0 and all(s in self.drawn for s in self.live_seats())
        )


def new_draw_hand(seats: tuple[int, ...], hole_count: int, spit: bool) -> DrawHand:
    if len(seats) < 2 or len(set(seats)) != len(seats):
        raise ValueError("a hand needs two or more distinct seats")
    hand = DrawHand(seats=seats, hole_count=hole_count, spit=spit)
    _start_deal(hand)
    return hand


def _start_deal(hand: DrawHand) -> None:
    hand.stage = Stage.DEAL
    hand.holes = {s: [] for s in hand.seats}
    hand.own_discards = {s: [] for s in hand.seats}
    hand.board, hand.dead, hand.discards = [], [], []
    hand.deck = set(standard_deck())
    hand.folded = set()
    hand.hole_dealt = 0
    hand.exposed = []
    hand.replacement_for = None
    hand.extra_cards = 0
    hand.acted = False
    hand.drawer = None
    hand.owed = 0
    hand.drawing = []
    hand.drawn = set()
    hand.late = []
    hand.last_drawer = None


def next_card(hand: DrawHand) -> Due | None:
    """The card due next (None: none is, a player is to act or to discard)."""
    if hand.stage is Stage.DEAL:
        seat = hand.seats[hand.hole_dealt % len(hand.seats)]
        which = ordinal(hand.hole_dealt // len(hand.seats) + 1)
        return Due(seat, False, f"seat {seat}'s {which} card, face down")
    if hand.stage is Stage.REPLACE and hand.replacement_for is not None:
        owed = hand.replacement_for
        return Due(owed, False, f"seat {owed}'s replacement for its exposed card, face down")
    if hand.stage is Stage.SPIT:
        return Due(BOARD, True, "the spit card, face up (no burn)")
    if hand.late_due():
        seat = hand.late[0]
        return Due(seat, False, f"seat {seat}'s replacement for its exposed draw card, face down")
    if hand.drawer is not None and hand.owed:
        seat = hand.drawer
        return Due(seat, False, f"seat {seat}'s draw: {hand.owed} more card(s), face down")
    return None


def _clone(hand: DrawHand) -> DrawHand:
    return replace(
        hand,
        holes={seat: list(cards) for seat, cards in hand.holes.items()},
        own_discards={seat: list(cards) for seat, cards in hand.own_discards.items()},
        board=list(hand.board),
        dead=list(hand.dead),
        discards=list(hand.discards),
        deck=set(hand.deck),
        folded=set(hand.folded),
        exposed=list(hand.exposed),
        drawing=list(hand.drawing),
        drawn=set(hand.drawn),
        late=list(hand.late),
    )


# -- the decision ----------------------------------------------------------------------------


def handle(state: DrawHand, command: DrawCommand) -> tuple[DrawHand, tuple[Event, ...]]:
    """The hand after `command` and what happened; `state` itself is never changed.
    Raises ReportError (nothing changed) for a report the hand cannot accept."""
    hand = _clone(state)
    events: list[Event] = []
    if isinstance(command, ReportCard):
        _report(hand, command, events)
    elif isinstance(command, Expose):
        _expose(hand, command.card, events)
    elif isinstance(command, DeclareMisdeal):
        if hand.acted:
            raise ReportError(
                "a misdeal can be declared only before the first action of the hand",
                precondition=True,
            )
        _misdeal(hand, command.reason.strip() or "the dealer declared a misdeal", events)
    elif isinstance(command, Discard):
        _discard(hand, command)
    elif isinstance(command, Reshuffle):
        back = set(command.cards)
        hand.discards = [card for card in hand.discards if card not in back]
        hand.deck |= back
    else:
        hand.acted = True
        hand.last_drawer = None
        if isinstance(command, Fold):
            hand.folded.add(command.seat)
    return hand, tuple(events)


def _take(hand: DrawHand, card: Card) -> None:
    if card not in hand.deck:
        raise ReportError(f"{card} has already been seen in this hand", precondition=False)
    hand.deck.discard(card)


def _report(hand: DrawHand, report: ReportCard, events: list[Event]) -> None:
    if report.card in hand.in_play():
        raise ReportError(f"{report.card} has already been seen in this hand", precondition=False)
    if report.recipient == BURN:
        raise ReportError("this game burns no card", precondition=True)
    if report.recipient == BOARD:
        _board(hand, report, events)
    elif isinstance(report.recipient, int) and report.recipient in hand.seats:
        if report.recipient in hand.folded:
            raise ReportError(f"seat {report.recipient} has folded", precondition=False)
        if hand.stage is Stage.DEAL:
            _deal(hand, report.recipient, report, events)
        elif hand.stage is Stage.REPLACE:
            _replace(hand, report.recipient, report, events)
        else:
            _after_deal(hand, report.recipient, report, events)
    else:
        raise ReportError(f"no recipient {report.recipient!r} at this table", precondition=False)


def _board(hand: DrawHand, report: ReportCard, events: list[Event]) -> None:
    if hand.stage is not Stage.SPIT:
        if hand.spit and hand.board:
            raise ReportError("the board is its one spit card", precondition=True)
        what = "the spit card comes after the deal" if hand.spit else "this game has no board"
        raise ReportError(f"no board card is due now: {what}", precondition=True)
    _take(hand, report.card)
    hand.board.append(report.card)
    hand.stage = Stage.PLAY
    events.append(Event("card_dealt", f"{report.card} is the spit card.", (report.card,)))


def _expected_seat(hand: DrawHand) -> int:
    return hand.seats[hand.hole_dealt % len(hand.seats)]


def _deal(hand: DrawHand, seat: int, report: ReportCard, events: list[Event]) -> None:
    expected = _expected_seat(hand)
    if seat != expected:
        raise ReportError(f"the next card goes to seat {expected}, not {seat}", precondition=False)
    _take(hand, report.card)
    hand.hole_dealt += 1
    hand.holes[seat].append(report.card)
    events.append(Event("card_dealt", f"Seat {seat} is dealt a card.", (report.card,), seat))
    if report.face_up and not _exposed_in_deal(hand, seat, report.card, hand.hole_dealt, events):
        return  # a misdeal: the deal starts again
    if hand.hole_dealt == hand.hole_count * len(hand.seats):
        if hand.exposed:
            exposed_seat, exposed_card = hand.exposed[0]
            hand.holes[exposed_seat].remove(exposed_card)
            hand.dead.append(exposed_card)
            hand.replacement_for = exposed_seat
            hand.stage = Stage.REPLACE
            events.append(
                Event(
                    "exposed_card_dead",
                    f"The exposed {exposed_card} is dead; seat {exposed_seat} gets the top "
                    "card of the deck instead.",
                    (exposed_card,),
                    exposed_seat,
                )
            )
        else:
            _deal_complete(hand)


def _deal_complete(hand: DrawHand) -> None:
    hand.stage = Stage.SPIT if hand.spit else Stage.PLAY


def _replace(hand: DrawHand, seat: int, report: ReportCard, events: list[Event]) -> None:
    if seat != hand.replacement_for:
        raise ReportError(
            f"seat {hand.replacement_for} is owed the replacement card", precondition=False
        )
    if report.face_up:
        raise ReportError(
            "the replacement card is dealt face down (a card exposed now is a new deal's "
            "problem: declare a misdeal)",
            precondition=False,
        )
    _take(hand, report.card)
    hand.holes[seat].append(report.card)
    hand.replacement_for = None
    events.append(
        Event(
            "exposed_card_replaced", f"Seat {seat} gets a replacement card.", (report.card,), seat
        )
    )
    _deal_complete(hand)


def _exposed_in_deal(
    hand: DrawHand, seat: int, card: Card, dealt: int, events: list[Event]
) -> bool:
    """The `dealt`-th card of the deal (1 is the first) was exposed by the dealer: a misdeal for
    the first two or a second exposed card (False); else noted for replacing (True)."""
    if dealt <= 2:
        which = "first" if dealt == 1 else "second"
        _misdeal(hand, f"the {which} card dealt was exposed", events)
        return False
    hand.exposed.append((seat, card))
    if len(hand.exposed) > 1:
        _misdeal(hand, "more than one card was exposed in the deal", events)
        return False
    events.append(
        Event(
            "card_exposed",
            f"The card dealt to seat {seat} was exposed ({card}); it is dead and will be "
            "replaced once every starting hand is dealt.",
            (card,),
            seat,
        )
    )
    return True


def _after_deal(hand: DrawHand, seat: int, report: ReportCard, events: list[Event]) -> None:
    card = report.card
    if hand.late_due():
        if seat != hand.late[0]:
            raise ReportError(
                f"every player has drawn: seat {hand.late[0]} is owed the replacement for its "
                "exposed card",
                precondition=False,
            )
        _take(hand, card)
        if report.face_up:
            hand.dead.append(card)
            events.append(_draw_exposure(seat, card))
            return  # still owed: the next card
        hand.late.pop(0)
        hand.holes[seat].append(card)
        events.append(
            Event(
                "exposed_card_replaced",
                f"Seat {seat} gets the replacement for its exposed card.",
                (card,),
                seat,
            )
        )
        return
    if hand.drawer is not None and hand.owed:
        if seat != hand.drawer:
            raise ReportError(
                f"seat {hand.drawer} is drawing: {hand.owed} card(s) to go", precondition=False
            )
        _take(hand, card)
        hand.owed -= 1
        if report.face_up:
            hand.dead.append(card)
            hand.late.append(seat)
            events.append(_draw_exposure(seat, card))
        else:
            hand.holes[seat].append(card)
            hand.drawing.append(card)
            events.append(Event("card_dealt", f"Seat {seat} is dealt a card.", (card,), seat))
        if hand.owed == 0:
            _drawn(hand, seat)
        return
    if not hand.acted and seat == hand.seats[0]:
        _take(hand, card)
        hand.extra_cards += 1
        if hand.extra_cards > 1:
            hand.holes[seat].append(card)
            _misdeal(hand, "the first player was dealt more than one extra card", events)
            return
        hand.deck.add(card)
        events.append(
            Event(
                "extra_card_returned",
                f"The extra card dealt to seat {seat} goes back to the deck.",
                (card,),
                seat,
            )
        )
        return
    if seat == hand.last_drawer:
        _take(hand, card)
        hand.deck.add(card)
        events.append(
            Event(
                "extra_card_returned",
                f"Seat {seat} was dealt more cards than it discarded: the extra card goes "
                "back to the deck.",
                (card,),
                seat,
            )
        )
        return
    raise ReportError(f"no card is due to seat {seat} now", precondition=True)


def _draw_exposure(seat: int, card: Card) -> Event:
    return Event(
        "draw_card_exposed",
        f"The dealer exposed a card drawn by seat {seat} ({card}): it is dead; seat {seat} "
        "gets its replacement after every other player has drawn.",
        (card,),
        seat,
    )


def _drawn(hand: DrawHand, seat: int) -> None:
    hand.drawn.add(seat)
    hand.drawer = None
    hand.last_drawer = seat


def _discard(hand: DrawHand, discard: Discard) -> None:
    seat = discard.seat
    hand.acted = True
    hand.last_drawer = None
    for card in discard.cards:
        hand.holes[seat].remove(card)
    hand.discards += discard.cards
    if discard.face_up:
        return  # the open discard: no replacement
    if seat in hand.drawn:
        hand.drawn = set()  # a new draw (the first discard of another drawing round)
        hand.own_discards = {s: [] for s in hand.seats}
    hand.own_discards[seat] = list(discard.cards)
    if discard.cards:
        hand.drawer = seat
        hand.owed = len(discard.cards)
        hand.drawing = []
    else:
        _drawn(hand, seat)
        hand.last_drawer = None  # stood pat: no card is due to it


def _expose(hand: DrawHand, card: Card, events: list[Event]) -> None:
    """A card dealt face down was exposed by the dealer afterwards: in the deal, judged by its
    place in the dealing order; in the draw (while the player's draw is being dealt), dead and
    replaced after every other player has drawn."""
    if hand.stage is Stage.DEAL:
        owner = next((s for s, cards in hand.holes.items() if card in cards), None)
        if owner is None:
            raise ReportError(
                f"{card} has not been dealt to a seat in this hand", precondition=False
            )
        if (owner, card) in hand.exposed:
            raise ReportError(f"{card} was reported exposed already", precondition=False)
        dealt = hand.holes[owner].index(card) * len(hand.seats) + hand.seats.index(owner) + 1
        _exposed_in_deal(hand, owner, card, dealt, events)
        return
    drawer = hand.drawer
    if drawer is not None and hand.owed and card in hand.drawing:
        hand.drawing.remove(card)
        hand.holes[drawer].remove(card)
        hand.dead.append(card)
        hand.late.append(drawer)
        events.append(_draw_exposure(drawer, card))
        return
    raise ReportError(
        "an exposed card is reported during the deal, or during its player's draw while "
        "cards are still due to them (after that, the player keeps it)",
        precondition=True,
    )


def _misdeal(hand: DrawHand, reason: str, events: list[Event]) -> None:
    cards = tuple(sorted(hand.in_play(), key=lambda c: c.index))
    hand.redeals += 1
    _start_deal(hand)
    events.append(Event("misdeal", f"Misdeal: {reason}; the hand will be redealt.", cards))
