"""The envelope's seat commands for a two-seat Spit table, and the start of each game.

A game starts (the shell answers `StartRound`) when both seats are taken, nobody sits out and
both stacks cover the stake; each player's stake leaves their stack then, and the winner's
`GameEnded` payout brings back both. Leaving during a game concedes it: the opponent wins
(and the stakes) at once, and the seat is free. Sitting out and adding chips take effect
between games.
"""

from __future__ import annotations

from services.games.contract import (
    AddChips,
    Leave,
    RoundStarts,
    SitDown,
    SitIn,
    SitOut,
    StartRound,
    Void,
)
from services.games.errors import InvalidAction, NotAllowedNow, NotYourSeat
from services.games.spit import events as ev
from services.games.spit.chance import can_start_game, pending_chance
from services.games.spit.progress import end_game
from services.games.spit.state import Seat, SpitState, other
from services.games.spit.tape import Tape

SEATS = (0, 1)


def owned_seat(state: SpitState, seat: int, by: str | None) -> Seat:
    if seat not in SEATS:
        raise InvalidAction(f"a Spit table has seats 0 and 1, not {seat}")
    value = state.seats[seat]
    if value is None:
        raise NotAllowedNow(f"seat {seat} is empty")
    if by is not None and by != value.player:
        raise NotYourSeat(f"seat {seat} is {value.player}'s, not {by}'s")
    return value


def sit_down(tape: Tape, command: SitDown) -> None:
    state = tape.state
    if command.seat not in SEATS:
        raise InvalidAction(f"a Spit table has seats 0 and 1, not {command.seat}")
    if not command.player:
        raise InvalidAction("a player id is required to sit down")
    config = state.config
    if not config.min_buy_in <= command.stack <= config.max_buy_in:
        raise InvalidAction(
            f"bring {config.min_buy_in} to {config.max_buy_in} chips to this table, "
            f"not {command.stack}"
        )
    taken = state.seats[command.seat]
    if taken is not None:
        raise NotAllowedNow(f"seat {command.seat} is taken by {taken.player}")
    if any(s is not None and s.player == command.player for s in state.seats):
        raise NotAllowedNow(f"{command.player} is already seated at this table")
    tape.emit(ev.PlayerSeated(command.seat, command.player, command.stack))


def leave(tape: Tape, command: Leave) -> None:
    owned_seat(tape.state, command.seat, command.by)
    if tape.state.playing:
        end_game(tape, other(command.seat), "conceded")
    seat = tape.state.seats[command.seat]
    assert seat is not None
    tape.emit(ev.PlayerLeft(command.seat, seat.player, seat.stack))


def sit_out(tape: Tape, command: SitOut) -> None:
    if not owned_seat(tape.state, command.seat, command.by).sitting_out:
        tape.emit(ev.PlayerSatOut(command.seat))


def sit_in(tape: Tape, command: SitIn) -> None:
    if command.option is not None:
        raise InvalidAction("Spit has no options for sitting in: a player plays the next game")
    if owned_seat(tape.state, command.seat, command.by).sitting_out:
        tape.emit(ev.PlayerSatIn(command.seat))


def add_chips(tape: Tape, command: AddChips) -> None:
    seat = owned_seat(tape.state, command.seat, command.by)
    if command.amount <= 0:
        raise InvalidAction(f"add a positive number of chips, not {command.amount}")
    most = tape.state.config.max_buy_in - seat.stack
    if command.amount > most:
        raise InvalidAction(
            f"a stack is at most {tape.state.config.max_buy_in} chips: add at most {max(most, 0)}"
        )
    tape.emit(ev.ChipsAdded(command.seat, command.amount))


def void(tape: Tape, command: Void) -> None:
    """Abandon the game in progress: nobody wins and each stake goes back."""
    if tape.state.playing:
        end_game(tape, None, f"void: {command.reason}")


def round_starts(tape: Tape, command: RoundStarts) -> None:
    state = tape.state
    request = pending_chance(state)
    if not isinstance(request, StartRound) or request.round != command.round:
        if state.game is not None and state.game.deal.number >= command.round:
            return  # a repeat: that game already started
        raise NotAllowedNow(f"the table is not waiting to start deal {command.round}")
    assert can_start_game(state)
    stake = state.config.stake
    stacks = tuple((s.stack if s is not None else 0) - stake for s in state.seats)
    tape.emit(ev.GameStarted(state.games + 1, command.round, stake, (stacks[0], stacks[1])))
