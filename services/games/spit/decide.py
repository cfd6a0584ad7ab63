"""`decide(state, command) -> events`: validate one command against the state it meets and
return its events followed by every automatic consequence, up to the next point where a
player or the dealer is needed. Raises a `RuleViolation` and changes nothing when the command
is not allowed; returns no events when it is already satisfied (a repeat, a stale timer)."""

from __future__ import annotations

from services.games import contract as c
from services.games.errors import InvalidAction, NotAllowedNow
from services.games.spit import dealing, playing, seating
from services.games.spit.events import SpitEvent
from services.games.spit.messages import phase_text
from services.games.spit.moves import Expected, MoveToSpace, PlayCard, Ready, Slap
from services.games.spit.state import SpitState
from services.games.spit.tape import Tape


def decide(state: SpitState, command: c.Command) -> list[SpitEvent]:
    return execute(state, command)[1]


def execute(state: SpitState, command: c.Command) -> tuple[SpitState, list[SpitEvent]]:
    """`decide`, and the state after its events (folded as they were decided: one pass)."""
    if isinstance(command, c.Report):
        raise NotAllowedNow(
            "a Spit table is dealt by the dealer service: it takes no dealer's reports"
        )
    tape = Tape(state)
    if isinstance(command, c.Move):
        _move(tape, command)
    elif isinstance(command, c.TimeOut):
        if command.seat in seating.SEATS:
            playing.time_out(tape, command.seat, command.deadline, command.since)
    elif isinstance(command, c.SitDown):
        seating.sit_down(tape, command)
    elif isinstance(command, c.Leave):
        seating.leave(tape, command)
    elif isinstance(command, c.SitOut):
        seating.sit_out(tape, command)
    elif isinstance(command, c.SitIn):
        seating.sit_in(tape, command)
    elif isinstance(command, c.AddChips):
        seating.add_chips(tape, command)
    elif isinstance(command, c.Void):
        seating.void(tape, command)
    elif isinstance(command, c.RoundStarts):
        seating.round_starts(tape, command)
    elif isinstance(command, c.ShuffleOpened):
        dealing.shuffle_opened(tape, command)
    elif isinstance(command, c.CardsDrawn):
        dealing.cards_drawn(tape, command)
    elif isinstance(command, c.ShuffleClosed):
        dealing.shuffle_closed(tape, command)
    else:
        raise InvalidAction(f"Spit does not take {type(command).__name__}")
    return tape.state, tape.events


def _move(tape: Tape, command: c.Move) -> None:
    seat = command.seat
    seating.owned_seat(tape.state, seat, command.by)
    expected = command.precondition
    if expected is not None and not isinstance(expected, Expected):
        raise InvalidAction(f"a Spit precondition is an Expected, not {type(expected).__name__}")
    game = tape.state.game
    if game is None:
        raise NotAllowedNow("no game is in progress")
    if game.over:
        raise NotAllowedNow(f"game {game.number} is over")
    deal = game.deal
    if expected is not None and expected.deal is not None and expected.deal != deal.number:
        raise NotAllowedNow(
            f"deal {expected.deal} is over: {phase_text(deal)}"
            if expected.deal < deal.number
            else f"there is no deal {expected.deal} yet: {phase_text(deal)}"
        )
    move = command.move
    if isinstance(move, PlayCard):
        playing.play_card(tape, seat, move, expected)
    elif isinstance(move, MoveToSpace):
        playing.move_to_space(tape, seat, move)
    elif isinstance(move, Slap):
        playing.slap(tape, seat, move)
    elif isinstance(move, Ready):
        playing.ready(tape, seat, move)
    else:
        raise InvalidAction(f"not a Spit move: {type(move).__name__}")
