"""The physical table of a live-dealer hold'em hand, as a pure state machine.

A dealer reports every card as it leaves the deck (card, face up or down, recipient: a seat, the
board or the burn pile) and the betting as it happens. `handle(state, command)` checks the report
against the hand and returns the new state and its events: the report accepted, refused with an
error that changes nothing, or turned into the procedure the rules prescribe (misdeal, exposed
card replaced and burned, flop redealt, card out of play, extra card burned).

The deck of a live table is the set of cards nobody has seen: a reshuffle returns cards to it.
Standard library only: this is part of the pure game core.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

from services.games.cards import Card, standard_deck

BOARD = "board"
BURN = "burn"


class Street(Enum):
    DEAL = "deal"  # hole cards are being dealt
    PREFLOP = "preflop"
    FLOP = "flop"
    TURN = "turn"
    RIVER = "river"
    DONE = "done"


_BOARD_SIZE = {Street.PREFLOP: 0, Street.FLOP: 3, Street.TURN: 4, Street.RIVER: 5}
_NEXT = {Street.PREFLOP: Street.FLOP, Street.FLOP: Street.TURN, Street.TURN: Street.RIVER}


class ReportError(ValueError):
    """A report the hand cannot accept; nothing changed. `precondition` separates a report in
    the wrong phase (FAILED_PRECONDITION) from one that is wrong in itself (INVALID_ARGUMENT)."""

    def __init__(self, message: str, *, precondition: bool) -> None:
        super().__init__(message)
        self.precondition = precondition


# -- commands --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReportCard:
    card: Card
    face_up: bool
    recipient: int | str  # a seat number, BOARD or BURN


@dataclass(frozen=True, slots=True)
class Bet:
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class Fold:
    seat: int


@dataclass(frozen=True, slots=True)
class Acted:
    """A seat acted without folding while the engine keeps the chips (a check, call, bet or
    raise at a table whose betting the poker engine runs): the street has seen action."""

    seat: int


@dataclass(frozen=True, slots=True)
class CloseRound:
    """The betting round is complete (the engine's betting says so; the dealer then deals)."""


@dataclass(frozen=True, slots=True)
class Expose:
    """A hole card already dealt face down was exposed by the dealer during the deal."""

    card: Card


@dataclass(frozen=True, slots=True)
class DeclareMisdeal:
    """The dealer declares a misdeal the cards alone do not show (a deck found short, a card
    dealt to an empty seat...): allowed until the first action of the hand."""

    reason: str


Command = ReportCard | Bet | Fold | Acted | CloseRound | DeclareMisdeal | Expose


# -- events ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened. `kind` names it (card_dealt, misdeal, exposed_card_replaced,
    flop_redealt, card_out_of_play, deck_reshuffled, extra_card_burned, bet, fold,
    round_closed, pot_awarded); `cards` are the cards it concerns; `explanation` is for players."""

    kind: str
    explanation: str
    cards: tuple[Card, ...] = ()
    seat: int | None = None
    chips: tuple[tuple[int, int], ...] = ()  # (seat, chips) moved by the event


@dataclass(frozen=True, slots=True)
class Due:
    """The card the dealer deals next, as the rules expect it: `recipient` a seat number,
    BOARD or BURN; `face_up` how it is dealt; `what` in words, for the console."""

    recipient: int | str
    face_up: bool
    what: str


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


# -- state -----------------------------------------------------------------------------------


@dataclass(slots=True)
class LiveHand:
    seats: tuple[int, ...]  # in dealing order: the first is the first player dealt to
    blinds: dict[int, int]
    stacks: dict[int, int]  # chips behind
    committed: dict[int, int]  # chips put in during the hand (blinds included)
    street: Street = Street.DEAL
    betting_open: bool = False
    holes: dict[int, list[Card]] = field(default_factory=dict)
    board: list[Card] = field(default_factory=list)
    burns: list[Card] = field(default_factory=list)
    out_of_play: list[Card] = field(default_factory=list)
    deck: set[Card] = field(default_factory=set)
    folded: set[int] = field(default_factory=set)
    hole_dealt: int = 0  # hole cards dealt in the deal, in order
    exposed: list[tuple[int, Card]] = field(default_factory=list)  # (seat, card) to replace
    replacement_for: int | None = None  # a seat owed a replacement card
    extra_cards: int = 0
    burned_for_street: bool = False  # the next street's burn is on the table
    no_burn: bool = False  # the next street is dealt without a burn
    acted_on_street: bool = False
    burns_on_street: int = 0
    reshuffle_after_round: bool = False
    redeals: int = 0

    @property
    def pot(self) -> int:
        return sum(self.committed.values())

    def in_play(self) -> set[Card]:
        seen = set(self.board) | set(self.burns) | set(self.out_of_play)
        for cards in self.holes.values():
            seen |= set(cards)
        return seen


def new_hand(seats: tuple[int, ...], stacks: dict[int, int], blinds: dict[int, int]) -> LiveHand:
    """A hand before its first card: the blinds are posted from the stacks."""
    if len(seats) < 2 or len(set(seats)) != len(seats):
        raise ValueError("a hand needs two or more distinct seats")
    if set(stacks) != set(seats) or not set(blinds) <= set(seats):
        raise ValueError("stacks name every seat and blinds only seated players")
    behind = dict(stacks)
    for seat, amount in blinds.items():
        if not 0 < amount <= behind[seat]:
            raise ValueError(f"seat {seat} cannot post a blind of {amount}")
        behind[seat] -= amount
    hand = LiveHand(
        seats=seats,
        blinds=dict(blinds),
        stacks=behind,
        committed={s: blinds.get(s, 0) for s in seats},
    )
    _start_deal(hand)
    return hand


def next_card(hand: LiveHand) -> Due | None:
    """The card due next (None: none is, the players are acting or the hand is over)."""
    if hand.street is Street.DONE:
        return None
    if hand.replacement_for is not None:
        seat = hand.replacement_for
        return Due(seat, False, f"seat {seat}'s replacement for its exposed card, face down")
    if hand.street is Street.DEAL:
        seat = _expected_hole_seat(hand)
        which = ordinal(hand.hole_dealt // len(hand.seats) + 1)
        return Due(seat, False, f"seat {seat}'s {which} hole card, face down")
    if hand.betting_open or hand.street is Street.RIVER:
        return None
    street = _NEXT[hand.street]
    if not (hand.burned_for_street or hand.no_burn):
        return Due(BURN, False, f"the burn card before the {street.value}")
    if street is Street.FLOP:
        which = ordinal(len(hand.board) + 1)
        return Due(BOARD, True, f"the flop's {which} card, face up")
    return Due(BOARD, True, f"the {street.value}, face up")


def chips_total(hand: LiveHand) -> int:
    return sum(hand.stacks.values()) + hand.pot


def _start_deal(hand: LiveHand) -> None:
    hand.street = Street.DEAL
    hand.betting_open = False
    hand.holes = {s: [] for s in hand.seats}
    hand.board, hand.burns, hand.out_of_play = [], [], []
    hand.deck = set(standard_deck())
    hand.folded = set()
    hand.hole_dealt = 0
    hand.exposed = []
    hand.replacement_for = None
    hand.extra_cards = 0
    hand.burned_for_street = hand.no_burn = hand.acted_on_street = False
    hand.burns_on_street = 0
    hand.reshuffle_after_round = False


# -- the decision ----------------------------------------------------------------------------


def handle(state: LiveHand, command: Command) -> tuple[LiveHand, tuple[Event, ...]]:
    """The hand after `command` and what happened; `state` itself is never changed.
    Raises ReportError (nothing changed) for a report the hand cannot accept."""
    hand = _clone(state)
    events: list[Event] = []
    if hand.street is Street.DONE:
        raise ReportError("the hand is over", precondition=True)
    if isinstance(command, ReportCard):
        _report(hand, command, events)
    elif isinstance(command, Bet):
        _bet(hand, command, events)
    elif isinstance(command, Fold):
        _fold(hand, command, events)
    elif isinstance(command, Acted):
        _live_seat(hand, command.seat)
        hand.acted_on_street = True
    elif isinstance(command, DeclareMisdeal):
        _declare_misdeal(hand, command, events)
    elif isinstance(command, Expose):
        _expose(hand, command, events)
    else:
        _close_round(hand, events)
    return hand, tuple(events)


def _clone(hand: LiveHand) -> LiveHand:
    """A copy whose containers are its own (cards are immutable and shared), so `handle`
    never changes the state it was given. Explicit rather than copy.deepcopy: the compiled
    Card cannot be deep-copied."""
    return replace(
        hand,
        blinds=dict(hand.blinds),
        stacks=dict(hand.stacks),
        committed=dict(hand.committed),
        holes={seat: list(cards) for seat, cards in hand.holes.items()},
        board=list(hand.board),
        burns=list(hand.burns),
        out_of_play=list(hand.out_of_play),
        deck=set(hand.deck),
        folded=set(hand.folded),
        exposed=list(hand.exposed),
    )


def _take(hand: LiveHand, card: Card) -> None:
    if card not in hand.deck:
        raise ReportError(f"{card} has already been seen in this hand", precondition=False)
    hand.deck.discard(card)


def _report(hand: LiveHand, report: ReportCard, events: list[Event]) -> None:
    if report.card in hand.in_play():
        raise ReportError(f"{report.card} has already been seen in this hand", precondition=False)
    if report.recipient == BURN:
        _burn(hand, report, events)
    elif report.recipient == BOARD:
        _board(hand, report, events)
    elif isinstance(report.recipient, int) and report.recipient in hand.seats:
        _hole(hand, report.recipient, report, events)
    else:
        raise ReportError(f"no recipient {report.recipient!r} at this table", precondition=False)


def _expected_hole_seat(hand: LiveHand) -> int:
    return hand.seats[hand.hole_dealt % len(hand.seats)]


def _hole(hand: LiveHand, seat: int, report: ReportCard, events: list[Event]) -> None:
    card = report.card
    if seat in hand.folded:
        raise ReportError(f"seat {seat} has folded", precondition=False)
    if hand.street is Street.DEAL and hand.replacement_for is None:
        expected = _expected_hole_seat(hand)
        if seat != expected:
            raise ReportError(
                f"the next hole card goes to seat {expected}, not {seat}", precondition=False
            )
        _take(hand, card)
        hand.hole_dealt += 1
        hand.holes[seat].append(card)
        events.append(Event("card_dealt", f"Seat {seat} is dealt a card.", (card,), seat))
        if report.face_up and not _exposed(hand, seat, card, hand.hole_dealt, events):
            return  # a misdeal: the deal starts again
        if hand.hole_dealt == 2 * len(hand.seats):
            if hand.exposed:
                exposed_seat, exposed_card = hand.exposed[0]
                hand.holes[exposed_seat].remove(exposed_card)
                hand.burns.append(exposed_card)
                hand.burned_for_street = True
                hand.replacement_for = exposed_seat
                events.append(
                    Event(
                        "exposed_card_burned",
                        f"The exposed {exposed_card} is the first burn card; seat "
                        f"{exposed_seat} gets the top card of the deck instead.",
                        (exposed_card,),
                        exposed_seat,
                    )
                )
            else:
                _open_preflop(hand)
        return
    if hand.replacement_for is not None:
        if seat != hand.replacement_for:
            raise ReportError(
                f"seat {hand.replacement_for} is owed the replacement card", precondition=False
            )
        _take(hand, card)
        hand.holes[seat].append(card)
        hand.replacement_for = None
        events.append(
            Event("exposed_card_replaced", f"Seat {seat} gets a replacement card.", (card,), seat)
        )
        _open_preflop(hand)
        return
    if hand.street is Street.PREFLOP and seat == hand.seats[0] and hand.betting_open:
        _take(hand, card)
        hand.extra_cards += 1
        if hand.extra_cards > 1:
            hand.holes[seat].append(card)
            _misdeal(hand, "the first player was dealt more than one extra card", events)
            return
        if hand.burned_for_street:
            hand.deck.add(card)  # the burn is already on the table: the card goes back
            events.append(
                Event(
                    "extra_card_returned",
                    f"The extra card dealt to seat {seat} goes back to the deck.",
                    (card,),
                    seat,
                )
            )
        else:
            hand.burns.append(card)
            hand.burned_for_street = True
            events.append(
                Event(
                    "extra_card_burned",
                    f"The extra card dealt to seat {seat} goes back to the deck "
                    "and is used as the burn card.",
                    (card,),
                    seat,
                )
            )
        return
    raise ReportError(f"no hole card is due to seat {seat} now", precondition=True)


def _exposed(hand: LiveHand, seat: int, card: Card, dealt: int, events: list[Event]) -> bool:
    """The `dealt`-th hole card of the deal (1 is the first) was exposed by the dealer: a
    misdeal for the first two or for a second exposed card (False), else it is noted for
    replacing once the deal is complete (True)."""
    if dealt <= 2:
        which = "first" if dealt == 1 else "second"
        _misdeal(hand, f"the {which} hole card was exposed", events)
        return False
    hand.exposed.append((seat, card))
    if len(hand.exposed) > 1:
        _misdeal(hand, "more than one hole card was exposed", events)
        return False
    events.append(
        Event(
            "card_exposed",
            f"The card dealt to seat {seat} was exposed ({card}); it will be "
            "replaced after the deal and used as the first burn card.",
            (card,),
            seat,
        )
    )
    return True


def _expose(hand: LiveHand, exposure: Expose, events: list[Event]) -> None:
    """A hole card dealt face down is exposed by the dealer later in the deal (flashed,
    turned while pitching the next card): the same rule as a card dealt face up, by its
    place in the dealing order."""
    card = exposure.card
    if hand.street is not Street.DEAL or hand.replacement_for is not None:
        raise ReportError(
            "an exposed hole card is reported during the deal (after it, the player keeps it)",
            precondition=True,
        )
    owner = next((seat for seat, cards in hand.holes.items() if card in cards), None)
    if owner is None:
        raise ReportError(f"{card} has not been dealt to a seat in this hand", precondition=False)
    if (owner, card) in hand.exposed:
        raise ReportError(f"{card} was reported exposed already", precondition=False)
    dealt = hand.holes[owner].index(card) * len(hand.seats) + hand.seats.index(owner) + 1
    _exposed(hand, owner, card, dealt, events)


def _open_preflop(hand: LiveHand) -> None:
    hand.street = Street.PREFLOP
    hand.betting_open = True
    hand.acted_on_street = False
    hand.burns_on_street = 0


def _burn(hand: LiveHand, report: ReportCard, events: list[Event]) -> None:
    if hand.street in (Street.DEAL, Street.RIVER) or hand.replacement_for is not None:
        raise ReportError("no burn card is due now", precondition=True)
    if hand.burned_for_street:
        raise ReportError(
            "the burn card for this street is already on the table", precondition=True
        )
    if hand.no_burn and not hand.betting_open:
        raise ReportError("this card is dealt without a burn", precondition=True)
    _take(hand, report.card)
    hand.burns.append(report.card)
    hand.burned_for_street = True
    hand.burns_on_street += 1
    events.append(Event("card_burned", "The dealer burns a card.", (report.card,)))


def _board(hand: LiveHand, report: ReportCard, events: list[Event]) -> None:
    card = report.card
    if hand.street in (Street.DEAL, Street.RIVER) or hand.replacement_for is not None:
        raise ReportError(
            f"no board card is due now: the board has {len(hand.board)} cards", precondition=True
        )
    if hand.betting_open:
        _premature(hand, card, events)
        return
    if not (hand.burned_for_street or hand.no_burn):
        if _flop_untouched(hand):
            # Nobody could act on the flop (every player all in) and no burn came since: a
            # fourth card is the flop's, so the flop had too many cards.
            _take(hand, card)
            _flop_too_many(hand, card, events)
            return
        raise ReportError("burn a card before this street", precondition=True)
    _take(hand, card)
    hand.board.append(card)
    events.append(Event("card_dealt", f"{card} is turned on the board.", (card,)))
    target = _BOARD_SIZE[_NEXT[hand.street]]
    if len(hand.board) == target:
        hand.street = _NEXT[hand.street]
        hand.betting_open = True
        hand.acted_on_street = False
        hand.burned_for_street = hand.no_burn = False
        hand.burns_on_street = 0


def _premature(hand: LiveHand, card: Card, events: list[Event]) -> None:
    """A board card turned while the betting round is still open."""
    _take(hand, card)
    if hand.street is Street.PREFLOP:
        returned: tuple[Card, ...] = (card,)
        hand.deck.update(returned)
        hand.no_burn = True
        hand.burned_for_street = False
        events.append(
            Event(
                "flop_redealt",
                f"The flop was dealt before the betting was complete ({card}): the "
                "board card goes back into the deck, the burn card stays, the deck "
                "is reshuffled and a new flop is dealt without a burn.",
                returned,
            )
        )
        return
    if _flop_untouched(hand):
        _flop_too_many(hand, card, events)
        return
    which = "turn" if hand.street is Street.FLOP else "river"
    hand.out_of_play.append(card)
    hand.burned_for_street = False
    hand.burns_on_street = 0
    # Either way the deck is reshuffled with the card once the turn's betting is complete.
    hand.reshuffle_after_round = True
    if which == "turn":
        how = (
            "the dealer burns and turns the next card in its place; after that round the "
            "deck is reshuffled with it and the river is turned without a burn"
        )
    else:
        how = (
            "after the betting the deck is reshuffled with it and the river is turned "
            "without a burn"
        )
    events.append(
        Event(
            "card_out_of_play",
            f"The {which} ({card}) was exposed before the betting was complete: it "
            f"is out of play for this round; {how}.",
            (card,),
        )
    )


def _flop_untouched(hand: LiveHand) -> bool:
    """The flop is on the table, nobody has acted on it and no burn was reported since."""
    return hand.street is Street.FLOP and not hand.acted_on_street and hand.burns_on_street == 0


def _flop_too_many(hand: LiveHand, card: Card, events: list[Event]) -> None:
    """`card` (taken from the deck) turned after a flop nobody acted on: the flop had too many
    cards and is redealt, the burn staying on the table."""
    returned = (*hand.board, card)
    hand.board.clear()
    hand.deck.update(returned)
    hand.street = Street.PREFLOP
    hand.betting_open = False
    hand.no_burn = True
    hand.burned_for_street = False
    events.append(
        Event(
            "flop_redealt",
            "The flop had too many cards: the board cards go back into the deck, "
            "the burn card stays, the deck is reshuffled and a new flop is dealt "
            "without a burn.",
            returned,
        )
    )


def _reshuffle_out_of_play(hand: LiveHand, events: list[Event]) -> None:
    returned = tuple(hand.out_of_play)
    hand.deck.update(returned)
    hand.out_of_play.clear()
    hand.reshuffle_after_round = False
    hand.no_burn = True
    hand.burned_for_street = False
    events.append(
        Event(
            "deck_reshuffled",
            "The deck is reshuffled with the card taken out of play (not the burn "
            "cards); the river is turned without a burn.",
            returned,
        )
    )


def _misdeal(hand: LiveHand, reason: str, events: list[Event]) -> None:
    returned: list[tuple[int, int]] = []
    for seat in hand.seats:
        back = hand.committed[seat] - hand.blinds.get(seat, 0)
        if back:
            hand.stacks[seat] += back
            hand.committed[seat] -= back
            returned.append((seat, back))
    cards = tuple(hand.in_play())
    hand.redeals += 1
    _start_deal(hand)
    events.append(
        Event(
            "misdeal",
            f"Misdeal: {reason}; the hand will be redealt.",
            tuple(sorted(cards, key=lambda c: c.index)),
            chips=tuple(returned),
        )
    )


def _declare_misdeal(hand: LiveHand, declared: DeclareMisdeal, events: list[Event]) -> None:
    started = hand.street is not Street.DEAL and (
        hand.street is not Street.PREFLOP or hand.acted_on_street or hand.folded
    )
    if started:
        raise ReportError(
            "a misdeal can be declared only before the first action of the hand",
            precondition=True,
        )
    reason = declared.reason.strip() or "the dealer declared a misdeal"
    _misdeal(hand, reason, events)


def _live_seat(hand: LiveHand, seat: int) -> None:
    if not hand.betting_open:
        raise ReportError("no betting round is open", precondition=True)
    if seat not in hand.seats or seat in hand.folded:
        raise ReportError(f"seat {seat} is not in the hand", precondition=False)


def _bet(hand: LiveHand, bet: Bet, events: list[Event]) -> None:
    _live_seat(hand, bet.seat)
    if not 0 < bet.amount <= hand.stacks[bet.seat]:
        raise ReportError(f"seat {bet.seat} cannot put in {bet.amount}", precondition=False)
    hand.stacks[bet.seat] -= bet.amount
    hand.committed[bet.seat] += bet.amount
    hand.acted_on_street = True
    events.append(
        Event(
            "bet",
            f"Seat {bet.seat} puts in {bet.amount}.",
            seat=bet.seat,
            chips=((bet.seat, bet.amount),),
        )
    )


def _fold(hand: LiveHand, fold: Fold, events: list[Event]) -> None:
    _live_seat(hand, fold.seat)
    hand.folded.add(fold.seat)
    hand.acted_on_street = True
    events.append(Event("fold", f"Seat {fold.seat} folds.", seat=fold.seat))
    remaining = [s for s in hand.seats if s not in hand.folded]
    if len(remaining) == 1:
        _award(hand, remaining, events)


def _close_round(hand: LiveHand, events: list[Event]) -> None:
    if not hand.betting_open:
        raise ReportError("no betting round is open", precondition=True)
    # `acted_on_street` stays: whether anyone acted on this street still tells a fourth card
    # on an all-in flop (too many cards) from a turn dealt without its burn.
    hand.betting_open = False
    events.append(Event("round_closed", f"The {hand.street.value} betting is complete."))
    if hand.reshuffle_after_round and hand.street is Street.TURN:
        _reshuffle_out_of_play(hand, events)
    if hand.street is Street.RIVER:
        _award(hand, [s for s in hand.seats if s not in hand.folded], events)


def _award(hand: LiveHand, winners: list[int], events: list[Event]) -> None:
    """The pot to the players left (the engine ranks hands; here it is split evenly, odd chips
    to the first in dealing order), so the chip count of a live hand can be checked end to end."""
    pot = hand.pot
    share, odd = divmod(pot, len(winners))
    moved = []
    for i, seat in enumerate(winners):
        won = share + (1 if i < odd else 0)
        hand.stacks[seat] += won
        moved.append((seat, won))
    hand.committed = {s: 0 for s in hand.seats}
    hand.street = Street.DONE
    hand.betting_open = False
    events.append(Event("pot_awarded", "The pot is awarded.", chips=tuple(moved)))
