"""The players' own moves and the table's deadlines for them: ready, a play onto a middle
pile (re-decided against the new top card when it lost a race), a move into a space, a slap,
and the defaults when the ready, slap or stall time runs out."""

from __future__ import annotations

from services.games.errors import InvalidAction, NotAllowedNow
from services.games.spit import events as ev
from services.games.spit.cards import fits
from services.games.spit.config import Variation
from services.games.spit.messages import phase_text, tops
from services.games.spit.moves import Expected, MoveToSpace, PlayCard, Ready, Slap
from services.games.spit.play import can_play
from services.games.spit.progress import advance, collect, spit
from services.games.spit.state import Phase, other
from services.games.spit.tape import Tape


def _require(tape: Tape, phase: Phase) -> None:
    if tape.deal.phase is not phase:
        raise NotAllowedNow(phase_text(tape.deal))


def ready(tape: Tape, seat: int, move: Ready, timed_out: bool = False) -> None:
    _require(tape, Phase.READY)
    if tape.deal.sides[seat].ready:
        return  # already ready: nothing to do
    tape.emit(ev.PlayerReady(seat, timed_out))
    if tape.deal.phase is Phase.PLAYING:  # both are ready: spit
        spit(tape)
        advance(tape)


def _own_place(tape: Tape, seat: int, index: int, what: str) -> None:
    count = len(tape.deal.sides[seat].places)
    if not 0 <= index < count:
        raise InvalidAction(
            f"there is no {what} {index}: your places are 0-{count - 1}, never more "
            f"({tops(tape.deal, seat)})"
        )


def play_card(tape: Tape, seat: int, move: PlayCard, expected: Expected | None) -> None:
    _require(tape, Phase.PLAYING)
    deal = tape.deal
    _own_place(tape, seat, move.source, "place")
    card = deal.sides[seat].places[move.source].up
    if card is None:
        raise InvalidAction(
            f"your place {move.source} has no face-up card to play ({tops(deal, seat)})"
        )
    if move.card is not None and move.card != card:
        raise InvalidAction(
            f"{move.card} is not on top of your place {move.source}: {card} is ({tops(deal, seat)})"
        )
    if not 0 <= move.target < len(deal.middle):
        raise InvalidAction(
            f"there is no middle pile {move.target}: this deal has {len(deal.middle)} "
            f"({tops(deal, seat)})"
        )
    top = deal.middle[move.target].top
    assert top is not None  # every middle pile is started before play begins
    raced = expected is not None and expected.top is not None and expected.top != top
    if not fits(card, top, tape.state.config.alternating_colours):
        rule = (
            "one rank up or down, the other colour"
            if tape.state.config.alternating_colours
            else "one rank up or down"
        )
        if raced:
            assert expected is not None
            raise NotAllowedNow(
                f"middle pile {move.target} is now {top}, not {expected.top}: {card} does not "
                f"go on {top} ({rule}; {tops(deal, seat)})"
            )
        raise InvalidAction(f"{card} does not go on {top} ({rule}; {tops(deal, seat)})")
    tape.emit(ev.CardPlayed(seat, move.source, move.target, card, raced))
    place = tape.deal.sides[seat].places[move.source]
    if place.down:
        tape.emit(ev.CardTurnedUp(seat, move.source, place.down[-1]))
    elif tape.state.config.variation is not Variation.SPIT and tape.deal.sides[seat].spit:
        private = tape.state.config.variation is Variation.SPEED
        tape.emit(ev.SlotFilled(seat, move.source, tape.deal.sides[seat].spit[0], private))
    advance(tape)


def move_to_space(tape: Tape, seat: int, move: MoveToSpace) -> None:
    variation = tape.state.config.variation
    if variation is not Variation.SPIT:
        raise InvalidAction(f"{variation} has no spaces to move cards into")
    _require(tape, Phase.PLAYING)
    deal = tape.deal
    _own_place(tape, seat, move.source, "pile")
    _own_place(tape, seat, move.target, "pile")
    places = deal.sides[seat].places
    source, target = places[move.source], places[move.target]
    if source.up is None:
        raise InvalidAction(f"your pile {move.source} is empty ({tops(deal, seat)})")
    if not target.empty:
        raise InvalidAction(f"your pile {move.target} is not an empty space ({tops(deal, seat)})")
    if not source.down:
        raise InvalidAction(
            f"{source.up} is the only card of pile {move.source}: moving it into a space "
            f"would change nothing ({tops(deal, seat)})"
        )
    tape.emit(ev.CardMoved(seat, move.source, move.target, source.up))
    tape.emit(ev.CardTurnedUp(seat, move.source, source.down[-1]))
    advance(tape)


def slap(tape: Tape, seat: int, move: Slap) -> None:
    variation = tape.state.config.variation
    if variation is not Variation.SPIT:
        raise InvalidAction(f"there are no slaps in {variation}")
    _require(tape, Phase.SLAPPING)
    deal = tape.deal
    if not 0 <= move.pile < len(deal.middle):
        raise InvalidAction(f"there is no middle pile {move.pile}: slap 0 or 1")
    side = deal.sides[seat]
    if side.slapped is not None:
        raise NotAllowedNow(f"you already slapped pile {side.slapped}")
    if side.takes is not None:
        raise NotAllowedNow(f"the slap time ran out: you take pile {side.takes}")
    first = deal.sides[other(seat)].takes
    takes = move.pile if first is None or first != move.pile else 1 - first
    tape.emit(ev.Slapped(seat, move.pile, takes))
    _collect_when_slapped(tape)


def _collect_when_slapped(tape: Tape) -> None:
    sides = tape.deal.sides
    if sides[0].takes is not None and sides[1].takes is not None:
        collect(tape, "slapped", (sides[0].takes, sides[1].takes))


# --- deadlines -------------------------------------------------------------------------------


def ready_deadline(deal_number: int) -> str:
    return f"{deal_number}/ready"


def slap_deadline(deal_number: int) -> str:
    return f"{deal_number}/slap"


def stall_deadline(deal_number: int) -> str:
    return f"{deal_number}/stall"


def time_out(tape: Tape, seat: int, deadline: str, since: int = 0) -> None:
    """The default for a decision `seat` did not make in time; a deadline that is no longer
    owed (a stale timer, a repeat, a stall started before the last card moved: `since`)
    changes nothing."""
    game = tape.state.game
    if game is None or game.over:
        return
    deal = game.deal
    side = deal.sides[seat]
    if deal.phase is Phase.READY and deadline == ready_deadline(deal.number) and not side.ready:
        ready(tape, seat, Ready(), timed_out=True)
    elif (
        deal.phase is Phase.SLAPPING
        and deadline == slap_deadline(deal.number)
        and side.takes is None
    ):
        first = deal.sides[other(seat)].takes
        if first is None:  # nobody slapped: each takes the pile they started
            for s in (0, 1):
                tape.emit(ev.Slapped(s, None, s, timed_out=True))
        else:
            tape.emit(ev.Slapped(seat, None, 1 - first, timed_out=True))
        _collect_when_slapped(tape)
    elif (
        deal.phase is Phase.PLAYING
        and not deal.gathered
        and deadline == stall_deadline(deal.number)
        and since == deal.moves
        and can_play(deal, seat, tape.state.config)
    ):
        tape.emit(ev.Stalled(seat))
        advance(tape, forced=True)
