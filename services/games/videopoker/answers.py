"""`decide` for the shell's answers to `pending_chance`.

An answer to the pending request becomes the round's event. An answer already recorded (a
retry after a restart) is satisfied: no events. Anything else answers nothing the round asked
for and is refused. Drawn cards are checked against the deck they came from, so a shell that
mixed up two shuffles cannot deal a card twice.
"""

from __future__ import annotations

from services.games import contract as c
from services.games.errors import InvalidAction, NotAllowedNow
from services.games.videopoker import events as ev
from services.games.videopoker.chance import (
    bet_key,
    deck_names,
    deck_spec,
    pending_chance,
    refund_key,
    win_key,
)
from services.games.videopoker.split import STUB, is_card, read_ticket, second_card, split_text
from services.games.videopoker.state import (
    DEAL,
    SPLIT,
    STANDARD_DECK,
    MachineState,
    Round,
    line_deck,
)


def _round(state: MachineState, number: int) -> Round:
    current = state.round
    if current is None or current.number != number:
        raise NotAllowedNow(f"round {number} is not in play: nothing was asked of it")
    return current


def _opened(state: MachineState, answer: c.ShuffleOpened) -> list[ev.Event]:
    current = _round(state, answer.round)
    known = current.deck(answer.name)
    if known is not None:
        if known.shuffle_id == answer.shuffle_id:
            return []
        raise NotAllowedNow(
            f"shuffle {answer.name} of round {answer.round} is {known.shuffle_id}, "
            f"not {answer.shuffle_id}"
        )
    pending = pending_chance(state)
    asked = isinstance(pending, c.OpenShuffle) and pending.name == answer.name
    # A voided round still records (so it can close) a shuffle that was opening when it
    # was voided.
    late = bool(current.voided) and answer.name in deck_names(current)
    if not (asked or late):
        raise NotAllowedNow(f"round {answer.round} did not ask to open shuffle {answer.name}")
    cards = deck_spec(current, answer.name).cards
    return [ev.DeckOpened(answer.round, answer.name, answer.shuffle_id, answer.commitment, cards)]


def _check_cards(cards: tuple[str, ...], deck: tuple[str, ...], name: str) -> None:
    for index, card in enumerate(cards):
        if not is_card(card) or card not in deck:
            raise InvalidAction(f"{card!r} is not a card of shuffle {name}")
        if card in cards[:index]:
            raise InvalidAction(f"card {card} was drawn twice from shuffle {name}")


def _drawn(state: MachineState, answer: c.CardsDrawn) -> list[ev.Event]:
    current = _round(state, answer.round)
    pending = pending_chance(state)
    if not (isinstance(pending, c.DrawCards) and pending.name == answer.name):
        if _already_drawn(current, answer):
            return []
        raise NotAllowedNow(f"round {answer.round} did not ask for cards of {answer.name}")
    cards = answer.cards[answer.burned :]
    if len(cards) != pending.count:
        raise InvalidAction(f"{answer.name}: asked for {pending.count} card(s), got {len(cards)}")
    if answer.name == SPLIT:
        _check_cards(cards, deck_spec(current, SPLIT).cards, SPLIT)
        placement = read_ticket(cards[0])
        second = ""
        if placement.position != STUB:
            second = second_card(current.dealt[placement.position], placement.offset)
        return [
            ev.SplitPlaced(current.number, cards[0], placement.position, placement.offset, second)
        ]
    if answer.name == DEAL and not current.dealt:
        _check_cards(cards, STANDARD_DECK, DEAL)
        return [ev.HandDealt(current.number, cards)]
    if answer.name == DEAL:
        _check_cards(cards, current.undealt, "deal (its sixth card)")
        base = cards[0]
        return [ev.StubSplitFound(current.number, base, second_card(base, current.split_offset))]
    _check_cards(cards, current.undealt, answer.name)
    line = len(current.draws) + 1
    shown = tuple(
        split_text(card, current.split_second) if card == current.stub_base else card
        for card in cards
    )
    return [ev.LineDrawn(current.number, line, shown)]


def _already_drawn(current: Round, answer: c.CardsDrawn) -> bool:
    cards = answer.cards[answer.burned :]
    if answer.name == SPLIT:
        return (current.ticket,) == cards
    if answer.name == DEAL:
        return cards in (current.dealt, (current.stub_base,))
    recorded = [
        tuple(card.split("|")[0] for card in drawn)
        for line, drawn in enumerate(current.draws, start=1)
        if line_deck(line) == answer.name
    ]
    return recorded == [cards]


def _transferred(state: MachineState, answer: c.TransferDone) -> list[ev.Event]:
    current = state.round
    pending = pending_chance(state)
    if isinstance(pending, c.Transfer) and pending.key == answer.key and current is not None:
        if answer.key == bet_key(current.number):
            return [ev.BetTaken(current.number, current.bet)]
        if answer.key == win_key(current.number):
            return [ev.WinPaid(current.number, current.win)]
        if answer.key == refund_key(current.number):
            return [ev.StakeRefunded(current.number, current.bet)]
    number = answer.key.split("/")[0]
    if number.isdigit() and _earlier_round(state, int(number)):
        return []
    if current is not None and _transfer_done(current, answer.key):
        return []
    raise NotAllowedNow(f"no transfer {answer.key!r} was asked for")


def _transfer_done(current: Round, key: str) -> bool:
    done = {
        bet_key(current.number): current.bet_taken,
        win_key(current.number): current.win_paid,
        refund_key(current.number): current.refunded,
    }
    return done.get(key, False)


def _closed(state: MachineState, answer: c.ShuffleClosed) -> list[ev.Event]:
    current = _round(state, answer.round)
    deck = current.deck(answer.name)
    if deck is not None and deck.closed:
        return []
    pending = pending_chance(state)
    if not (isinstance(pending, c.CloseShuffle) and pending.name == answer.name):
        raise NotAllowedNow(f"round {answer.round} did not ask to close shuffle {answer.name}")
    return [ev.DeckClosed(answer.round, answer.name, answer.reveal)]


def _earlier_round(state: MachineState, number: int) -> bool:
    """Whether `number` is a round that already ended: everything it asked for was answered,
    so a late answer for it is a retry."""
    current = state.round.number if state.round is not None else state.rounds + 1
    return 1 <= number < current


def decide_answer(state: MachineState, answer: c.Command) -> list[ev.Event]:
    if isinstance(answer, c.ShuffleOpened | c.CardsDrawn | c.ShuffleClosed) and _earlier_round(
        state, answer.round
    ):
        return []
    if isinstance(answer, c.ShuffleOpened):
        return _opened(state, answer)
    if isinstance(answer, c.CardsDrawn):
        return _drawn(state, answer)
    if isinstance(answer, c.TransferDone):
        return _transferred(state, answer)
    if isinstance(answer, c.ShuffleClosed):
        return _closed(state, answer)
    raise InvalidAction(f"video poker asks for no {type(answer).__name__}")
