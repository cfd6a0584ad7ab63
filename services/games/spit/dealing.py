"""The dealer's answers: a shuffle committed, cards drawn, a shuffle revealed. Each must answer
the request `pending_chance` made; a repeat of one already folded in changes nothing, and cards
that are not what the table holds (a card twice, a card not in the player's own deck) are
refused: the dealer cannot add, drop or swap a card."""

from __future__ import annotations

from collections import Counter

from services.games.contract import CardsDrawn, DrawCards, OpenShuffle, ShuffleClosed, ShuffleOpened
from services.games.errors import InvalidAction, NotAllowedNow
from services.games.spit import events as ev
from services.games.spit.cards import VALID_CARDS, Card, deck
from services.games.spit.chance import pending_chance
from services.games.spit.config import Variation
from services.games.spit.layout import lay_out
from services.games.spit.progress import advance, spit
from services.games.spit.reducer import leftovers
from services.games.spit.state import Deal, Phase, SpitState
from services.games.spit.tape import Tape


def shuffle_opened(tape: Tape, answer: ShuffleOpened) -> None:
    request = pending_chance(tape.state)
    if isinstance(request, OpenShuffle) and (request.round, request.name) == (
        answer.round,
        answer.name,
    ):
        tape.emit(
            ev.ShuffleCommitted(answer.round, answer.name, answer.shuffle_id, answer.commitment)
        )
        return
    if _known(tape.state, answer.round, answer.name):
        return  # a repeat
    raise NotAllowedNow(f"the table did not ask to open shuffle {answer.name!r} of {answer.round}")


def _known(state: SpitState, round_: int, name: str) -> bool:
    game = state.game
    return game is not None and any((s.round, s.name) == (round_, name) for s in game.shuffles)


def _in_play(deal: Deal) -> Counter[Card]:
    """Every card the deal has dealt so far."""
    cards: Counter[Card] = Counter()
    for side in deal.sides:
        cards.update(leftovers(side))
    for pile in deal.middle:
        cards.update(pile.cards)
    for stack in deal.stacks:
        cards.update(stack)
    return cards


def _check_cards(state: SpitState, deal: Deal, recipient: str, cards: tuple[Card, ...]) -> None:
    bad = [c for c in cards if c not in VALID_CARDS]
    if bad:
        raise InvalidAction(f"not a card: {bad[0]!r}")
    drawn = Counter(cards)
    if deal.phase is Phase.PLAYING:  # a Speed restock: exactly the gathered cards
        index = int(recipient.split()[-1])
        expected = Counter(deal.gathered[index])
    elif deal.decks:  # a Spit redeal: exactly the player's own cards
        expected = Counter(deal.decks[int(recipient.split()[-1])])
    else:  # a fresh deck: no card twice
        room = deck(1)
        if state.config.variation is not Variation.BICYCLE:  # one deck for all the deal's draws
            room.subtract(_in_play(deal))
        over = drawn - room
        if over:
            raise InvalidAction(f"{next(iter(over))} was dealt twice from one deck")
        return
    if drawn != expected:
        raise InvalidAction(f"the cards drawn for {recipient} are not the cards it holds")


def cards_drawn(tape: Tape, answer: CardsDrawn) -> None:
    state = tape.state
    request = pending_chance(state)
    if not isinstance(request, DrawCards) or (request.round, request.name) != (
        answer.round,
        answer.name,
    ):
        if _known(state, answer.round, answer.name):
            return  # a repeat of cards already dealt
        raise NotAllowedNow(f"the table did not ask for cards from {answer.name!r}")
    cards = answer.cards[answer.burned :]
    if len(cards) != request.count:
        raise InvalidAction(f"{request.count} cards were asked for, not {len(cards)}")
    deal = tape.deal
    _check_cards(state, deal, request.recipient, cards)
    kind, index = request.recipient.split()
    if kind == "stack":
        tape.emit(ev.SideStackDealt(deal.number, int(index), cards))
        if tape.deal.phase is Phase.PLAYING and not tape.deal.gathered:
            spit(tape)  # the side stacks are rebuilt because a flip was due
            advance(tape)
        return
    places, spit_cards = lay_out(state.config, cards)
    private = state.config.variation is Variation.SPEED
    tape.emit(ev.LaidOut(deal.number, int(index), places, spit_cards, private))


def shuffle_closed(tape: Tape, answer: ShuffleClosed) -> None:
    game = tape.state.game
    if game is None:
        raise NotAllowedNow("no shuffle is open")
    for shuffle in game.shuffles:
        if (shuffle.round, shuffle.name) == (answer.round, answer.name):
            if shuffle.reveal is not None:
                return  # a repeat
            if not game.over:
                raise NotAllowedNow("a shuffle is revealed only once the game is over")
            tape.emit(ev.ShuffleRevealed(answer.round, answer.name, answer.reveal))
            return
    raise NotAllowedNow(f"the game has no shuffle {answer.name!r} of {answer.round}")
