"""The Split Card: where it is in a round and what its second card is, from dealer shuffles.

With the feature on, one card of the deal deck is replaced by a split card: that card (its
base) plus a second card of the same suit whose rank is one below, equal or one above the
base's (ranks wrap around the ace: an ace splits into a king, an ace or a 2), each a third.
The second card is printed on the split card: the real card of that name stays in the deck.

Where the split card is, and its second card, come from ONE card of the round's "split"
shuffle, a small ticket deck the dealer commits to with the deal deck, before any card:

- the ticket's suit gives the second card: clubs one rank down, diamonds the same rank,
  hearts one rank up;
- its rank gives the split card's place in the deal deck: 2, 3, 4, 5 or 6 is the first to
  fifth dealt card; an ace is the sixth card of the deal deck, the first one not dealt.

The ticket deck holds `dealt_weight` copies of each of the fifteen tickets 2-6 of clubs,
diamonds and hearts and `stub_weight` copies of each of Ac, Ad, Ah, so that the split card is
among the five dealt with probability exactly `in_deal` = 5 * dealt / (5 * dealt + stub),
each dealt position equally likely. For the default 1/4 that is a 60-card deck: the fifteen
2-6 tickets once each and fifteen copies of each ace. A sixth-card split card is one of the
47 undealt cards, each equally likely (the deal deck is uniformly shuffled), and it is in
every line's draw deck (each line draws from its own shuffle of the 47 undealt cards): a line
that draws that card receives the split card. The player does not see an undealt split card,
nor its second card, until a line draws it. There is one split card per round: when it is
dealt, the draw decks hold none.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import gcd

from services.games.cards import RANKS, SUITS
from services.games.errors import InvalidAction

HAND_SIZE = 5
STUB = -1  # position of a split card that is not dealt (the deal deck's sixth card)
OFFSETS = (-1, 0, 1)  # second card's rank: one down, the same, one up
OFFSET_SUITS = "cdh"  # a ticket's suit names its offset, in OFFSETS order
POSITION_RANKS = "23456"  # a ticket's rank names the dealt position 0..4
STUB_RANK = "A"
MAX_TICKETS = 416  # the dealer's largest deck (eight standard decks)


@dataclass(frozen=True, slots=True)
class TicketDeck:
    """The split shuffle's multiset: `dealt_weight` of each dealt ticket, `stub_weight` of
    each stub ticket."""

    dealt_weight: int
    stub_weight: int

    @property
    def cards(self) -> tuple[str, ...]:
        dealt = tuple(r + s for s in OFFSET_SUITS for r in POSITION_RANKS) * self.dealt_weight
        stub = tuple(STUB_RANK + s for s in OFFSET_SUITS) * self.stub_weight
        return dealt + stub

    @property
    def in_deal(self) -> Fraction:
        dealt = HAND_SIZE * self.dealt_weight
        return Fraction(dealt, dealt + self.stub_weight)


def ticket_deck(in_deal: Fraction) -> TicketDeck:
    """The smallest ticket deck that puts the split card among the dealt five with probability
    exactly `in_deal`."""
    if not 0 <= in_deal <= 1:
        raise InvalidAction(f"the split card's chance of being dealt must be 0 to 1, not {in_deal}")
    # 5 * dealt / (5 * dealt + stub) = a / b  <=>  stub / dealt = 5 * (b - a) / a
    a, b = in_deal.numerator, in_deal.denominator
    if a == 0:
        return TicketDeck(0, 1)
    scale = gcd(a, HAND_SIZE * (b - a))
    deck = TicketDeck(a // scale, HAND_SIZE * (b - a) // scale)
    if len(deck.cards) > MAX_TICKETS:
        raise InvalidAction(
            f"a split chance of {in_deal} needs {len(deck.cards)} tickets; the dealer shuffles "
            f"at most {MAX_TICKETS}: choose a fraction with a smaller denominator"
        )
    return deck


@dataclass(frozen=True, slots=True)
class Placement:
    """What a ticket says: the split card's dealt position (STUB: the deal deck's sixth card)
    and its second card's rank offset."""

    position: int
    offset: int


def read_ticket(ticket: str) -> Placement:
    if len(ticket) != 2 or ticket[1] not in OFFSET_SUITS:
        raise InvalidAction(f"{ticket!r} is not a split ticket (2-6 or A of c, d or h)")
    offset = OFFSETS[OFFSET_SUITS.index(ticket[1])]
    if ticket[0] == STUB_RANK:
        return Placement(STUB, offset)
    if ticket[0] not in POSITION_RANKS:
        raise InvalidAction(f"{ticket!r} is not a split ticket (2-6 or A of c, d or h)")
    return Placement(POSITION_RANKS.index(ticket[0]), offset)


def second_card(base: str, offset: int) -> str:
    """The card printed beside `base` on a split card: same suit, rank `offset` away, wrapping
    around the ace (A-1 = K, A+1 = 2, 2-1 = A)."""
    rank = (RANKS.index(base[0]) + offset) % len(RANKS)
    return RANKS[rank] + base[1]


def split_text(base: str, second: str) -> str:
    """A split card as events and views write it: "Kh|Qh"."""
    return f"{base}|{second}"


def split_parts(text: str) -> tuple[str, ...]:
    """The one or two cards a card text stands for: "Kh|Qh" -> ("Kh", "Qh")."""
    return tuple(text.split("|"))


def is_card(text: str) -> bool:
    return len(text) == 2 and text[0] in RANKS and text[1] in SUITS
