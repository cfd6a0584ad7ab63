"""Win/tie/lose probabilities for hold'em, hold'em hi-lo and Spit in the Ocean.

Exact when every player's cards are known and the boards left to deal are few enough
(`max_exact`, two million by default: heads-up hold'em pre-flop is 1,712,304); otherwise a
seeded Monte Carlo whose per-player standard error is reported. A player's `equity` is the
expected share of the pot (ties and split halves counted), `win` the chance of taking the
whole pot alone, `lose` of taking nothing, `tie` of taking part of it.

Work goes in chunks of `CHUNK` deals (`sampling`), so memory does not grow with the number
of samples, and a caller may stop a long run between chunks (`should_stop`, given the deals
done so far): a Monte Carlo run then answers with the deals it has (`complete` is False, the
standard errors are those of the smaller sample), an exact run raises `BudgetExceeded`
(a part of an enumeration is not an answer).
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Sequence

from services.games.cards import Card
from services.ranking.hands import HandError, check_distinct
from services.ranking.sampling import (
    DEFAULT_MAX_EXACT,
    BudgetExceeded,
    EquityResult,
    PlayerEquity,
    Scoring,
    StopCheck,
    sample_equity,
)
from services.ranking.subsets import mask_of

__all__ = [
    "DEFAULT_MAX_EXACT",
    "BudgetExceeded",
    "EquityGame",
    "EquityResult",
    "PlayerEquity",
    "equity",
]


class EquityGame(enum.Enum):
    HOLDEM = "holdem"
    HOLDEM_HI_LO = "holdem-hi-lo"
    SPIT_IN_THE_OCEAN = "spit-in-the-ocean"


HOLE_CARDS = {EquityGame.HOLDEM: 2, EquityGame.HOLDEM_HI_LO: 2, EquityGame.SPIT_IN_THE_OCEAN: 4}
BOARD_CARDS = {EquityGame.HOLDEM: 5, EquityGame.HOLDEM_HI_LO: 5, EquityGame.SPIT_IN_THE_OCEAN: 1}


def _check(game: EquityGame, players: Sequence[Sequence[Card]], board: Sequence[Card],
           dead: Sequence[Card]) -> None:  # fmt: skip
    if len(players) < 2:
        raise HandError("equity needs at least two players")
    hole = HOLE_CARDS[game]
    for seat, cards in enumerate(players):
        if len(cards) > hole:
            raise HandError(f"player {seat} has {len(cards)} cards; {game.value} deals {hole}")
    if len(board) > BOARD_CARDS[game]:
        raise HandError(f"{game.value} has at most {BOARD_CARDS[game]} board cards")
    check_distinct(board, dead, *players)
    needed = len(players) * hole + BOARD_CARDS[game]
    if needed > 52 - len(dead):
        raise HandError(f"not enough cards for {len(players)} players")


def equity(
    game: EquityGame,
    players: Sequence[Sequence[Card]],
    board: Sequence[Card] = (),
    dead: Sequence[Card] = (),
    *,
    samples: int = 20_000,
    seed: int = 0,
    max_exact: int = DEFAULT_MAX_EXACT,
    wild_cards: Collection[Card] = (),
    five_kind_below: bool = False,
    should_stop: StopCheck | None = None,
) -> EquityResult:
    """Each player's chances; unknown hole cards are dealt at random (Monte Carlo)."""
    _check(game, players, board, dead)
    hole = HOLE_CARDS[game]
    spit = game is EquityGame.SPIT_IN_THE_OCEAN
    scoring = Scoring(
        hand_size=hole + BOARD_CARDS[game],
        low=game is EquityGame.HOLDEM_HI_LO,
        board_rank_wild=spit,
        wild=mask_of([c.index for c in wild_cards]) if spit else 0,
        five_kind_below=five_kind_below,
    )
    return sample_equity(
        [[c.index for c in p] for p in players],
        hole,
        [c.index for c in board],
        BOARD_CARDS[game],
        [c.index for c in dead],
        scoring,
        samples=samples,
        seed=seed,
        max_exact=max_exact,
        should_stop=should_stop,
    )
