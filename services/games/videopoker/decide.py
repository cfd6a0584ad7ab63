"""`decide` for the envelope's seat commands and the player's moves.

Each check raises the contract's RuleViolation kinds with a message the player can act on,
and nothing changes when one is raised. Chance answers are decided in `answers`; every
command's events are followed by their automatic consequences (`follow`).
"""

from __future__ import annotations

from services.games import contract as c
from services.games.errors import InvalidAction, NotAllowedNow, NotYourSeat, UnknownTarget
from services.games.videopoker import events as ev
from services.games.videopoker.answers import decide_answer
from services.games.videopoker.chance import ready_to_hold
from services.games.videopoker.follow import follow
from services.games.videopoker.moves import Deal, Hold
from services.games.videopoker.paytables import COINS, LINES, SPLIT_COINS
from services.games.videopoker.split import HAND_SIZE
from services.games.videopoker.state import MachineState, Round, Seat

SEAT = 0  # a machine has one seat


def _seat(state: MachineState, seat: int, by: str | None) -> Seat:
    if seat != SEAT:
        raise UnknownTarget(f"seat {seat} does not exist: a video poker machine has seat 0 only")
    if state.seat is None:
        raise UnknownTarget("nobody is seated at this machine")
    if by is not None and by != state.seat.player:
        raise NotYourSeat(f"seat 0 belongs to {state.seat.player}, not {by}")
    return state.seat


def _sit_down(state: MachineState, command: c.SitDown) -> list[ev.Event]:
    if command.seat != SEAT:
        raise UnknownTarget(
            f"seat {command.seat} does not exist: a video poker machine has seat 0 only"
        )
    if state.seat is not None:
        raise NotAllowedNow(f"seat 0 is taken by {state.seat.player}")
    if command.stack < 0:
        raise InvalidAction(f"a stack cannot be negative, got {command.stack}")
    return [ev.PlayerSeated(SEAT, command.player, command.stack)]


def _leave(state: MachineState, command: c.Leave) -> list[ev.Event]:
    seat = _seat(state, command.seat, command.by)
    if state.round is None:
        return [ev.PlayerLeft(SEAT, seat.player, seat.stack)]
    return [] if seat.leaving else [ev.LeaveRequested(SEAT)]


def _add_chips(state: MachineState, command: c.AddChips) -> list[ev.Event]:
    _seat(state, command.seat, command.by)
    if command.amount <= 0:
        raise InvalidAction(f"chips to add must be positive, got {command.amount}")
    return [ev.ChipsAdded(SEAT, command.amount)]


def _deal(state: MachineState, seat: Seat, move: Deal) -> list[ev.Event]:
    if state.round is not None:
        raise NotAllowedNow(f"round {state.round.number} is still in play: finish it first")
    if seat.leaving:
        raise NotAllowedNow("you asked to leave this machine: no new round starts")
    if move.lines not in LINES:
        raise InvalidAction(f"lines must be 3, 5 or 10, not {move.lines}")
    if move.coins not in (*COINS, SPLIT_COINS):
        raise InvalidAction(
            f"coins per line must be 1 to 5, or 10 for the Split Card feature, not {move.coins}"
        )
    if move.paytable not in state.config.paytables:
        offered = ", ".join(state.config.paytables)
        raise InvalidAction(f"unknown pay table {move.paytable!r}: this machine offers {offered}")
    bet = move.lines * move.coins * state.config.denomination
    if bet > seat.stack:
        raise NotAllowedNow(
            f"a bet of {move.lines} lines x {move.coins} coins is {bet} chips; "
            f"you have {seat.stack} credits"
        )
    return [ev.RoundStarted(state.rounds + 1, move.lines, move.coins, move.paytable, bet)]


def _round_named(state: MachineState, number: int) -> Round:
    """Round `number`, which must be in play (0: whichever round is in play)."""
    current = state.round
    if current is not None and number in (0, current.number):
        return current
    if number == 0:
        raise NotAllowedNow("no round is in play: deal first")
    if 1 <= number <= state.rounds:
        raise NotAllowedNow(f"round {number} is over: its hold was made and its lines paid")
    raise UnknownTarget(f"there is no round {number}: this machine has played {state.rounds}")


def _hold(state: MachineState, move: Hold) -> list[ev.Event]:
    current = _round_named(state, move.round)
    if current.hold is not None:
        held = ", ".join(map(str, current.hold)) or "none"
        raise NotAllowedNow(
            f"round {current.number}'s hold is already made (positions {held}): a round holds once"
        )
    if not ready_to_hold(current):
        raise NotAllowedNow(f"round {current.number} is still being dealt: hold once it shows")
    for index, position in enumerate(move.positions):
        if not 0 <= position < HAND_SIZE:
            raise InvalidAction(
                f"position {position} does not exist: the positions are 0 to {HAND_SIZE - 1}"
            )
        if position in move.positions[:index]:
            raise InvalidAction(f"position {position} is listed twice")
    return [ev.HoldChosen(current.number, tuple(sorted(move.positions)))]


def _void(state: MachineState, command: c.Void) -> list[ev.Event]:
    current = state.round
    if current is None:
        raise NotAllowedNow("no round is in play")
    if current.voided:
        return []
    if current.dealt:
        raise NotAllowedNow(
            f"round {current.number} is dealt: it resumes with the same cards, it is not voided"
        )
    return [ev.RoundVoided(current.number, command.reason)]


def _own(state: MachineState, command: c.Command) -> list[ev.Event]:
    if isinstance(command, c.Move):
        seat = _seat(state, command.seat, command.by)
        if isinstance(command.move, Deal):
            return _deal(state, seat, command.move)
        if isinstance(command.move, Hold):
            return _hold(state, command.move)
        raise InvalidAction(f"{type(command.move).__name__} is not a video poker move")
    if isinstance(command, c.SitDown):
        return _sit_down(state, command)
    if isinstance(command, c.Leave):
        return _leave(state, command)
    if isinstance(command, c.AddChips):
        return _add_chips(state, command)
    if isinstance(command, c.SitOut | c.SitIn):
        _seat(state, command.seat, command.by)
        raise NotAllowedNow("a video poker machine has no sitting out: leave it instead")
    if isinstance(command, c.TimeOut):
        return []  # the machine sets no deadlines: any timeout is stale
    if isinstance(command, c.Void):
        return _void(state, command)
    if isinstance(command, c.Report):
        raise NotAllowedNow("a video poker machine deals its own cards: it takes no reports")
    return decide_answer(state, command)


def decide(state: MachineState, command: c.Command) -> list[ev.Event]:
    events = _own(state, command)
    return events + follow(state, events) if events else events
