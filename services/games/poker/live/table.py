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
from services.games.poker.chance import (
    NeedCards,
    NeedHandStart,
    NeedRanks,
    NeedReshuffle,
    rank_requests,
)
from services.games.poker.chance import pending_chance as engine_request
from services.games.poker.commands import StartHand
from services.games.poker.definitions import Betting, DealBoard, DealHole, Draw
from services.games.poker.events import (
    Action,
    ActionTaken,
    BettingRoundClosed,
    CardReported,
    CardsDealt,
    CardsDiscarded,
    DiscardsReshuffled,
    Event,
    HandStarted,
    IrregularityReported,
    ProcedureApplied,
)
from services.games.poker.flow import advance
from services.games.poker.live import draw as d
from services.games.poker.live import procedures as p
from services.games.poker.live.reports import (
    BOARD,
    BURN,
    CARD_EXPOSED,
    IRREGULARITIES,
    PLAYER_EXPOSED,
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
        "exposed_card_dead",
        "draw_card_exposed",
        "discards_reshuffled",
        "card_kept",
    }
)
# Procedures whose cards everyone saw (the others concern face-down cards: none are shown).
_PUBLIC_CARDS: Final = frozenset(
    {
        "card_exposed",
        "exposed_card_burned",
        "flop_redealt",
        "card_out_of_play",
        "deck_reshuffled",
        "exposed_card_dead",
        "draw_card_exposed",
        "card_kept",
    }
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


def next_card(table: PokerTable) -> p.Due | None:
    """The card the dealer deals next at a live table (None: none is due, or not live)."""
    live = table.live
    if live is None or live.redeal_point is None or table.engine.hand is None:
        return None
    if _is_draw(table):
        return d.next_card(draw_hand(table))
    return p.next_card(live_hand(table))


# --- commands ------------------------------------------------------------------------------


def decide(table: PokerTable, command: c.Command, electronic: Decide) -> list[Event]:
    if _is_draw(table):
        return _draw_decide(table, command, electronic)
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
    if isinstance(report, Irregularity) and report.kind == PLAYER_EXPOSED:
        return _player_exposed(hand, report)
    if isinstance(report, DealtCard):
        return _card(table, hand, report)
    return _irregularity(table, hand, report)


def _reported(report: DealtCard) -> p.ReportCard:
    """The report as the physical table's command, once it is well formed."""
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
    return p.ReportCard(parse_card(report.card), report.face_up, recipient)


def _player_exposed(hand: HandState, report: Irregularity) -> list[Event]:
    """A player exposed one of their own cards: it is theirs, shown to everyone (the rule for a
    card exposed by its player; not recorded in the physical table's log: nothing moves)."""
    if not is_card(report.card):
        raise InvalidAction(f"{report.card!r} is not a card (rank 2-9TJQKA then suit cdhs)")
    owner = next((pl.seat for pl in hand.players if report.card in pl.cards), None)
    if owner is None or hand.player(owner).folded:
        raise InvalidAction(
            f"{report.card} is not in the hand of a player still in hand {hand.number}"
        )
    declared = IrregularityReported(hand.number, report.kind, report.reason, report.card)
    kept = ProcedureApplied(
        hand.number,
        "card_kept",
        f"Seat {owner} exposed its own {report.card}: the card is theirs and stays in play.",
        (report.card,),
        owner,
    )
    return [declared, kept]


def _card(table: PokerTable, hand: HandState, report: DealtCard) -> list[Event]:
    before = live_hand(table)
    command = _reported(report)
    after, happened = _handle(before, command)
    reported = CardReported(hand.number, report.card, report.to, report.seat, report.face_up)
    events: list[Event] = [reported, *_procedures(hand.number, happened)]
    if not any(e.kind in ("misdeal", "flop_redealt") for e in happened):
        events += _engine_deal(_fold(table, events), before, after)
    return events


def _declared(hand: HandState, report: Irregularity) -> IrregularityReported:
    """The dealer's declaration of `report` in this hand, once its kind and card are valid
    (every live game, hold'em and draw, takes the same ones)."""
    if report.kind not in IRREGULARITIES:
        raise InvalidAction(
            f"an irregularity is one of {', '.join(IRREGULARITIES)}, not {report.kind!r}"
        )
    if report.kind == CARD_EXPOSED and not is_card(report.card):
        raise InvalidAction(f"{report.card!r} is not a card (rank 2-9TJQKA then suit cdhs)")
    return IrregularityReported(hand.number, report.kind, report.reason, report.card)


def _irregularity(table: PokerTable, hand: HandState, report: Irregularity) -> list[Event]:
    declared = _declared(hand, report)
    _, happened = _handle(live_hand(table), _command(declared))
    return [declared, *_procedures(hand.number, happened)]


def _handle(hand: p.LiveHand, command: p.Command) -> tuple[p.LiveHand, tuple[p.Event, ...]]:
    try:
        return p.handle(hand, command)
    except p.ReportError as error:
        if error.precondition:
            raise NotAllowedNow(str(error)) from error
        raise InvalidAction(str(error)) from error


def _draw_handle(
    hand: d.DrawHand, command: d.DrawCommand
) -> tuple[d.DrawHand, tuple[p.Event, ...]]:
    try:
        return d.handle(hand, command)
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
    if isinstance(event, IrregularityReported) and event.kind == PLAYER_EXPOSED:
        return table  # nothing moves: the procedure's event says what everyone saw
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
    if isinstance(event, ActionTaken | CardsDiscarded | DiscardsReshuffled):
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
    known = _known_prefix(last[0], live)
    if known and last[1] is not None:
        hand = last[1]  # the remembered deal's log is where this one's starts: go on from it
    else:
        point = live.redeal_point
        order = [player.seat for player in point.clockwise_from(point.button)]
        posted = {player.seat: player.committed for player in point.players}
        # The engine keeps the chips: the physical table needs only who is dealt in, in order.
        hand = p.new_hand(
            tuple(order), posted, {seat: chips for seat, chips in posted.items() if chips}
        )
    for entry in live.log[known:]:
        hand, _ = p.handle(hand, _command(entry))
    _LAST[0] = (live, hand)
    return hand


def _known_prefix(last: LiveDeal | None, live: LiveDeal) -> int:
    """How many entries of `live`'s log are the remembered deal's whole log (the same deal
    with more reported since), else 0: the physical table is then built on, not rebuilt."""
    if last is None or last.redeal_point is not live.redeal_point or last.redeals != live.redeals:
        return 0
    before, now = last.log, live.log
    if len(before) > len(now) or any(a is not b for a, b in zip(before, now, strict=False)):
        return 0
    return len(before)


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


# --- the draw games ----------------------------------------------------------------------------
#
# Six-Card Open Draw and Spit in the Ocean: the physical table is draw.py's. The engine gets the
# starting hands once the deal is complete (replacement included, the dead exposed card with
# them so its stub counts it out), Spit's board card when it is turned, and each player's draw
# once its cards are dealt. A card the dealer exposes in the draw is replaced after every other
# player has drawn: the engine's draw then completes without that card, and what follows it
# (the betting) is held back until the replacement is dealt.


def _is_draw(table: PokerTable) -> bool:
    return any(isinstance(phase, Draw) for phase in table.engine.config.game.phases)


def _draw_decide(table: PokerTable, command: c.Command, electronic: Decide) -> list[Event]:
    if isinstance(command, c.Report):
        events = _draw_report(table, command.report)
    elif isinstance(command, c.RoundStarts):
        return _round_starts(table, command)
    elif isinstance(command, c.ShuffleOpened | c.CardsDrawn | c.CardsReturned | c.ShuffleClosed):
        raise NotAllowedNow("a live-dealer table deals no cards from the dealer service")
    else:
        events = _held(table, electronic(table, command))
    return events + _short_stub(_fold(table, events))


def _draw_report(table: PokerTable, report: DealtCard | Irregularity) -> list[Event]:
    hand = table.engine.hand
    if hand is None or table.live is None or table.live.redeal_point is None:
        raise NotAllowedNow("no hand is being dealt: wait for the next hand to start")
    pinned = report.round
    if pinned and pinned != hand.number:
        raise NotAllowedNow(f"hand {hand.number} is being dealt, not hand {pinned}")
    if isinstance(report, Irregularity):
        if report.kind == PLAYER_EXPOSED:
            return _player_exposed(hand, report)
        declared = _declared(hand, report)
        after, happened = _draw_handle(draw_hand(table), _draw_command(declared))
        reported: Event = declared
    else:
        after, happened = _draw_handle(draw_hand(table), _reported(report))
        reported = CardReported(hand.number, report.card, report.to, report.seat, report.face_up)
    events: list[Event] = [reported, *_procedures(hand.number, happened)]
    if not any(e.kind == "misdeal" for e in happened):
        events += _draw_engine_deal(_fold(table, events), after)
    return events


def _held(table: PokerTable, events: list[Event]) -> list[Event]:
    """`events` up to the end of the engine's draw when an exposed draw card's replacement is
    still owed (a last player standing pat): the rest comes once the replacement is dealt."""
    live = table.live
    if live is None or live.redeal_point is None or not draw_hand(table).late:
        return events
    state = table
    for i, event in enumerate(events):
        state = apply(state, event)
        if _draw_over(state.engine):
            return events[: i + 1]
    return events


def _draw_over(engine: TableState) -> bool:
    hand = engine.hand
    return hand is not None and isinstance(engine.phase(), Draw) and hand.to_act is None


def _draw_engine_deal(table: PokerTable, live: d.DrawHand) -> list[Event]:
    """The engine's own events for what the dealer has now dealt completely."""
    engine = table.engine
    hand = engine.hand
    assert hand is not None
    phase = engine.phase()
    request = engine_request(engine)
    dealt: list[Event]
    if isinstance(phase, DealHole) and isinstance(request, NeedCards):
        if live.stage in (d.Stage.DEAL, d.Stage.REPLACE):
            return []
        dead = tuple([str(card) for card in live.dead])
        dealt = [
            CardsDealt(
                seat,
                tuple([str(card) for card in live.holes[seat]]),
                request.face_up,
                dead if i == 0 else (),
            )
            for i, (seat, _) in enumerate(request.targets)
            if seat is not None
        ]
    elif isinstance(phase, DealBoard) and isinstance(request, NeedCards):
        if not live.board:
            return []
        dealt = [CardsDealt(None, (str(live.board[0]),), True, ())]
    elif isinstance(phase, Draw) and hand.to_act is not None:
        seat = hand.to_act
        if not isinstance(request, NeedCards) or seat not in live.drawn:
            return []  # the player's draw is still being dealt
        dealt = _catch_up(engine, live, [seat])
    elif isinstance(phase, Draw) and not live.late:
        dealt = _catch_up(engine, live, [pl.seat for pl in hand.players if not pl.folded])
        if not dealt:
            return []
    else:
        return []
    state = engine
    for event in dealt:
        state = apply_to_engine(state, event)
    if live.late and _draw_over(state):
        return dealt  # the betting waits for the exposed card's replacement
    return dealt + advance(state)[1]


def _catch_up(engine: TableState, live: d.DrawHand, seats: list[int]) -> list[Event]:
    """The draw cards of `seats` the engine has not seen, each seat's with the dead cards the
    engine has not counted out yet."""
    hand = engine.hand
    assert hand is not None
    out = set(hand.out)
    dealt: list[Event] = []
    for seat in seats:
        new = tuple(
            [str(card) for card in live.holes[seat] if str(card) not in hand.player(seat).cards]
        )
        dead = tuple([str(card) for card in live.dead if str(card) not in out])
        if not new and not dead:
            continue
        out.update(new)
        out.update(dead)
        dealt.append(CardsDealt(seat, new, False, dead))
    return dealt


def _short_stub(table: PokerTable) -> list[Event]:
    """When the stub cannot cover a draw, the discards so far (not the drawing player's own)
    are shuffled into it: the engine asks for it for the player drawing, the physical table for
    an exposed card's replacement owed after the draw."""
    engine = table.engine
    hand = engine.hand
    if hand is None or table.live is None or table.live.redeal_point is None:
        return []
    request = engine_request(engine)
    if isinstance(request, NeedReshuffle):
        seat, pile = request.seat, request.discards
    else:
        live = draw_hand(table)
        if not (live.late_due() and not live.deck):
            return []
        seat = live.late[0]
        own = set(live.own_discards[seat])
        pile = tuple([str(card) for card in live.discards if card not in own])
    explained = ProcedureApplied(
        hand.number,
        "discards_reshuffled",
        f"The stub cannot cover seat {seat}'s draw: the dealer shuffles the {len(pile)} "
        f"discards so far (not seat {seat}'s own) into it.",
        (),
        seat,
    )
    return [DiscardsReshuffled(tuple(pile)), explained]


_LAST_DRAW: list[tuple[LiveDeal | None, d.DrawHand | None]] = [(None, None)]


def draw_hand(table: PokerTable) -> d.DrawHand:
    """The physical table of the current draw hand, rebuilt from its log (remembered for the
    last deal asked about)."""
    live = table.live
    assert live is not None and live.redeal_point is not None
    last = _LAST_DRAW[0]
    if last[0] is live and last[1] is not None:
        return last[1]
    known = _known_prefix(last[0], live)
    if known and last[1] is not None:
        hand = last[1]
    else:
        point = live.redeal_point
        phases = table.engine.config.game.phases
        first = phases[0]
        assert isinstance(first, DealHole)
        order = tuple([player.seat for player in point.clockwise_from(point.button)])
        spit = any(isinstance(ph, DealBoard) for ph in phases)
        hand = d.new_draw_hand(order, first.count, spit)
    for entry in live.log[known:]:
        hand, _ = d.handle(hand, _draw_command(entry))
    _LAST_DRAW[0] = (live, hand)
    return hand


def _draw_command(entry: object) -> d.DrawCommand:
    if isinstance(entry, CardsDiscarded):
        return d.Discard(
            entry.seat, tuple([_physical(card) for card in entry.cards]), entry.face_up
        )
    if isinstance(entry, DiscardsReshuffled):
        return d.Reshuffle(tuple([_physical(card) for card in entry.cards]))
    command = _command(entry)
    assert not isinstance(command, p.Bet | p.CloseRound), entry
    return command
