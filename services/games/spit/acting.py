"""Who may act now and the decisions owed by a deadline: ready, slap, and the stall (a player
who can play and does not, while no card moves)."""

from __future__ import annotations

from services.games.contract import Deadline, Participant
from services.games.spit import playing
from services.games.spit.play import can_play
from services.games.spit.state import Phase, SpitState


def to_act(state: SpitState) -> frozenset[Participant]:
    game = state.game
    if game is None:
        return frozenset()
    deal = game.deal
    if deal.phase is Phase.READY:
        return frozenset(s for s in (0, 1) if not deal.sides[s].ready)
    if deal.phase is Phase.PLAYING and not deal.gathered:
        return frozenset((0, 1))
    if deal.phase is Phase.SLAPPING:
        return frozenset(s for s in (0, 1) if deal.sides[s].takes is None)
    return frozenset()


def deadlines(state: SpitState) -> list[Deadline]:
    game = state.game
    if game is None:
        return []
    config = state.config
    deal = game.deal
    sides = deal.sides
    if deal.phase is Phase.READY:
        key = playing.ready_deadline(deal.number)
        return [Deadline(s, key, config.ready_ms) for s in (0, 1) if not sides[s].ready]
    if deal.phase is Phase.SLAPPING:
        key = playing.slap_deadline(deal.number)
        return [Deadline(s, key, config.slap_ms) for s in (0, 1) if sides[s].takes is None]
    if deal.phase is Phase.PLAYING and config.stall_ms and not deal.gathered:
        # One stall for the table, restarted by every card moved (`since`): when it runs
        # out, the first seat that can play stalls and the game spits for both, so a second
        # seat's stall, due at the same moment, could only ever find itself stale.
        seat = next((s for s in (0, 1) if can_play(deal, s, config)), None)
        if seat is None:
            return []
        key = playing.stall_deadline(deal.number)
        return [Deadline(seat, key, config.stall_ms, since=deal.moves)]
    return []
