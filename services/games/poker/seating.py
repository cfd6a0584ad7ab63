"""Seat commands: sit down, leave, sit out and in, top up, void a hand (part of `decide`)."""

from __future__ import annotations

from services.games.errors import InvalidAction, NotAllowedNow, NotYourSeat, UnknownTarget
from services.games.poker.commands import LeaveTable, SitDown, SitIn, SitOut, TopUp, VoidHand
from services.games.poker.events import (
    ChipsAdded,
    Event,
    HandVoided,
    LeaveRequested,
    PlayerLeft,
    PlayerSatIn,
    PlayerSatOut,
    PlayerSeated,
)
from services.games.poker.state import HandState, SeatState, TableState


def occupied(state: TableState, seat: int, by: str | None) -> SeatState:
    if not 0 <= seat < len(state.seats):
        raise UnknownTarget(f"seat {seat} does not exist: seats are 0-{len(state.seats) - 1}")
    occupant = state.seats[seat]
    if occupant is None:
        raise UnknownTarget(f"seat {seat} is empty")
    if by is not None and by != occupant.player:
        raise NotYourSeat(f"seat {seat} belongs to {occupant.player}, not {by}")
    return occupant


def in_hand(state: TableState, seat: int) -> bool:
    return state.hand is not None and any(p.seat == seat for p in state.hand.players)


def sit_down(state: TableState, c: SitDown) -> list[Event]:
    config = state.config
    if not 0 <= c.seat < len(state.seats):
        raise UnknownTarget(f"seat {c.seat} does not exist: seats are 0-{len(state.seats) - 1}")
    if state.seats[c.seat] is not None:
        raise NotAllowedNow(f"seat {c.seat} is taken")
    if any(s is not None and s.player == c.player for s in state.seats):
        raise NotAllowedNow(f"{c.player} is already seated at this table")
    if not config.min_buy_in <= c.stack <= config.max_buy_in:
        raise InvalidAction(
            f"buy-in must be between {config.min_buy_in} and {config.max_buy_in}, not {c.stack}"
        )
    return [PlayerSeated(c.seat, c.player, c.stack)]


def leave(state: TableState, c: LeaveTable) -> list[Event]:
    occupant = occupied(state, c.seat, c.by)
    if in_hand(state, c.seat):
        return [] if occupant.leaving else [LeaveRequested(c.seat)]
    return [PlayerLeft(c.seat, occupant.player, occupant.stack)]


def sit_out(state: TableState, c: SitOut) -> list[Event]:
    occupant = occupied(state, c.seat, c.by)
    return [] if occupant.sitting_out else [PlayerSatOut(c.seat)]


def sit_in(state: TableState, c: SitIn) -> list[Event]:
    occupant = occupied(state, c.seat, c.by)
    if not occupant.sitting_out:
        raise NotAllowedNow(f"seat {c.seat} is not sitting out")
    return [PlayerSatIn(c.seat, c.post_big_blind)]


def top_up(state: TableState, c: TopUp) -> list[Event]:
    occupant = occupied(state, c.seat, c.by)
    if in_hand(state, c.seat):
        raise NotAllowedNow(f"seat {c.seat} is in hand {state.last_hand}: top up between hands")
    room = state.config.max_buy_in - occupant.stack
    if not 0 < c.amount <= room:
        raise InvalidAction(
            f"top-up must be between 1 and {room} chips (max buy-in), not {c.amount}"
        )
    return [ChipsAdded(c.seat, c.amount)]


def current_hand(state: TableState) -> HandState:
    if state.hand is None:
        raise NotAllowedNow("no hand is in progress")
    return state.hand


def void(state: TableState, c: VoidHand) -> list[Event]:
    hand = current_hand(state)
    refunds = tuple((p.seat, p.committed) for p in hand.players if p.committed)
    events: list[Event] = [HandVoided(hand.number, c.reason, refunds)]
    for i, s in enumerate(state.seats):
        if s is not None and s.leaving:
            refund = dict(refunds).get(i, 0)
            events.append(PlayerLeft(i, s.player, s.stack + refund))
    return events
