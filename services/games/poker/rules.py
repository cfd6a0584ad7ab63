"""`decide(state, command) -> events`: validates a command and says what happens.

Never mutates anything; raises a `RuleViolation` (nothing happened) or returns the events of
the command followed by every automatic consequence (see `flow.advance`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.games.cardtext import card_order, is_card
from services.games.errors import InvalidAction, NotAllowedNow, UnknownTarget
from services.games.poker.betting import options
from services.games.poker.chance import NeedHandStart
from services.games.poker.chance import pending_chance as _pending
from services.games.poker.chance_rules import deal, reshuffle, supply_ranks
from services.games.poker.commands import (
    Act,
    Command,
    DealCards,
    LeaveTable,
    ReshuffleDiscards,
    SitDown,
    SitIn,
    SitOut,
    StartHand,
    SupplyHandRanks,
    TimeOut,
    TopUp,
    VoidHand,
)
from services.games.poker.definitions import Betting, Draw, Showdown
from services.games.poker.events import (
    Action,
    ActionTaken,
    BoardDeclared,
    CardsDiscarded,
    CardsShown,
    Event,
    HandMucked,
    PlayerSatOut,
    TimedOut,
)
from services.games.poker.flow import advance
from services.games.poker.legal import legal_actions
from services.games.poker.plan import BETTING, plan_of
from services.games.poker.reducer import apply, fold_hole_cards
from services.games.poker.seating import (
    current_hand,
    in_hand,
    leave,
    occupied,
    sit_down,
    sit_in,
    sit_out,
    top_up,
    void,
)
from services.games.poker.starting import start_hand
from services.games.poker.state import HandState, TableState


def decide(state: TableState, command: Command) -> list[Event]:
    """The events `command` causes (its own, then every automatic consequence)."""
    return execute(state, command)[1]


def execute(state: TableState, command: Command) -> tuple[TableState, list[Event]]:
    """`decide` plus the state after its events: saves the caller folding them in again."""
    # The two frequent commands are called directly (native calls when compiled), the rest
    # through the table of handlers.
    events: list[Event]
    if type(command) is Act:
        events = _act(state, command)
    elif type(command) is DealCards:
        events = deal(state, command)
        if len(events) > 1:
            return _advanced(fold_hole_cards(state, events), events)  # type: ignore[arg-type]
    else:
        handler = _HANDLERS.get(type(command))
        if handler is None:
            raise InvalidAction(f"unknown command {type(command).__name__}")
        events = handler(state, command)
    for event in events:
        state = apply(state, event)
    return _advanced(state, events)


def _advanced(state: TableState, events: list[Event]) -> tuple[TableState, list[Event]]:
    """The state and events once the automatic consequences of `events` are folded in."""
    state, automatic = advance(state)
    if automatic:
        return state, events + automatic
    return state, events


def _start(state: TableState, c: StartHand) -> list[Event]:
    if state.hand is not None:
        raise NotAllowedNow(f"hand {state.hand.number} is still in progress")
    if not isinstance(_pending(state), NeedHandStart):
        raise NotAllowedNow("a hand needs two or more players sitting in with chips")
    return start_hand(state)


# --- player decisions --------------------------------------------------------------------


def _check_turn(state: TableState, seat: int, hand_number: int | None, by: str | None) -> None:
    hand = state.hand
    if (
        hand is not None
        and hand.to_act == seat
        and (hand_number is None or hand_number == hand.number)
    ):
        # The common case, the seat to act acting: it is seated and in the hand (`to_act` is
        # always one of the hand's players), so only the owner and replacement cards remain
        # to check, in the same order as below.
        if by is not None:
            occupied(state, seat, by)
        if hand.player(seat).awaiting:
            raise NotAllowedNow(f"seat {seat} is waiting for replacement cards")
        return
    hand = current_hand(state)
    if hand_number is not None and hand_number != hand.number:
        if hand_number < hand.number:
            raise NotAllowedNow(f"hand {hand_number} is over; hand {hand.number} is in progress")
        raise UnknownTarget(f"hand {hand_number} does not exist; hand {hand.number} is in progress")
    occupied(state, seat, by)
    if not in_hand(state, seat):
        raise NotAllowedNow(f"seat {seat} is not in hand {hand.number}")
    if hand.to_act is None:
        raise NotAllowedNow(f"no player is to act in hand {hand.number}: waiting for the dealer")
    if hand.to_act != seat:
        whose = state.seats[hand.to_act]
        name = f" ({whose.player})" if whose else ""
        raise NotAllowedNow(f"it is seat {hand.to_act}'s turn{name}, not seat {seat}'s")
    if hand.player(seat).awaiting:
        raise NotAllowedNow(f"seat {seat} is waiting for replacement cards")


def _act(state: TableState, c: Act) -> list[Event]:
    _check_turn(state, c.seat, c.hand, c.by)
    if c.action not in _ALL_ACTIONS:
        raise InvalidAction(f"unknown action {c.action!r}: one of {', '.join(sorted(Action.ALL))}")
    hand = state.hand
    assert hand is not None  # `_check_turn` passed
    if hand.phase >= 0:
        kind = plan_of(state.config).kinds[hand.phase]
        if kind == BETTING:  # the common case, without the isinstance chain
            return _bet(state, hand, c)
    phase = state.phase()
    if isinstance(phase, Draw):
        return _discard(state, hand, c, phase)
    if isinstance(phase, Showdown):
        return _showdown(state, c)
    raise NotAllowedNow("no player decision is pending")


_ALL_ACTIONS = Action.ALL


def _bet(state: TableState, hand: HandState, c: Act) -> list[Event]:
    seat = c.seat
    o = options(state, hand, seat)
    stack = o.stack
    action = c.action
    if action == Action.FOLD:
        if o.can_check:
            raise InvalidAction(f"seat {seat} faces no bet: check instead of folding")
        return [ActionTaken(seat, Action.FOLD, o.bet, 0)]
    if action == Action.CHECK:
        if not o.can_check:
            raise InvalidAction(
                f"cannot check facing a bet of {hand.current_bet}: call {o.to_call}, raise or fold"
            )
        return [ActionTaken(seat, Action.CHECK, o.bet, 0)]
    if action == Action.CALL:
        if o.can_check:
            raise InvalidAction("nothing to call: check or bet")
        return [ActionTaken(seat, Action.CALL, o.bet + o.to_call, o.to_call, o.to_call == stack)]
    if action == Action.ALL_IN:
        if not o.all_in_legal:
            raise InvalidAction(_no_raise_reason(state, hand, o.to_call, stack))
        return [ActionTaken(seat, Action.ALL_IN, o.all_in_to, stack, True)]
    if action in (Action.BET, Action.RAISE):
        if c.amount is None:
            raise InvalidAction(f"{action} needs an amount: the total to {action} to")
        if o.all_in_legal and c.amount == o.all_in_to and (o.raise_kind is None):
            return [ActionTaken(seat, Action.ALL_IN, o.all_in_to, stack, True)]
        if o.raise_kind is None:
            raise InvalidAction(_no_raise_reason(state, hand, o.to_call, stack))
        if action != o.raise_kind:
            if action == Action.BET:
                raise InvalidAction(f"there is a bet of {hand.current_bet}: raise instead of bet")
            raise InvalidAction("there is no bet to raise: bet instead")
        if not o.min_to <= c.amount <= o.max_to:
            raise InvalidAction(
                f"{action} must be to between {o.min_to} and {o.max_to}, not {c.amount}"
            )
        added = c.amount - o.bet
        return [ActionTaken(seat, action, c.amount, added, added == stack)]
    raise InvalidAction(f"{action} is not a betting action: betting is in progress")


def _no_raise_reason(state: TableState, hand: HandState, to_call: int, stack: int) -> str:
    if stack <= to_call:
        return f"seat cannot raise: all {stack} chips only call"
    legal = legal_actions(state, hand.to_act or 0)
    return (
        "raising is not allowed now (betting capped, not reopened by a short all-in, or "
        f"no opponent can call): legal actions are {', '.join(sorted(legal.actions))}"
    )


def _discard(state: TableState, hand: HandState, c: Act, phase: Draw) -> list[Event]:
    p = hand.player(c.seat)
    wanted = Action.OPEN_DISCARD if phase.face_up else Action.DISCARD
    if c.action != wanted:
        raise InvalidAction(f"this is the {phase.name}: {wanted} (cards) is the only action")
    cards = tuple(c.cards)
    held = p.cards
    for card in cards:
        if card in held:
            continue  # a held card is a well-formed card: the common case
        if not is_card(card):
            raise InvalidAction(f"{card!r} is not a card (rank 2-9TJQKA then suit cdhs)")
        if card not in held:
            if card in hand.board and state.config.game.board_rank_wild:
                raise InvalidAction(f"the spit card {card} can never be discarded")
            raise InvalidAction(f"{card} is not in seat {c.seat}'s hand")
    if len(set(cards)) != len(cards):
        raise InvalidAction("a card is listed twice in the discard")
    limit = state.config.max_discards(phase)
    if not phase.min_discards <= len(cards) <= limit:
        if phase.min_discards == limit:
            raise InvalidAction(f"discard exactly {limit} card(s), not {len(cards)}")
        raise InvalidAction(
            f"the draw limit is {limit} card(s) (at least {phase.min_discards}); "
            f"{len(cards)} discarded"
        )
    return [CardsDiscarded(c.seat, cards, phase.face_up)]


def _showdown(state: TableState, c: Act) -> list[Event]:
    hand = current_hand(state)
    if c.action == Action.SHOW:
        return [CardsShown(c.seat, hand.player(c.seat).cards)]
    if c.action == Action.MUCK:
        return [HandMucked(c.seat)]
    if c.action == Action.DECLARE_BOARD:
        if not (state.config.game.board_can_play and len(hand.board) >= 5):
            raise InvalidAction("declare-board needs a five-card community board")
        return [BoardDeclared(c.seat)]
    raise InvalidAction(f"{c.action} is not allowed at showdown: show, muck or declare-board")


def _time_out(state: TableState, c: TimeOut) -> list[Event]:
    """A stale timeout (the seat already acted, or another hand) is a no-op: no events."""
    hand = state.hand
    if hand is None or hand.to_act != c.seat or (c.hand is not None and c.hand != hand.number):
        return []
    if hand.player(c.seat).awaiting:
        return []
    phase = state.phase()
    p = hand.player(c.seat)
    default: Act
    if isinstance(phase, Betting):
        can_check = options(state, hand, c.seat).can_check
        default = Act(c.seat, Action.CHECK if can_check else Action.FOLD)
    elif isinstance(phase, Draw):
        if phase.face_up or phase.min_discards:
            chosen = tuple(sorted(p.cards, key=card_order)[: phase.min_discards])
            default = Act(
                c.seat, Action.OPEN_DISCARD if phase.face_up else Action.DISCARD, cards=chosen
            )
        else:
            default = Act(c.seat, Action.DISCARD)
    elif isinstance(phase, Showdown):
        default = Act(c.seat, Action.SHOW if _would_win(hand, c.seat) else Action.MUCK)
    else:
        return []
    events = _act(state, default)
    seat = state.seats[c.seat]
    assert seat is not None
    events.append(TimedOut(c.seat))
    limit = state.config.timeouts_before_sit_out
    if limit and seat.timeouts + 1 >= limit and not seat.sitting_out:
        events.append(PlayerSatOut(c.seat, "timeouts"))
    return events


def _would_win(hand: HandState, seat: int) -> bool:
    """Whether this hand wins or ties some half against every hand still in (known to the
    engine from the evaluator's ranks): the timeout default shows it, otherwise mucks."""
    mine = hand.rank_of(seat)
    if mine is None:
        return True
    others = [
        hand.rank_of(p.seat)
        for p in hand.players
        if not p.folded and not p.mucked and p.seat != seat
    ]
    ranks = [r for r in others if r is not None]
    if all(mine.high.strength >= r.high.strength for r in ranks):
        return True
    if mine.low is None:
        return False
    return all(r.low is None or mine.low.strength >= r.low.strength for r in ranks)


_HANDLERS: dict[type, Callable[[TableState, Any], list[Event]]] = {
    SitDown: sit_down,
    LeaveTable: leave,
    SitOut: sit_out,
    SitIn: sit_in,
    TopUp: top_up,
    StartHand: _start,
    VoidHand: void,
    Act: _act,
    TimeOut: _time_out,
    DealCards: deal,
    ReshuffleDiscards: reshuffle,
    SupplyHandRanks: supply_ranks,
}
