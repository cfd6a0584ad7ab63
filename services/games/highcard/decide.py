"""`decide(state, command) -> events`: validates one command against the state it meets and
returns its events, then every automatic consequence (the round settled once both cards are
face up, leaving players leaving). Raises a `RuleViolation` and changes nothing when the
command is not allowed; returns no events when it is already satisfied (a repeat, a stale
timer)."""

from __future__ import annotations

from services.games import contract as c
from services.games.cardtext import is_card, rank_value
from services.games.errors import InvalidAction, NotAllowedNow, NotYourSeat, UnknownTarget
from services.games.highcard import events as ev
from services.games.highcard.chance import DECK, pending_chance
from services.games.highcard.moves import InRound, Turn
from services.games.highcard.reducer import apply
from services.games.highcard.state import SEATS, HighCardState, Round, Seat


def turn_deadline(round_: int) -> str:
    return f"{round_}/turn"


class _Tape:
    """Events folded in as they are emitted, so each consequence meets the state its cause
    left."""

    def __init__(self, state: HighCardState) -> None:
        self.state = state
        self.events: list[ev.Event] = []

    def emit(self, event: ev.Event) -> None:
        self.events.append(event)
        self.state = apply(self.state, event)


def decide(state: HighCardState, command: c.Command) -> list[ev.Event]:
    if isinstance(command, c.Report):
        raise NotAllowedNow(
            "a high-card table is dealt by the dealer service: it takes no dealer's reports"
        )
    tape = _Tape(state)
    if isinstance(command, c.Move):
        _move(tape, command)
    elif isinstance(command, c.TimeOut):
        _time_out(tape, command)
    elif isinstance(command, c.SitDown):
        _sit_down(tape, command)
    elif isinstance(command, c.Leave):
        _leave(tape, command)
    elif isinstance(command, c.SitOut):
        if not _occupant(state, command.seat, command.by).sitting_out:
            tape.emit(ev.PlayerSatOut(command.seat))
    elif isinstance(command, c.SitIn):
        if command.option is not None:
            raise InvalidAction("high card has no sit-in options")
        if _occupant(state, command.seat, command.by).sitting_out:
            tape.emit(ev.PlayerSatIn(command.seat))
    elif isinstance(command, c.AddChips):
        _add_chips(tape, command)
    elif isinstance(command, c.Void):
        if state.round is not None:
            tape.emit(ev.RoundVoided(state.round.number, command.reason))
            _leavers_leave(tape)
    else:
        _answer(tape, command)
    return tape.events


def _occupant(state: HighCardState, seat: int, by: str | None) -> Seat:
    if seat not in SEATS:
        raise UnknownTarget(f"seat {seat} does not exist: seats are 0 and 1")
    occupant = state.seats[seat]
    if occupant is None:
        raise UnknownTarget(f"seat {seat} is empty")
    if by is not None and by != occupant.player:
        raise NotYourSeat(f"seat {seat} belongs to {occupant.player}, not {by}")
    return occupant


def _sit_down(tape: _Tape, command: c.SitDown) -> None:
    state, config = tape.state, tape.state.config
    if command.seat not in SEATS:
        raise UnknownTarget(f"seat {command.seat} does not exist: seats are 0 and 1")
    if state.seats[command.seat] is not None:
        raise NotAllowedNow(f"seat {command.seat} is taken")
    if any(s is not None and s.player == command.player for s in state.seats):
        raise NotAllowedNow(f"{command.player} is already seated at this table")
    if not config.min_buy_in <= command.stack <= config.max_buy_in:
        raise InvalidAction(
            f"buy-in must be between {config.min_buy_in} and {config.max_buy_in}, "
            f"not {command.stack}"
        )
    tape.emit(ev.PlayerSeated(command.seat, command.player, command.stack))


def _leave(tape: _Tape, command: c.Leave) -> None:
    occupant = _occupant(tape.state, command.seat, command.by)
    if tape.state.round is None:
        tape.emit(ev.PlayerLeft(command.seat, occupant.player, occupant.stack))
    elif not occupant.leaving:
        tape.emit(ev.LeaveRequested(command.seat))


def _add_chips(tape: _Tape, command: c.AddChips) -> None:
    occupant = _occupant(tape.state, command.seat, command.by)
    if tape.state.round is not None:
        raise NotAllowedNow(f"round {tape.state.round.number} is on: add chips between rounds")
    room = tape.state.config.max_buy_in - occupant.stack
    if not 0 < command.amount <= room:
        raise InvalidAction(f"add between 1 and {room} chips (max buy-in), not {command.amount}")
    tape.emit(ev.ChipsAdded(command.seat, command.amount))


def _turning(state: HighCardState, seat: int) -> Round:
    current = state.round
    if current is None:
        raise NotAllowedNow("no round is in play")
    if not current.dealt:
        raise NotAllowedNow(f"round {current.number}'s cards are not dealt yet")
    if current.turned[seat]:
        raise NotAllowedNow(f"seat {seat}'s card is face up already")
    return current


def _move(tape: _Tape, command: c.Move) -> None:
    _occupant(tape.state, command.seat, command.by)
    if not isinstance(command.move, Turn):
        raise InvalidAction(f"the high-card move is Turn, not {type(command.move).__name__}")
    pin = command.precondition
    if pin is not None and not isinstance(pin, InRound):
        raise InvalidAction(f"a high-card precondition is InRound, not {type(pin).__name__}")
    current = tape.state.round
    if pin is not None and (current is None or current.number != pin.round):
        playing = f"round {current.number} is in play" if current else "no round is in play"
        raise NotAllowedNow(f"round {pin.round} is not in play: {playing}")
    current = _turning(tape.state, command.seat)
    tape.emit(ev.CardTurned(current.number, command.seat, current.cards[command.seat]))
    _settle(tape)


def _time_out(tape: _Tape, command: c.TimeOut) -> None:
    current = tape.state.round
    if (
        command.seat not in SEATS
        or current is None
        or not current.dealt
        or current.turned[command.seat]
        or command.deadline != turn_deadline(current.number)
    ):
        return  # turned already, or another round's timer
    tape.emit(ev.CardTurned(current.number, command.seat, current.cards[command.seat], True))
    _settle(tape)


def _settle(tape: _Tape) -> None:
    """Both cards face up: the higher rank takes the pot, equal ranks split it."""
    current = tape.state.round
    assert current is not None
    if not all(current.turned):
        return
    values = [rank_value(card) for card in current.cards]
    best = max(values)
    winners = tuple(seat for seat in SEATS if values[seat] == best)
    share = current.pot // len(winners)  # two antes: an even split, never an odd chip
    shares = tuple((seat, share) for seat in winners)
    paid = dict(shares)
    stacks = tuple(
        (seat, s.stack + paid.get(seat, 0))
        for seat, s in enumerate(tape.state.seats)
        if s is not None
    )
    tape.emit(ev.RoundWon(current.number, winners, shares, stacks))
    _leavers_leave(tape)


def _leavers_leave(tape: _Tape) -> None:
    for seat, s in enumerate(tape.state.seats):
        if s is not None and s.leaving:
            tape.emit(ev.PlayerLeft(seat, s.player, s.stack))


def _answer(tape: _Tape, command: c.Command) -> None:
    state = tape.state
    request = pending_chance(state)
    if isinstance(command, c.RoundStarts):
        if isinstance(request, c.StartRound) and request.round == command.round:
            tape.emit(ev.RoundStarted(command.round, state.config.ante))
            return
        if command.round <= state.rounds:
            return  # a repeat
    elif isinstance(command, c.ShuffleOpened):
        if isinstance(request, c.OpenShuffle) and (request.round, request.name) == (
            command.round,
            command.name,
        ):
            tape.emit(ev.DeckCommitted(command.round, command.shuffle_id, command.commitment))
            return
        if state.deck_of(command.round) is not None or command.round < state.rounds:
            return  # a repeat
    elif isinstance(command, c.CardsDrawn):
        if isinstance(request, c.DrawCards) and (request.round, request.name) == (
            command.round,
            command.name,
        ):
            _deal(tape, command)
            return
    elif isinstance(command, c.ShuffleClosed):
        deck = state.deck_of(command.round)
        if isinstance(request, c.CloseShuffle) and deck is not None and command.name == DECK:
            tape.emit(ev.DeckRevealed(command.round, deck.shuffle_id, command.reveal))
            return
        if deck is None and command.round <= state.rounds:
            return  # a repeat
    else:
        raise InvalidAction(f"high card does not take {type(command).__name__}")
    waiting = type(request).__name__ if request is not None else "the players"
    raise NotAllowedNow(
        f"the table did not ask for {type(command).__name__}: it waits for {waiting}"
    )


def _deal(tape: _Tape, answer: c.CardsDrawn) -> None:
    cards = tuple(answer.cards)
    if answer.burned or len(cards) != 2:
        raise InvalidAction(f"a round deals two cards and burns none, got {len(cards)}")
    bad = [card for card in cards if not is_card(card)]
    if bad:
        raise InvalidAction(f"{bad[0]!r} is not a card (rank 2-9TJQKA then suit cdhs)")
    if cards[0] == cards[1]:
        raise InvalidAction(f"one deck cannot deal {cards[0]} twice")
    current = tape.state.round
    assert current is not None
    tape.emit(ev.CardsDealt(current.number, cards))
