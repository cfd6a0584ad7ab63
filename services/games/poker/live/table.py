"""A live-dealer poker table behind the GameRules contract: the engine's betting, pots and
chips, with the cards reported by a dealer instead of drawn from the dealer service.

`PokerRules` hands a table opened with `live_dealer` here. The engine still asks for its cards
(`chance.pending_chance` names a `NeedCards`), but the contract's `pending_chance` answers None
for it: the shell fetches nothing and the table waits for the dealer, whose reports come in as
`Report` commands. Each report is checked by the physical table model (procedures.py), rebuilt
from the hand's `LiveDeal.log`; the report and every procedure it sets off are events
(`CardReported`, `ProcedureApplied`, ...), and once a street's cards are all on the table the
engine gets them as its own `CardsDealt`, exactly as a dealer-service deal would give them.

Two procedures reach back into the engine's hand, both by restoring a hand state recorded on
the way (never by computing one): a misdeal returns the hand to the state its blinds left it in
(every chip put in since goes back to its seat, the blinds stay posted), and a flop dealt with
too many cards returns the hand to the state before that flop (nobody has acted on it).

Pure: no I/O, clock or randomness.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from services.games import contract as c
from services.games.cards import Card as PhysicalCard
from services.games.cards import parse_card
from services.games.cardtext import Card, is_card
from services.games.errors import InvalidAction, NotAllowedNow
from services.games.poker.chance import NeedCards, NeedHandStart, NeedRanks, rank_requests
from services.games.poker.chance import pending_chance as engine_request
from services.games.poker.commands import StartHand
from services.games.poker.definitions import Betting, DealHole
from services.games.poker.events import (
    Action,
    ActionTaken,
    BettingRoundClosed,
    CardReported,
    CardsDealt,
    Event,
    HandStarted,
    IrregularityReported,
    ProcedureApplied,
)
from services.games.poker.flow import advance
from services.games.poker.live import procedures as p
from services.games.poker.live.reports import (
    BOARD,
    BURN,
    CARD_EXPOSED,
    IRREGULARITIES,
    RECIPIENTS,
    SEAT,
    DealtCard,
    Irregularity,
)
from services.games.poker.reducer import apply as apply_to_engine
from services.games.poker.requests import rake_key
from services.games.poker.rules import decide as engine_decide
from services.games.poker.state import HandState, LiveDeal, SeatState, TableState, evolve
from services.games.poker.table import PokerTable
from services.games.poker.table import apply as apply_electronic

Decide = Callable[[PokerTable, c.Command], list[Event]]

# The procedures' events that are a procedure (the others, a card dealt or burned, a bet, the
# round closed, are the report itself or the engine's own events).
_PROCEDURES: Final = frozenset(
    {
        "misdeal",
        "card_exposed",
        "exposed_card_burned",
        "exposed_card_replaced",
        "flop_redealt",
        "card_out_of_play",
        "deck_reshuffled",
        "extra_card_burned",
        "extra_card_returned",
    }
)
# Procedures whose cards everyone saw (the others concern face-down cards: none are shown).
_PUBLIC_CARDS: Final = frozenset(
    {"card_exposed", "exposed_card_burned", "flop_redealt", "card_out_of_play", "deck_reshuffled"}
)
_DEALT_STREETS: Final = (p.Street.FLOP, p.Street.TURN, p.Street.RIVER)


# --- what the table needs from outside --------------------------------------------------------


def pending_chance(table: PokerTable) -> c.ChanceRequest | None:
    """The electronic table's requests without the dealer service: no shuffle is opened or
    revealed, and the cards a hand needs come from the dealer's reports (None: wait)."""
    engine = table.engine
    if engine.hand is None and table.rake_due:
        return c.Transfer(rake_key(table.rake_due), c.Party.ESCROW, c.Party.HOUSE, table.rake)
    request = engine_request(engine)
    if isinstance(request, NeedHandStart):
        return c.StartRound(engine.last_hand + 1)
    if isinstance(request, NeedRanks):
        return c.Evaluate(rank_requests(engine))
    return None  # a player to act, the dealer to report cards, or players to join


# --- commands ------------------------------------------------------------------------------


def decide(table: PokerTable, command: c.Command, electronic: Decide) -> list[Event]:
    if isinstance(command, c.Report):
        events = _report(table, command.report)
    elif isinstance(command, c.RoundStarts):
        return _round_starts(table, command)
    elif isinstance(command, c.ShuffleOpened | c.CardsDrawn | c.CardsReturned | c.ShuffleClosed):
        raise NotAllowedNow("a live-dealer table deals no cards from the dealer service")
    else:
        events = electronic(table, command)
    return events + _rounds_closed(_fold(table, events))


def _round_starts(table: PokerTable, command: c.RoundStarts) -> list[Event]:
    request = pending_chance(table)
    if isinstance(request, c.StartRound) and request.round == command.round:
        return engine_decide(table.engine, StartHand())
    if command.round <= table.engine.last_hand:
        return []  # a repeat: that hand started already
    raise NotAllowedNow(f"the table is not ready to start hand {command.round}")


def _report(table: PokerTable, report: DealtCard | Irregularity) -> list[Event]:
    hand = table.engine.hand
    if hand is None or table.live is None or table.live.redeal_point is None:
        raise NotAllowedNow("no hand is being dealt: wait for the next hand to start")
    pinned = report.round
    if pinned and pinned != hand.number:
        raise NotAllowedNow(f"hand {hand.number} is being dealt, not hand {pinned}")
    if isinstance(report, DealtCard):
        return _card(table, hand, report)
    return _irregularity(table, hand, report)


def _card(table: PokerTable, hand: HandState, report: DealtCard) -> list[Event]:
    if not is_card(report.card):
        raise InvalidAction(f"{report.card!r} is not a card (rank 2-9TJQKA then suit cdhs)")
    if report.to not in RECIPIENTS:
        raise InvalidAction(f"a card goes to one of {', '.join(RECIPIENTS)}, not {report.to!r}")
    if (report.to == SEAT) != (report.seat is not None):
        raise InvalidAction("name the seat for a hole card, and only for a hole card")
    recipient: int | str = report.seat if report.seat is not None else report.to
    if recipient == BOARD:
        recipient = p.BOARD
    elif recipient == BURN:
        recipient = p.BURN
    before = live_hand(table)
    command = p.ReportCard(parse_card(report.card), report.face_up, recipient)
    after, happened = _handle(before, command)
    reported = CardReported(hand.number, report.card, report.to, report.seat, report.face_up)
    events: list[Event] = [reported, *_procedures(hand.number, happened)]
    if not any(e.kind in ("misdeal", "flop_redealt") for e in happened):
        events += _engine_deal(_fold(table, events), before, after)
    return events


def _irregularity(table: PokerTable, hand: HandState, report: Irregularity) -> list[Event]:
    if report.kind not in IRREGULARITIES:
        raise InvalidAction(
            f"an irregularity is one of {', '.join(IRREGULARITIES)}, not {report.kind!r}"
        )
    if report.kind == CARD_EXPOSED and not is_card(report.card):
        raise InvalidAction(f"{report.card!r} is not a card (rank 2-9TJQKA then suit cdhs)")
    declared = IrregularityReported(hand.number, report.kind, report.reason, report.card)
    _, happened = _handle(live_hand(table), _command(declared))
    return [declared, *_procedures(hand.number, happened)]


def _handle(hand: p.LiveHand, command: p.Command) -> tuple[p.LiveHand, tuple[p.Event, ...]]:
    try:
        return p.handle(hand, command)
    except p.ReportError as error:
        if error.precondition:
            raise NotAllowedNow(str(error)) from error
        raise InvalidAction(str(error)) from error


def _procedures(hand: int, happened: Sequence[p.Event]) -> list[Event]:
    return [
        ProcedureApplied(
            hand,
            e.kind,
            e.explanation,
            tuple([str(card) for card in e.cards]) if e.kind in _PUBLIC_CARDS else (),
            e.seat,
        )
        for e in happened
        if e.kind in _PROCEDURES
    ]


def _engine_deal(table: PokerTable, before: p.LiveHand, after: p.LiveHand) -> list[Event]:
    """The engine's own events once a street's cards are all on the table: the hole cards
    when the deal is complete (replacement included), a board street once its cards are
    turned (with the burn cards it has not seen), then everything automatic after them."""
    engine = table.engine
    hand = engine.hand
    assert hand is not None
    request = engine_request(engine)
    if not isinstance(request, NeedCards):
        return []
    if before.street is p.Street.DEAL and after.street is p.Street.PREFLOP:
        dealt: list[Event] = [
            CardsDealt(seat, tuple([str(card) for card in after.holes[seat]]), request.face_up)
            for seat, _ in request.targets
            if seat is not None
        ]
    elif after.street is not before.street and after.street in _DEALT_STREETS:
        new = tuple([str(card) for card in after.board[len(hand.board) :]])
        burned = tuple([str(card) for card in after.burns if str(card) not in hand.out])
        dealt = [CardsDealt(None, new, True, burned)]
    else:
        return []
    state = engine
    for event in dealt:
        state = apply_to_engine(state, event)
    return dealt + advance(state)[1]


def _rounds_closed(table: PokerTable) -> list[Event]:
    """`BettingRoundClosed` (and what the procedures do then) when the engine's betting round
    the live hand is in is over: the last action was taken, or nobody can act (all in)."""
    engine = table.engine
    hand = engine.hand
    if hand is None or table.live is None or table.live.redeal_point is None:
        return []
    live = live_hand(table)
    if not live.betting_open or live.street is p.Street.DONE:
        return []
    if isinstance(engine.phase(), Betting) and hand.to_act is not None:
        return []
    _, happened = _handle(live, p.CloseRound())
    return [BettingRoundClosed(hand.number), *_procedures(hand.number, happened)]


def _fold(table: PokerTable, events: Sequence[Event]) -> PokerTable:
    for event in events:
        table = apply(table, event)
    return table


# --- folding events in ---------------------------------------------------------------------


def apply(table: PokerTable, event: Event) -> PokerTable:
    live = table.live
    assert live is not None  # PokerRules sends only a live-dealer table here
    if isinstance(event, CardReported | IrregularityReported | BettingRoundClosed):
        return evolve(table, live=evolve(live, log=(*live.log, event)))
    if isinstance(event, ProcedureApplied):
        return _procedure(table, live, event)
    after = apply_electronic(table, event)
    if isinstance(event, HandStarted):
        return evolve(after, live=LiveDeal())
    engine = after.engine
    hand = engine.hand
    if hand is None:
        return after
    if isinstance(event, ActionTaken):
        live = evolve(live, log=(*live.log, event))
    elif isinstance(event, CardsDealt) and event.seat is None:
        live = evolve(live, before_board=table.engine.hand)
    if live.redeal_point is None and _hole_deal_due(engine):
        live = evolve(live, redeal_point=hand)
    return evolve(after, live=live)


def _hole_deal_due(engine: TableState) -> bool:
    return isinstance(engine.phase(), DealHole) and isinstance(engine_request(engine), NeedCards)


def _procedure(table: PokerTable, live: LiveDeal, event: ProcedureApplied) -> PokerTable:
    engine = table.engine
    if event.kind == "misdeal" and live.redeal_point is not None:
        engine = _rewound(engine, live.redeal_point)
        live = LiveDeal(redeal_point=live.redeal_point, redeals=live.redeals + 1)
    elif event.kind == "flop_redealt" and engine.hand is not None and engine.hand.board:
        assert live.before_board is not None  # the flop the engine has came with it
        engine = evolve(engine, hand=live.before_board)
        live = evolve(live, before_board=None)
    return evolve(table, engine=engine, live=live)


def _rewound(engine: TableState, point: HandState) -> TableState:
    """The engine with the hand as its blinds left it: every chip put in since back behind
    its seat (the seats' other changes, a player sitting down meanwhile, are kept)."""
    hand = engine.hand
    assert hand is not None
    posted = {player.seat: player.committed for player in point.players}
    seats: list[SeatState | None] = list(engine.seats)
    for player in hand.players:
        seat = seats[player.seat]
        back = player.committed - posted[player.seat]
        if seat is not None and back:
            seats[player.seat] = evolve(seat, stack=seat.stack + back)
    return evolve(engine, seats=tuple(seats), hand=point)


# --- the physical table ----------------------------------------------------------------------

_LAST: list[tuple[LiveDeal | None, p.LiveHand | None]] = [(None, None)]


def live_hand(table: PokerTable) -> p.LiveHand:
    """The physical table of the current hand, rebuilt from its log (remembered for the last
    deal asked about: the state is immutable, so the same object gives the same table)."""
    live = table.live
    assert live is not None and live.redeal_point is not None
    last = _LAST[0]
    if last[0] is live and last[1] is not None:
        return last[1]
    point = live.redeal_point
    order = [player.seat for player in point.clockwise_from(point.button)]
    posted = {player.seat: player.committed for player in point.players}
    # The engine keeps the chips: the physical table needs only who is dealt in, in order.
    hand = p.new_hand(
        tuple(order), posted, {seat: chips for seat, chips in posted.items() if chips}
    )
    for entry in live.log:
        hand, _ = p.handle(hand, _command(entry))
    _LAST[0] = (live, hand)
    return hand


def _command(entry: object) -> p.Command:
    if isinstance(entry, CardReported):
        recipient: int | str = entry.seat if entry.seat is not None else entry.to
        if recipient == BURN:
            recipient = p.BURN
        elif recipient == BOARD:
            recipient = p.BOARD
        return p.ReportCard(_physical(entry.card), entry.face_up, recipient)
    if isinstance(entry, ActionTaken):
        return p.Fold(entry.seat) if entry.action == Action.FOLD else p.Acted(entry.seat)
    if isinstance(entry, IrregularityReported):
        if entry.kind == CARD_EXPOSED:
            return p.Expose(_physical(entry.card))
        return p.DeclareMisdeal(entry.reason)
    assert isinstance(entry, BettingRoundClosed), entry
    return p.CloseRound()


def _physical(card: Card) -> PhysicalCard:
    return parse_card(card)
