"""What a viewer sees and may do: the single place that hides information.

A machine has no secret from its player except the undealt split card: a ticket that puts
the split card in the draw decks (and so its second card) stays hidden until a line draws it
or the round ends. A spectator sees what the player sees.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.games.contract import SeatSummary, Viewer
from services.games.videopoker import events as ev
from services.games.videopoker.chance import ready_to_hold
from services.games.videopoker.moves import LegalMoves
from services.games.videopoker.paytables import COINS, LINES, SPLIT_COINS
from services.games.videopoker.split import STUB
from services.games.videopoker.state import MachineState, Round


@dataclass(frozen=True, slots=True)
class RoundView:
    number: int
    lines: int
    coins: int
    paytable: str
    bet: int
    phase: str  # betting, dealing, holding, drawing, paying, closing, ended, voided
    cards: tuple[str, ...]  # positions 0..4 ("Kh|Qh" for a dealt split card)
    split_position: int  # -1 when no split card is dealt
    held: tuple[int, ...] | None
    results: tuple[ev.LineResult, ...]
    win: int
    commitments: tuple[tuple[str, str], ...]  # (shuffle name, commitment)


@dataclass(frozen=True, slots=True)
class MachineView:
    player: str | None
    credits: int
    round: RoundView | None
    last: RoundView | None
    paytables: tuple[str, ...]
    denomination: int
    moves: LegalMoves


def phase(current: Round, ended: bool) -> str:
    if current.voided:
        return "voided"
    if ended:
        return "ended"
    if not current.bet_taken:
        return "betting"
    if current.hold is None:
        return "holding" if ready_to_hold(current) else "dealing"
    if not current.settled:
        return "drawing"
    if current.win and not current.win_paid:
        return "paying"
    return "closing"


def round_view(current: Round, ended: bool) -> RoundView:
    cards = tuple(current.shown(position) for position in range(len(current.dealt)))
    return RoundView(
        number=current.number,
        lines=current.lines,
        coins=current.coins,
        paytable=current.paytable,
        bet=current.bet,
        phase=phase(current, ended),
        cards=cards,
        split_position=current.split_position if current.split_dealt else STUB,
        held=current.hold,
        results=current.results,
        win=current.win,
        commitments=tuple((deck.name, deck.commitment) for deck in current.decks),
    )


def legal_moves(state: MachineState, participant: int) -> LegalMoves:
    seat = state.seat
    if participant != 0 or seat is None:
        return LegalMoves()
    current = state.round
    if current is not None:
        return LegalMoves(hold_round=current.number if ready_to_hold(current) else 0)
    if seat.leaving:
        return LegalMoves()
    denomination = state.config.denomination
    affordable = min(LINES) * min(COINS) * denomination <= seat.stack
    return LegalMoves(
        deal=affordable,
        lines=LINES,
        coins=(*COINS, SPLIT_COINS),
        paytables=state.config.paytables,
        credits=seat.stack,
    )


def to_act(state: MachineState) -> frozenset[int]:
    moves = legal_moves(state, 0)
    return frozenset({0}) if moves.deal or moves.hold_round else frozenset()


def view_for(state: MachineState, viewer: Viewer) -> MachineView:
    seat = state.seat
    return MachineView(
        player=seat.player if seat else None,
        credits=seat.stack if seat else 0,
        round=round_view(state.round, False) if state.round else None,
        last=round_view(state.last, True) if state.last else None,
        paytables=state.config.paytables,
        denomination=state.config.denomination,
        moves=legal_moves(state, 0) if viewer == 0 else LegalMoves(),
    )


def redact(event: ev.Event, viewer: Viewer) -> ev.Event | None:
    """The stub split ticket is sent to nobody while the round is played (the round's record
    has it once the decks are revealed); every other event is public."""
    if isinstance(event, ev.SplitPlaced) and event.position == STUB:
        return None
    return event


def seats(state: MachineState) -> tuple[SeatSummary, ...]:
    seat = state.seat
    if seat is None:
        return ()
    return (SeatSummary(0, seat.player, seat.stack, in_round=state.round is not None),)
