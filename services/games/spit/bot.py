"""A Spit bot's choice, from what the bot may see (its own `SpitView`) and nothing else: the
move to make now and the precondition to send with it, or None when there is nothing to do.

Pure and stateless, so a bot that lost a race simply asks again with its new view. The
real-time bot process adds the reaction time; this module only chooses:
- ready as soon as the layout is out;
- a play that turns up a face-down card (the deepest pile first), else any play (the pile
  whose new top gives the bot another play first), else a move into a space that turns up a
  card (again the deepest pile first);
- at the end of a two-pile deal, slap the smaller middle pile.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.games.spit.cards import fits
from services.games.spit.moves import Expected, MoveToSpace, PlayCard, Ready, Slap, SpitMove
from services.games.spit.views import SpitView


@dataclass(frozen=True, slots=True)
class BotMove:
    move: SpitMove
    precondition: Expected


def choose(view: SpitView) -> BotMove | None:
    seat = view.viewer
    if seat is None or not view.legal:
        return None
    expected = Expected(deal=view.deal)
    if view.phase == "ready":
        return BotMove(Ready(), expected)
    if view.phase == "slapping":
        smaller = min(range(len(view.middle)), key=lambda i: (len(view.middle[i].cards), i))
        return BotMove(Slap(smaller), expected)
    me = view.seats[seat]
    assert me is not None
    plays = [m for m in view.legal if isinstance(m, PlayCard)]
    if plays:
        play = max(plays, key=lambda m: _play_value(view, seat, m))
        return BotMove(play, Expected(view.deal, view.middle[play.target].cards[-1]))
    spaces = [m for m in view.legal if isinstance(m, MoveToSpace)]
    if spaces:
        return BotMove(max(spaces, key=lambda m: me.places[m.source].down), expected)
    return None


def _play_value(view: SpitView, seat: int, play: PlayCard) -> tuple[int, int, int]:
    """Turn up a face-down card first (deepest pile first); then keep a follow-up play."""
    me = view.seats[seat]
    assert me is not None and play.card is not None
    uncovers = me.places[play.source].down
    follow_up = sum(
        1
        for i, place in enumerate(me.places)
        if i != play.source
        and place.up is not None
        and fits(place.up, play.card, view.alternating_colours)
    )
    return (uncovers, follow_up, -play.target)
