"""`apply(state, event) -> state`: folds one event into the table state. Never validates.

Derived bookkeeping (who acts next, the showdown order) is recomputed here from the state,
deterministically, so events stay small and a replay reproduces the live state exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, cast

from services.games.cardtext import Card
from services.games.poker.betting import able, next_bettor
from services.games.poker.definitions import Betting, DealHole, Draw
from services.games.poker.events import (
    Action,
    ActionTaken,
    BoardDeclared,
    CardsDealt,
    CardsDiscarded,
    CardsShown,
    ChipsAdded,
    DeckCommitted,
    DeckRevealed,
    DiscardsReshuffled,
    Event,
    ForcedBetPosted,
    HandEnded,
    HandMucked,
    HandsRanked,
    HandStarted,
    HandVoided,
    LeaveRequested,
    PhaseStarted,
    PlayerLeft,
    PlayerSatIn,
    PlayerSatOut,
    PlayerSeated,
    PotAwarded,
    RakeSettled,
    TableOpened,
    TimedOut,
    UncalledBetReturned,
)
from services.games.poker.plan import BETTING, DEAL_HOLE, DRAW, SHOWDOWN, plan_of
from services.games.poker.state import (
    HandPlayer,
    HandState,
    SeatState,
    TableState,
    evolve,
    new_table,
)


def _seat(state: TableState, seat: int, **changes: Any) -> TableState:
    seats = list(state.seats)
    current = seats[seat]
    assert current is not None
    seats[seat] = evolve(current, **changes)
    return evolve(state, seats=tuple(seats))


def _chips(state: TableState, seat: int, delta: int) -> TableState:
    return _seat(state, seat, stack=state.stack(seat) + delta)


def _table(
    state: TableState, seats: tuple[SeatState | None, ...], hand: HandState | None
) -> TableState:
    """The table with new seats and hand (the hot handlers' one constructor call)."""
    return TableState(
        config=state.config,
        seats=seats,
        hand=hand,
        last_hand=state.last_hand,
        last_button=state.last_button,
    )


def _with_players(
    hand: HandState, players: tuple[HandPlayer, ...], to_act: int | None
) -> HandState:
    """The hand with new players and seat to act, the rest unchanged."""
    return HandState(
        number=hand.number,
        button=hand.button,
        players=players,
        big_blind_seat=hand.big_blind_seat,
        phase=hand.phase,
        board=hand.board,
        dealt_phase=hand.dealt_phase,
        current_bet=hand.current_bet,
        min_raise=hand.min_raise,
        bets_made=hand.bets_made,
        capped=hand.capped,
        to_act=to_act,
        last_aggressor=hand.last_aggressor,
        out=hand.out,
        burned=hand.burned,
        discard_pile=hand.discard_pile,
        ranks=hand.ranks,
        board_rank=hand.board_rank,
        showdown_order=hand.showdown_order,
        reached_second_round=hand.reached_second_round,
    )


def _player(
    p: HandPlayer,
    cards: tuple[Card, ...],
    folded: bool,
    committed: int,
    antes: int,
    bet: int,
    acted: bool,
    acted_level: int,
    drew: bool,
    awaiting: int,
    discards: tuple[Card, ...],
    open_discards: tuple[Card, ...],
) -> HandPlayer:
    """`p` with its betting and drawing fields replaced (the showdown flags kept)."""
    return HandPlayer(
        seat=p.seat,
        cards=cards,
        folded=folded,
        committed=committed,
        antes=antes,
        bet=bet,
        acted=acted,
        acted_level=acted_level,
        drew=drew,
        awaiting=awaiting,
        discards=discards,
        open_discards=open_discards,
        shown=p.shown,
        mucked=p.mucked,
        declared_board=p.declared_board,
    )


_FOLD = Action.FOLD


def _index(players: list[HandPlayer] | tuple[HandPlayer, ...], seat: int) -> int:
    for i, p in enumerate(players):
        if p.seat == seat:
            return i
    raise KeyError(seat)


def _hand(state: TableState) -> HandState:
    assert state.hand is not None
    return state.hand


def _table_opened(state: TableState, e: TableOpened) -> TableState:
    return new_table(e.config)


def _seated(state: TableState, e: PlayerSeated) -> TableState:
    seats = list(state.seats)
    seats[e.seat] = SeatState(player=e.player, stack=e.stack)
    return evolve(state, seats=tuple(seats))


def _leave_requested(state: TableState, e: LeaveRequested) -> TableState:
    return _seat(state, e.seat, leaving=True)


def _left(state: TableState, e: PlayerLeft) -> TableState:
    seats = list(state.seats)
    seats[e.seat] = None
    return evolve(state, seats=tuple(seats))


def _sat_out(state: TableState, e: PlayerSatOut) -> TableState:
    return _seat(state, e.seat, sitting_out=True, timeouts=0)


def _sat_in(state: TableState, e: PlayerSatIn) -> TableState:
    # Only a player who missed a hand waits for (or posts) the big blind.
    seat = state.seats[e.seat]
    assert seat is not None
    return _seat(
        state,
        e.seat,
        sitting_out=False,
        waiting_for_big_blind=seat.missed_hand and not e.post_big_blind,
        posts_big_blind=seat.missed_hand and e.post_big_blind,
        missed_hand=False,
    )


def _chips_added(state: TableState, e: ChipsAdded) -> TableState:
    return _chips(state, e.seat, e.amount)


def _hand_started(state: TableState, e: HandStarted) -> TableState:
    seats = list(state.seats)
    for s in e.seats:
        seat = seats[s]
        assert seat is not None
        if seat.waiting_for_big_blind or seat.posts_big_blind:
            seats[s] = evolve(seat, waiting_for_big_blind=False, posts_big_blind=False)
    for s, seat in enumerate(seats):
        if seat is not None and seat.sitting_out and not seat.missed_hand:
            seats[s] = evolve(seat, missed_hand=True)
    hand = HandState(
        number=e.hand,
        button=e.button,
        players=tuple([HandPlayer(s) for s in e.seats]),
        big_blind_seat=e.big_blind_seat,
    )
    return TableState(
        config=state.config,
        seats=tuple(seats),
        hand=hand,
        last_hand=e.hand,
        last_button=e.button,
    )


def _forced_bet(state: TableState, e: ForcedBetPosted) -> TableState:
    hand = _hand(state)
    players = list(hand.players)
    i = _index(players, e.seat)
    p = players[i]
    amount = e.amount
    live = e.kind != "ante"
    players[i] = _player(
        p,
        p.cards,
        p.folded,
        p.committed + amount,
        p.antes if live else p.antes + amount,
        p.bet + amount if live else p.bet,
        p.acted,
        p.acted_level,
        p.drew,
        p.awaiting,
        p.discards,
        p.open_discards,
    )
    new_hand = _with_players(hand, tuple(players), hand.to_act)
    return _table(state, _stack_delta(state.seats, e.seat, -amount), new_hand)


def _stack_delta(
    seats: tuple[SeatState | None, ...], seat: int, delta: int
) -> tuple[SeatState | None, ...]:
    """The seats with one seat's stack moved by `delta`."""
    current = seats[seat]
    assert current is not None
    new = list(seats)
    new[seat] = _stacked(current, current.stack + delta, current.timeouts)
    return tuple(new)


def _stacked(seat: SeatState, stack: int, timeouts: int) -> SeatState:
    """`seat` with a new stack and timeout count."""
    return SeatState(
        player=seat.player,
        stack=stack,
        sitting_out=seat.sitting_out,
        leaving=seat.leaving,
        waiting_for_big_blind=seat.waiting_for_big_blind,
        posts_big_blind=seat.posts_big_blind,
        missed_hand=seat.missed_hand,
        timeouts=timeouts,
    )


def _phase_started(state: TableState, e: PhaseStarted) -> TableState:
    hand = _hand(state)
    plan = plan_of(state.config)
    new_phase = e.phase
    kind = plan.kinds[new_phase]
    players = hand.players
    current_bet = hand.current_bet
    if hand.phase >= 0 and plan.kinds[hand.phase] == BETTING:
        players = tuple(
            [
                _player(
                    p,
                    p.cards,
                    p.folded,
                    p.committed,
                    p.antes,
                    0,
                    False,
                    0,
                    p.drew,
                    p.awaiting,
                    p.discards,
                    p.open_discards,
                )
                if p.bet or p.acted
                else p
                for p in players
            ]
        )
        current_bet = 0
    min_raise = hand.min_raise
    bets_made = hand.bets_made
    capped = hand.capped
    last_aggressor = hand.last_aggressor
    to_act: int | None = None
    showdown_order = hand.showdown_order
    if kind == BETTING:
        phase = plan.phases[new_phase]
        assert isinstance(phase, Betting)
        first = new_phase == plan.first_betting
        config = state.config
        blinds = plan.blinds
        current_bet = 0
        for p in players:
            if p.bet > current_bet:
                current_bet = p.bet
        if first and blinds:
            current_bet = max(current_bet, config.big_blind)
        unit = config.big_bet if phase.big_bet else config.small_bet
        opening = config.big_blind if blinds else config.small_bet
        min_raise = unit if plan.fixed_limit else opening
        in_hand = 0
        for p in players:
            if not p.folded:
                in_hand += 1
        if first and blinds and hand.big_blind_seat is not None:
            start = hand.big_blind_seat
        else:
            start = hand.button
        bets_made = 1 if current_bet > 0 else 0
        capped = not (config.uncapped_heads_up and in_hand == 2)
        last_aggressor = None
        to_act = next_bettor(state.seats, players, current_bet, start, False)
    elif kind == DRAW:
        players = tuple(
            [
                _player(
                    p,
                    p.cards,
                    p.folded,
                    p.committed,
                    p.antes,
                    p.bet,
                    p.acted,
                    p.acted_level,
                    False,
                    0,
                    (),
                    p.open_discards,
                )
                if p.drew or p.awaiting or p.discards
                else p  # already as a draw starts (the first draw after the deal)
                for p in players
            ]
        )
        to_act = _next_drawer_of(players, hand.button)
    elif kind == SHOWDOWN:
        showdown_order = _showdown_order_of(players, hand.button, hand.last_aggressor)
    new_hand = HandState(
        number=hand.number,
        button=hand.button,
        players=players,
        big_blind_seat=hand.big_blind_seat,
        phase=new_phase,
        board=hand.board,
        dealt_phase=hand.dealt_phase,
        current_bet=current_bet,
        min_raise=min_raise,
        bets_made=bets_made,
        capped=capped,
        to_act=to_act,
        last_aggressor=last_aggressor,
        out=hand.out,
        burned=hand.burned,
        discard_pile=hand.discard_pile,
        ranks=hand.ranks,
        board_rank=hand.board_rank,
        showdown_order=showdown_order,
        reached_second_round=hand.reached_second_round or new_phase > plan.first_betting,
    )
    return _table(state, state.seats, new_hand)


def _clockwise(players: tuple[HandPlayer, ...], after: int) -> list[HandPlayer]:
    """The players clockwise starting left of seat `after` (players are in seat order)."""
    for i, p in enumerate(players):
        if p.seat > after:
            return [*players[i:], *players[:i]]
    return list(players)


def _next_drawer_of(players: tuple[HandPlayer, ...], after: int) -> int | None:
    """The first player clockwise left of seat `after` still to draw (players are in seat
    order: the first one after `after`, else the first one before it)."""
    before: int | None = None
    for p in players:
        if not p.folded and not p.drew:
            if p.seat > after:
                return p.seat
            if before is None:
                before = p.seat
    return before


def _showdown_order_of(
    players: tuple[HandPlayer, ...], button: int, first: int | None
) -> tuple[int, ...]:
    ordered = [p.seat for p in _clockwise(players, button) if not p.folded]
    if first is not None and first in ordered:
        i = ordered.index(first)
        ordered = ordered[i:] + ordered[:i]
    return tuple(ordered)


def _dealt(
    hand: HandState,
    players: tuple[HandPlayer, ...],
    board: tuple[Card, ...],
    dealt_phase: int,
    to_act: int | None,
    out: frozenset[Card],
    burned: tuple[Card, ...],
) -> HandState:
    """The hand after a deal: the fields a deal changes replaced."""
    return HandState(
        number=hand.number,
        button=hand.button,
        players=players,
        big_blind_seat=hand.big_blind_seat,
        phase=hand.phase,
        board=board,
        dealt_phase=dealt_phase,
        current_bet=hand.current_bet,
        min_raise=hand.min_raise,
        bets_made=hand.bets_made,
        capped=hand.capped,
        to_act=to_act,
        last_aggressor=hand.last_aggressor,
        out=out,
        burned=burned,
        discard_pile=hand.discard_pile,
        ranks=hand.ranks,
        board_rank=hand.board_rank,
        showdown_order=hand.showdown_order,
        reached_second_round=hand.reached_second_round,
    )


def _cards_dealt(state: TableState, e: CardsDealt) -> TableState:
    hand = _hand(state)
    cards = e.cards
    out = hand.out.union(cards, e.burned)
    plan = plan_of(state.config)
    kind = plan.kinds[hand.phase]
    target = e.seat
    if target is None:
        new_hand = _dealt(
            hand,
            hand.players,
            hand.board + cards,
            hand.phase,
            hand.to_act,
            out,
            hand.burned + e.burned,
        )
        return _table(state, state.seats, new_hand)
    players = list(hand.players)
    i = _index(players, target)
    p = players[i]
    if kind == DRAW:
        players[i] = _player(
            p,
            p.cards + cards,
            p.folded,
            p.committed,
            p.antes,
            p.bet,
            p.acted,
            p.acted_level,
            True,
            0,
            p.discards,
            p.open_discards,
        )
        new_players = tuple(players)
        new_hand = _dealt(
            hand,
            new_players,
            hand.board,
            hand.dealt_phase,
            _next_drawer_of(new_players, target),
            out,
            hand.burned,
        )
        return _table(state, state.seats, new_hand)
    players[i] = _player(
        p,
        p.cards + cards,
        p.folded,
        p.committed,
        p.antes,
        p.bet,
        p.acted,
        p.acted_level,
        p.drew,
        p.awaiting,
        p.discards,
        p.open_discards,
    )
    dealt_phase = hand.dealt_phase
    if kind == DEAL_HOLE:
        phase = plan.phases[hand.phase]
        assert isinstance(phase, DealHole)
        count = phase.count
        for q in players:
            if len(q.cards) < count:
                break
        else:
            dealt_phase = hand.phase
    new_hand = _dealt(hand, tuple(players), hand.board, dealt_phase, hand.to_act, out, hand.burned)
    return _table(state, state.seats, new_hand)


def fold_hole_cards(state: TableState, events: list[CardsDealt]) -> TableState:
    """`apply_all` for one deal of hole cards (several seats, a `DealHole` phase), building
    the hand once instead of once per seat. The same state as folding them one by one: the
    cards only grow, so "every player has the phase's count" after the last event is the
    same as it having become true after some event."""
    hand = _hand(state)
    plan = plan_of(state.config)
    if plan.kinds[hand.phase] != DEAL_HOLE:
        return apply_all(state, events)
    given = {}
    out = set(hand.out)
    for e in events:
        if e.seat is None:
            return apply_all(state, events)
        given[e.seat] = e.cards
        out.update(e.cards)
        out.update(e.burned)
    players = []
    complete = True
    count = plan.phases[hand.phase].count  # type: ignore[union-attr]
    for p in hand.players:
        cards = given.get(p.seat)
        if cards is not None:
            p = _player(
                p,
                p.cards + cards,
                p.folded,
                p.committed,
                p.antes,
                p.bet,
                p.acted,
                p.acted_level,
                p.drew,
                p.awaiting,
                p.discards,
                p.open_discards,
            )
        if len(p.cards) < count:
            complete = False
        players.append(p)
    new_hand = _dealt(
        hand,
        tuple(players),
        hand.board,
        hand.phase if complete else hand.dealt_phase,
        hand.to_act,
        frozenset(out),
        hand.burned,
    )
    return _table(state, state.seats, new_hand)


def _action(state: TableState, e: ActionTaken) -> TableState:
    hand = _hand(state)
    players = list(hand.players)
    acting = e.seat
    i = _index(players, acting)
    p = players[i]
    # A voluntary action ends a run of timeouts; `TimedOut` follows a default action's event.
    seats = state.seats
    seat = seats[acting]
    assert seat is not None
    added = e.added
    if seat.timeouts or added:
        changed = list(seats)
        changed[acting] = _stacked(seat, seat.stack - added, 0)
        seats = tuple(changed)
    current = hand.current_bet
    min_raise = hand.min_raise
    bets_made = hand.bets_made
    last_aggressor = hand.last_aggressor
    if e.action == _FOLD:
        players[i] = _player(
            p,
            p.cards,
            True,
            p.committed,
            p.antes,
            p.bet,
            True,
            p.acted_level,
            p.drew,
            p.awaiting,
            p.discards,
            p.open_discards,
        )
    else:
        to = e.to
        if to > current:
            increase = to - current
            plan = plan_of(state.config)
            if plan.fixed_limit:
                if 2 * increase >= plan.units[hand.phase]:
                    bets_made += 1
            elif increase >= min_raise:
                min_raise = increase
                bets_made += 1
            current = to
            last_aggressor = acting
        players[i] = _player(
            p,
            p.cards,
            p.folded,
            p.committed + added,
            p.antes,
            to,
            True,
            current,
            p.drew,
            p.awaiting,
            p.discards,
            p.open_discards,
        )
    new_players = tuple(players)
    new_hand = HandState(
        number=hand.number,
        button=hand.button,
        players=new_players,
        big_blind_seat=hand.big_blind_seat,
        phase=hand.phase,
        board=hand.board,
        dealt_phase=hand.dealt_phase,
        current_bet=current,
        min_raise=min_raise,
        bets_made=bets_made,
        capped=hand.capped,
        to_act=next_bettor(seats, new_players, current, acting, False),
        last_aggressor=last_aggressor,
        out=hand.out,
        burned=hand.burned,
        discard_pile=hand.discard_pile,
        ranks=hand.ranks,
        board_rank=hand.board_rank,
        showdown_order=hand.showdown_order,
        reached_second_round=hand.reached_second_round,
    )
    return _table(state, seats, new_hand)


def _timed_out(state: TableState, e: TimedOut) -> TableState:
    seat = state.seats[e.seat]
    assert seat is not None
    return _seat(state, e.seat, timeouts=seat.timeouts + 1)


def _uncalled(state: TableState, e: UncalledBetReturned) -> TableState:
    hand = _hand(state)
    players = list(hand.players)
    i = _index(players, e.seat)
    p = players[i]
    amount = e.amount
    players[i] = _player(
        p,
        p.cards,
        p.folded,
        p.committed - amount,
        p.antes,
        p.bet - amount,
        p.acted,
        p.acted_level,
        p.drew,
        p.awaiting,
        p.discards,
        p.open_discards,
    )
    current = max([q.bet for q in players])
    new_hand = HandState(
        number=hand.number,
        button=hand.button,
        players=tuple(players),
        big_blind_seat=hand.big_blind_seat,
        phase=hand.phase,
        board=hand.board,
        dealt_phase=hand.dealt_phase,
        current_bet=current,
        min_raise=hand.min_raise,
        bets_made=hand.bets_made,
        capped=hand.capped,
        to_act=hand.to_act,
        last_aggressor=hand.last_aggressor,
        out=hand.out,
        burned=hand.burned,
        discard_pile=hand.discard_pile,
        ranks=hand.ranks,
        board_rank=hand.board_rank,
        showdown_order=hand.showdown_order,
        reached_second_round=hand.reached_second_round,
    )
    return _table(state, _stack_delta(state.seats, e.seat, amount), new_hand)


def _discarded(state: TableState, e: CardsDiscarded) -> TableState:
    hand = _hand(state)
    phase = plan_of(state.config).phases[hand.phase]
    assert isinstance(phase, Draw)
    players = list(hand.players)
    seat = e.seat
    i = _index(players, seat)
    p = players[i]
    discarded = e.cards
    # Standing pat keeps the same cards: no new tuple.
    kept = tuple([c for c in p.cards if c not in discarded]) if discarded else p.cards
    owed = len(discarded) if phase.replace else 0
    players[i] = _player(
        p,
        kept,
        p.folded,
        p.committed,
        p.antes,
        p.bet,
        p.acted,
        p.acted_level,
        owed == 0,
        owed,
        discarded,
        p.open_discards + discarded if e.face_up else p.open_discards,
    )
    new_players = tuple(players)
    new_hand = HandState(
        number=hand.number,
        button=hand.button,
        players=new_players,
        big_blind_seat=hand.big_blind_seat,
        phase=hand.phase,
        board=hand.board,
        dealt_phase=hand.dealt_phase,
        current_bet=hand.current_bet,
        min_raise=hand.min_raise,
        bets_made=hand.bets_made,
        capped=hand.capped,
        to_act=_next_drawer_of(new_players, seat) if owed == 0 else hand.to_act,
        last_aggressor=hand.last_aggressor,
        out=hand.out,
        burned=hand.burned,
        discard_pile=hand.discard_pile + discarded,
        ranks=hand.ranks,
        board_rank=hand.board_rank,
        showdown_order=hand.showdown_order,
        reached_second_round=hand.reached_second_round,
    )
    return _table(state, state.seats, new_hand)


def _reshuffled(state: TableState, e: DiscardsReshuffled) -> TableState:
    hand = _hand(state)
    back = set(e.cards)
    hand = evolve(
        hand,
        out=hand.out - back,
        discard_pile=tuple(c for c in hand.discard_pile if c not in back),
    )
    return evolve(state, hand=hand)


def _ranked(state: TableState, e: HandsRanked) -> TableState:
    hand = _hand(state)
    ranked = HandState(
        number=hand.number,
        button=hand.button,
        players=hand.players,
        big_blind_seat=hand.big_blind_seat,
        phase=hand.phase,
        board=hand.board,
        dealt_phase=hand.dealt_phase,
        current_bet=hand.current_bet,
        min_raise=hand.min_raise,
        bets_made=hand.bets_made,
        capped=hand.capped,
        to_act=hand.to_act,
        last_aggressor=hand.last_aggressor,
        out=hand.out,
        burned=hand.burned,
        discard_pile=hand.discard_pile,
        ranks=e.ranks,
        board_rank=e.board,
        showdown_order=hand.showdown_order,
        reached_second_round=hand.reached_second_round,
    )
    return _showing(state, ranked, ranked.players)


def _showing(state: TableState, hand: HandState, players: tuple[HandPlayer, ...]) -> TableState:
    """The state with the hand's players changed and the next seat to show or muck worked
    out from them."""
    to_act = _next_shower_of(hand.ranks is not None, players, hand.showdown_order)
    return _table(state, state.seats, _with_players(hand, players, to_act))


def _marked(state: TableState, seat: int, shown: bool, mucked: bool, declared: bool) -> TableState:
    """A showdown step: `shown`, `mucked` or `declared_board` set on `seat`."""
    hand = _hand(state)
    players = list(hand.players)
    i = _index(players, seat)
    p = players[i]
    players[i] = HandPlayer(
        seat=p.seat,
        cards=p.cards,
        folded=p.folded,
        committed=p.committed,
        antes=p.antes,
        bet=p.bet,
        acted=p.acted,
        acted_level=p.acted_level,
        drew=p.drew,
        awaiting=p.awaiting,
        discards=p.discards,
        open_discards=p.open_discards,
        shown=p.shown or shown,
        mucked=p.mucked or mucked,
        declared_board=p.declared_board or declared,
    )
    return _showing(state, hand, tuple(players))


def next_shower(hand: HandState) -> int | None:
    """Next seat in showdown order to show or muck; None once the showdown is decided."""
    return _next_shower_of(hand.ranks is not None, hand.players, hand.showdown_order)


def _next_shower_of(
    ranked: bool, players: tuple[HandPlayer, ...], order: tuple[int, ...]
) -> int | None:
    if not ranked:
        return None
    unmucked = 0
    by_seat = {}
    for p in players:
        by_seat[p.seat] = p
        if not p.folded and not p.mucked:
            unmucked += 1
    for seat in order:
        p = by_seat[seat]
        if p.shown or p.mucked or p.declared_board:
            continue
        if unmucked == 1:
            return None  # everyone else mucked: the last hand wins without showing
        return seat
    return None


def _shown(state: TableState, e: CardsShown) -> TableState:
    return _marked(state, e.seat, True, False, False)


def _mucked(state: TableState, e: HandMucked) -> TableState:
    return _marked(state, e.seat, False, True, False)


def _declared(state: TableState, e: BoardDeclared) -> TableState:
    return _marked(state, e.seat, False, False, True)


def _awarded(state: TableState, e: PotAwarded) -> TableState:
    seats = state.seats
    for share in e.shares:
        seats = _stack_delta(seats, share.seat, share.amount)
    return _table(state, seats, state.hand)


def _ended(state: TableState, e: HandEnded) -> TableState:
    return _table(state, state.seats, None)


def _unchanged(state: TableState, e: DeckCommitted | DeckRevealed | RakeSettled) -> TableState:
    """The dealer's and the ledger's records of a hand: the table's process (services/games/
    poker/table.py) keeps them; the hand itself does not change."""
    return state


def _voided(state: TableState, e: HandVoided) -> TableState:
    for seat, amount in e.refunds:
        state = _chips(state, seat, amount)
    return evolve(state, hand=None)


HANDLERS: dict[type, Callable[[TableState, Any], TableState]] = {
    TableOpened: _table_opened,
    PlayerSeated: _seated,
    LeaveRequested: _leave_requested,
    PlayerLeft: _left,
    PlayerSatOut: _sat_out,
    PlayerSatIn: _sat_in,
    ChipsAdded: _chips_added,
    HandStarted: _hand_started,
    ForcedBetPosted: _forced_bet,
    PhaseStarted: _phase_started,
    CardsDealt: _cards_dealt,
    ActionTaken: _action,
    TimedOut: _timed_out,
    UncalledBetReturned: _uncalled,
    CardsDiscarded: _discarded,
    DiscardsReshuffled: _reshuffled,
    HandsRanked: _ranked,
    CardsShown: _shown,
    HandMucked: _mucked,
    BoardDeclared: _declared,
    PotAwarded: _awarded,
    HandEnded: _ended,
    HandVoided: _voided,
    DeckCommitted: _unchanged,
    DeckRevealed: _unchanged,
    RakeSettled: _unchanged,
}


# The events of every hand, by type: `apply` calls their handlers directly (native calls
# when compiled) instead of through HANDLERS, whose entries are Python-level function objects.
_HOT: dict[type, int] = {
    ActionTaken: 0,
    PhaseStarted: 1,
    CardsDealt: 2,
    CardsDiscarded: 3,
    ForcedBetPosted: 4,
    HandStarted: 5,
    UncalledBetReturned: 6,
    HandsRanked: 7,
    CardsShown: 8,
    HandMucked: 9,
    PotAwarded: 10,
    HandEnded: 11,
}


def apply(state: TableState, event: Event) -> TableState:
    kind = _HOT.get(type(event), -1)
    if kind == 0:
        return _action(state, cast(ActionTaken, event))
    if kind == 1:
        return _phase_started(state, cast(PhaseStarted, event))
    if kind == 2:
        return _cards_dealt(state, cast(CardsDealt, event))
    if kind == 3:
        return _discarded(state, cast(CardsDiscarded, event))
    if kind == 4:
        return _forced_bet(state, cast(ForcedBetPosted, event))
    if kind == 5:
        return _hand_started(state, cast(HandStarted, event))
    if kind == 6:
        return _uncalled(state, cast(UncalledBetReturned, event))
    if kind == 7:
        return _ranked(state, cast(HandsRanked, event))
    if kind == 8:
        return _shown(state, cast(CardsShown, event))
    if kind == 9:
        return _mucked(state, cast(HandMucked, event))
    if kind == 10:
        return _awarded(state, cast(PotAwarded, event))
    if kind == 11:
        return _ended(state, cast(HandEnded, event))
    return HANDLERS[type(event)](state, event)


def apply_all(state: TableState, events: Iterable[Event]) -> TableState:
    for event in events:
        state = apply(state, event)
    return state


def replay(events: Iterable[Event]) -> TableState:
    """Rebuild a table from its full stream; the first event must be `TableOpened`."""
    iterator = iter(events)
    first = next(iterator)
    assert isinstance(first, TableOpened), "a table stream starts with TableOpened"
    return apply_all(new_table(first.config), iterator)


__all__ = ["able", "apply", "apply_all", "next_shower", "replay"]
