"""What happens by itself once a card has moved: the automatic spit as soon as nobody can
play, and the end of a deal or of the game. Decided against the state the move left, inside
the same `decide`, so a command's events end where a player (or the dealer) is needed next."""

from __future__ import annotations

from services.games.spit import events as ev
from services.games.spit.config import Variation
from services.games.spit.play import anybody_can_play, cleared
from services.games.spit.reducer import leftovers
from services.games.spit.state import Phase, other
from services.games.spit.tape import Tape


def advance(tape: Tape, forced: bool = False) -> None:
    """Spit for as long as nobody can play; end the deal when it is over. `forced`: go on as
    if nobody could play, once (the stall time passed)."""
    config = tape.state.config
    while tape.deal.phase is Phase.PLAYING and not tape.deal.gathered:
        deal = tape.deal
        for seat in (0, 1):
            if cleared(deal.sides[seat], config):
                _cleared(tape, seat)
                return
        if not forced and anybody_can_play(deal, config):
            return
        forced = False
        if not spit(tape):
            _stuck(tape)
            return


def spit(tape: Tape) -> bool:
    """Turn the next spit card onto each middle pile whose feeder has one (both players, or the
    lone spitter onto the pile they started; Speed: the side stacks). Speed with both side
    stacks empty gathers the middle piles to be shuffled into new ones (the dealer's next
    request). False when nothing can be spat."""
    deal = tape.deal
    if tape.state.config.variation is Variation.SPEED:
        fed = [i for i, stack in enumerate(deal.stacks) if stack]
        for i in fed:
            tape.emit(ev.Spat(None, i, deal.stacks[i][0]))
        if fed:
            return True
        gathered = tuple(pile.cards[:-1] for pile in deal.middle)
        if not any(gathered):
            return False
        tape.emit(ev.MiddleGathered(deal.number, deal.restocks + 1, gathered))
        return True
    spat = False
    for index, pile in enumerate(deal.middle):
        seat = pile.starter
        assert seat is not None
        cards = deal.sides[seat].spit
        if cards:
            tape.emit(ev.Spat(seat, index, cards[0]))
            spat = True
    return spat


def _cleared(tape: Tape, seat: int) -> None:
    deal = tape.deal
    variation = tape.state.config.variation
    if variation is not Variation.SPIT or not deal.sides[seat].spit:
        end_game(tape, seat, "cleared")
    elif deal.one_pile:
        takes: list[int | None] = [None, None]
        takes[other(seat)] = 0
        collect(tape, "cleared", (takes[0], takes[1]))
    else:
        tape.emit(ev.DealOver(deal.number, "cleared", seat))


def _stuck(tape: Tape) -> None:
    """Nobody can play and nothing can be spat."""
    deal = tape.deal
    cards = (deal.sides[0].cards, deal.sides[1].cards)
    if tape.state.config.variation is not Variation.SPIT:
        # Bicycle's Spit (and Speed, which cannot get here): fewer cards left wins; a tie draws.
        winner = None if cards[0] == cards[1] else (0 if cards[0] < cards[1] else 1)
        end_game(tape, winner, "stuck")
    elif deal.one_pile:
        starter = deal.middle[0].starter
        taker = starter if cards[0] == cards[1] else (0 if cards[0] > cards[1] else 1)
        collect(tape, "stuck", (0, None) if taker == 0 else (None, 0))
    else:
        tape.emit(ev.DealOver(deal.number, "stuck"))


def collect(tape: Tape, reason: str, takes: tuple[int | None, int | None]) -> None:
    """Each player gathers the middle pile they take (if any) and their own leftovers."""
    deal = tape.deal
    counts = tuple(
        len(leftovers(side)) + (len(deal.middle[t].cards) if t is not None else 0)
        for side, t in zip(deal.sides, takes, strict=True)
    )
    tape.emit(ev.DealEnded(deal.number, reason, takes, (counts[0], counts[1])))


def end_game(tape: Tape, winner: int | None, reason: str) -> None:
    """The winner takes both stakes; a drawn or void game returns each."""
    game = tape.game
    stake = game.stake
    if winner is None:
        payouts = (stake, stake)
    else:
        payouts = (2 * stake, 0) if winner == 0 else (0, 2 * stake)
    stacks = tuple(
        (seat.stack if seat is not None else 0) + payouts[i]
        for i, seat in enumerate(tape.state.seats)
    )
    tape.emit(ev.GameEnded(game.number, winner, reason, payouts, (stacks[0], stacks[1])))
