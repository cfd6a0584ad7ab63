"""What a poker table needs from outside next, in the contract's chance vocabulary
(services/games/contract.py), one request at a time. The order is poker's process:

1. the last hand's rake, escrow -> house (`Transfer`, key "{hand}/rake"), when it took any;
2. the last hand's shuffle closed and revealed (`CloseShuffle`);
3. before a hand can start, its shuffle opened (`OpenShuffle`, unless it was opened one hand
   ahead) and the next hand's opened too, so players can contribute entropy to it for a whole
   hand; then `StartRound` (the shell may hold it back: a table waiting for its minimum);
4. during the hand, what the engine asks (`chance.pending_chance`): the hand's cards
   (`DrawCards`: burn first, then round-robin as the engine deals them), discards shuffled
   back under the stub (`ReturnCards`), the showdown's hand ranks (`Evaluate`).

A function of the state alone, so a restarted shell (or a second instance) asks for exactly
what is still missing.
"""

from __future__ import annotations

from typing import Final

from services.games.contract import (
    ChanceRequest,
    CloseShuffle,
    DealPurpose,
    DeckSpec,
    DrawCards,
    Evaluate,
    OpenShuffle,
    Party,
    ReturnCards,
    StartRound,
    Transfer,
)
from services.games.poker.chance import (
    NeedCards,
    NeedHandStart,
    NeedRanks,
    NeedReshuffle,
    rank_requests,
)
from services.games.poker.chance import pending_chance as engine_request
from services.games.poker.definitions import DealBoard, Draw
from services.games.poker.state import TableState
from services.games.poker.table import PokerTable

DECK: Final = "deck"  # a hand's one shuffle: the round is the hand's number
ONE_DECK: Final = DeckSpec(copies=1)


def rake_key(hand: int) -> str:
    return f"{hand}/rake"


def pending_chance(table: PokerTable) -> ChanceRequest | None:
    """The next thing the table needs, or None while it waits for a player (or players)."""
    engine = table.engine
    hand = engine.hand
    if hand is None:
        if table.rake_due:
            return Transfer(rake_key(table.rake_due), Party.ESCROW, Party.HOUSE, table.rake)
        for deck in table.decks:
            if deck.hand <= engine.last_hand:
                return CloseShuffle(deck.hand, DECK)
    request = engine_request(engine)
    if request is None:
        return None
    if isinstance(request, NeedHandStart):
        number = engine.last_hand + 1
        for opening in (number, number + 1):
            if table.deck_of(opening) is None:
                return OpenShuffle(opening, DECK, ONE_DECK)
        return StartRound(number)
    assert hand is not None  # the engine asks for chance only during a hand
    if isinstance(request, NeedCards):
        if table.deck_of(hand.number) is None:
            # (a hand always starts with its shuffle committed; this only guards a table whose
            # stream began before its process recorded shuffles: the dealer finds it again)
            return OpenShuffle(hand.number, DECK, ONE_DECK)
        return DrawCards(
            hand.number,
            DECK,
            request.total - request.burn,
            purpose=deal_purpose(engine, request),
            recipient=_recipient(request),
            burn=request.burn,
        )
    if isinstance(request, NeedReshuffle):
        needed = hand.player(request.seat).awaiting
        return ReturnCards(hand.number, DECK, request.discards, needed)
    if isinstance(request, NeedRanks):
        return Evaluate(rank_requests(engine))
    raise AssertionError(request)


def deal_purpose(engine: TableState, request: NeedCards) -> DealPurpose:
    """What the dealer records the (non-burn) cards of `request` as: hole, board, spit or draw
    (a draw replaces discards; hole cards are the cards of a DealHole phase)."""
    phase = engine.phase()
    if all(target is None for target, _ in request.targets):
        return "spit" if isinstance(phase, DealBoard) and phase.name == "spit" else "board"
    return "draw" if isinstance(phase, Draw) else "hole"


def _recipient(request: NeedCards) -> str:
    targets = [target for target, _ in request.targets]
    if targets == [None]:
        return "board"
    if len(targets) == 1:
        return f"seat {targets[0]}"
    return "seats " + ", ".join(str(target) for target in targets)
