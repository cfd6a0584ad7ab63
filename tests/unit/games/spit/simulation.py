"""Random players driving complete games through the public rules, with the checks the
simulations make: cards conserved at every event, no hidden card in any view or redacted
event, replay equal to live state, decide accepting exactly the legal moves, termination."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from services.games import contract as c
from services.games.errors import RuleViolation
from services.games.spit import RULES, Expected, MoveToSpace, PlayCard, Ready, Slap, SpitConfig
from services.games.spit import events as ev
from services.games.spit.cards import deck
from services.games.spit.moves import SpitMove
from services.games.spit.reducer import apply, apply_all
from services.games.spit.state import Phase, SpitState
from tests.unit.games.spit.support import Dealer, Table, cards_held, cards_in, visible_cards

# Events that carry no card (checked for leaks all the same would find none).
_NO_CARDS = (
    ev.PlayerSeated
    | ev.PlayerLeft
    | ev.PlayerSatOut
    | ev.PlayerSatIn
    | ev.ChipsAdded
    | ev.GameStarted
    | ev.ShuffleCommitted
    | ev.PlayerReady
    | ev.Stalled
    | ev.DealOver
    | ev.Slapped
    | ev.DealEnded
    | ev.GameEnded
)
MAX_COMMANDS = 50_000
_VIEWERS: tuple[int | None, ...] = (
    None,
    0,
    1,
)  # per game: far above any game seen (a few hundred); a loop is a failure


@dataclass
class Report:
    games: int = 0
    commands: int = 0
    events: int = 0
    deals: int = 0
    refused: int = 0
    races_won: int = 0
    results: Counter[str] = field(default_factory=Counter)


def _normal(move: SpitMove) -> SpitMove:
    return PlayCard(move.source, move.target) if isinstance(move, PlayCard) else move


def _random_move(rng: random.Random, slots: int) -> SpitMove:
    kind = rng.randrange(4)
    if kind == 0:
        return PlayCard(rng.randrange(slots + 1), rng.randrange(3))
    if kind == 1:
        return MoveToSpace(rng.randrange(slots + 1), rng.randrange(slots + 1))
    if kind == 2:
        return Slap(rng.randrange(3))
    return Ready()


class Checker:
    """Every invariant, checked as each event is folded in (independently of `execute`)."""

    def __init__(self, config: SpitConfig, full: bool = True, view_every: int = 1) -> None:
        self.deck = deck(config.copies)
        self.full = full
        self.view_every = view_every
        self.seen = 0

    def events(self, before: SpitState, events: list[ev.SpitEvent], after: SpitState) -> None:
        state = before
        for event in events:
            following = apply(state, event)
            self.conserved(following)
            if self.full and not isinstance(event, ev.ShuffleRevealed | _NO_CARDS):
                for viewer in (None, 0, 1):
                    seen = set(cards_in(RULES.redact(event, viewer)))
                    if seen:
                        allowed = visible_cards(state, viewer) | visible_cards(following, viewer)
                        assert seen <= allowed, f"{event} shows {seen - allowed} to {viewer}"
            state = following
        assert state == after, "folding the events one by one differs from execute"

    def conserved(self, state: SpitState) -> None:
        held = cards_held(state)
        game = state.game
        if game is None:
            return
        deal = game.deal
        if deal.phase is Phase.DEALING and not deal.decks:  # a fresh deck being dealt
            assert not held - self.deck, f"cards beyond the deck: {held - self.deck}"
        else:
            assert dict.__eq__(held, self.deck), (
                f"cards not conserved: {held - self.deck} / {self.deck - held}"
            )

    def views(self, state: SpitState) -> None:
        """The state as one of the three viewers sees it, each in turn, every `view_every`
        commands (over a game's hundreds of commands every viewer sees every kind of moment)."""
        self.seen += 1
        if not self.full or self.seen % self.view_every:
            return
        for viewer in (_VIEWERS[self.seen // self.view_every % 3],):
            view = RULES.view_for(state, viewer)
            seen = set(cards_in(view))
            allowed = visible_cards(state, viewer)
            assert seen <= allowed, f"the view shows {seen - allowed} to {viewer}"


def play_game(
    config: SpitConfig,
    seed: int,
    report: Report,
    race_rate: float = 0.15,
    timeout_rate: float = 0.02,
    junk_rate: float = 0.05,
    full_checks: bool = True,
    view_every: int = 1,
) -> Table:
    """One complete game between two random players who also race with stale screens, let
    deadlines pass, and send moves at random (refused unless legal)."""
    rng = random.Random(seed)
    table = Table(config, Dealer(seed))
    checker = Checker(config, full_checks, view_every)
    initial = table.state
    stale = table.state

    def run(command: c.Command) -> None:
        before = table.state
        events = table.run(command)
        checker.events(before, events, table.state)
        checker.views(table.state)
        report.commands += 1

    run(c.SitDown(0, "ann", 100))
    run(c.SitDown(1, "bob", 100))
    for _ in range(MAX_COMMANDS):
        state = table.state
        request = RULES.pending_chance(state)
        if request is not None:
            if isinstance(request, c.StartRound) and state.game is not None:
                break  # this game is over and revealed
            run(table.dealer.answer(request))
            continue
        movers = [s for s in RULES.to_act(state) if RULES.legal_moves(state, s)]
        roll = rng.random()
        if roll < junk_rate:
            seat = rng.randrange(2)
            move = _random_move(rng, config.slots)
            legal = {_normal(m) for m in RULES.legal_moves(state, seat)}
            try:
                run(c.Move(seat, move))
            except RuleViolation:
                assert _normal(move) not in legal, f"legal {move} refused"
                report.refused += 1
            else:
                assert _normal(move) in legal or isinstance(move, Ready), f"{move} accepted"
            continue
        if movers and roll < junk_rate + race_rate and stale.game is not None:
            # A player acting on the screen of an earlier state: a lost race.
            seat = rng.randrange(2)
            old = RULES.legal_moves(stale, seat)
            if old:
                move = rng.choice(old)
                expected = _expected(stale, move)
                try:
                    events = table.run(c.Move(seat, move, precondition=expected))
                except RuleViolation as refused:
                    report.refused += 1
                    if _still_playable_card(state, seat, move, expected):
                        # Refused only because the card no longer fits: the new top is named.
                        assert f"is now {_top(state, move)}" in refused.message, refused.message
                else:
                    checker.events(state, events, table.state)
                    checker.views(table.state)
                    report.races_won += any(getattr(e, "raced", False) for e in events)
                stale = state
                continue
        if movers and rng.random() > timeout_rate:
            seat = rng.choice(movers)
            move = rng.choice(RULES.legal_moves(state, seat))
            stale = state
            run(c.Move(seat, move, precondition=_expected(state, move)))
            continue
        deadlines = RULES.deadlines(state)
        assert deadlines or movers, f"nobody can act and nothing is due: {state}"
        if deadlines:
            due = rng.choice(list(deadlines))
            run(c.TimeOut(due.seat, due.id, due.since))
    else:
        raise AssertionError(f"seed {seed}: no end after {MAX_COMMANDS} commands")
    game = table.state.game
    assert game is not None and game.over
    assert all(s.reveal is not None for s in game.shuffles)
    assert apply_all(initial, table.events) == table.state, "replay differs from live state"
    report.games += 1
    report.events += len(table.events)
    report.deals += table.state.deals
    report.results[game.result if game.winner is not None else f"{game.result} (drawn)"] += 1
    return table


def _deal(state: SpitState) -> int | None:
    return state.game.deal.number if state.game is not None else None


def _top(state: SpitState, move: SpitMove) -> str | None:
    game = state.game
    if not isinstance(move, PlayCard) or game is None:
        return None
    middle = game.deal.middle
    return middle[move.target].top if move.target < len(middle) else None


def _still_playable_card(state: SpitState, seat: int, move: SpitMove, expected: Expected) -> bool:
    """The stale play's card is still on top of its place, in the same deal, still playing,
    and the pile's top changed since the screen it was sent from."""
    game = state.game
    if not isinstance(move, PlayCard) or game is None or game.deal.phase is not Phase.PLAYING:
        return False
    deal = game.deal
    if expected.deal != deal.number or move.target >= len(deal.middle):
        return False
    return (
        deal.sides[seat].places[move.source].up == move.card
        and expected.top != deal.middle[move.target].top
    )


def _expected(state: SpitState, move: SpitMove) -> Expected:
    return Expected(_deal(state), _top(state, move))
