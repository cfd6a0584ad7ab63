"""Who can do what in a deal: the plays and moves open to a player, whether anybody can play,
whether a player has cleared their layout. Read by `decide` (to validate and to spit as soon
as nobody can play), by `legal_moves` and by the bots through the views."""

from __future__ import annotations

from services.games.spit.cards import fits
from services.games.spit.config import SpitConfig, Variation
from services.games.spit.moves import MoveToSpace, PlayCard, Ready, Slap, SpitMove
from services.games.spit.state import Deal, Phase, Side, SpitState


def plays(deal: Deal, seat: int, config: SpitConfig) -> list[PlayCard]:
    """Every face-up card of `seat` that fits on a middle pile, with the pile."""
    found = []
    for source, place in enumerate(deal.sides[seat].places):
        if place.up is None:
            continue
        for target, pile in enumerate(deal.middle):
            top = pile.top
            if top is not None and fits(place.up, top, config.alternating_colours):
                found.append(PlayCard(source, target, place.up))
    return found


def space_moves(side: Side, config: SpitConfig) -> list[MoveToSpace]:
    """Spit: moves of a face-up card into an empty space that turn a card up. Moving a pile's
    only card would change nothing, so it is not a move."""
    if config.variation is not Variation.SPIT:
        return []
    spaces = [i for i, place in enumerate(side.places) if place.empty]
    if not spaces:
        return []
    return [
        MoveToSpace(source, target)
        for source, place in enumerate(side.places)
        if place.up is not None and place.down
        for target in spaces
    ]


def can_play(deal: Deal, seat: int, config: SpitConfig) -> bool:
    side = deal.sides[seat]
    if (
        config.variation is Variation.SPIT
        and any(p.empty for p in side.places)
        and any(p.up is not None and p.down for p in side.places)
    ):
        return True
    alternating = config.alternating_colours
    tops = [pile.top for pile in deal.middle if pile.top is not None]
    return any(
        place.up is not None and any(fits(place.up, top, alternating) for top in tops)
        for place in side.places
    )


def anybody_can_play(deal: Deal, config: SpitConfig) -> bool:
    return can_play(deal, 0, config) or can_play(deal, 1, config)


def cleared(side: Side, config: SpitConfig) -> bool:
    """Spit: the stock piles are empty (spit cards may be left). Bicycle's Spit and Speed: no
    card left at all (row or hand, and stock or draw pile)."""
    if config.variation is Variation.SPIT:
        return side.layout_cleared
    return side.layout_cleared and not side.spit


def legal_moves(state: SpitState, seat: int) -> tuple[SpitMove, ...]:
    game = state.game
    if game is None or seat not in (0, 1):
        return ()
    deal = game.deal
    side = deal.sides[seat]
    if deal.phase is Phase.READY:
        return () if side.ready else (Ready(),)
    if deal.phase is Phase.PLAYING:
        return (*plays(deal, seat, state.config), *space_moves(side, state.config))
    if deal.phase is Phase.SLAPPING and side.takes is None:
        return tuple(Slap(i) for i in range(len(deal.middle)))
    return ()
