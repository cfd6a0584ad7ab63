"""The shell's answers to a poker table's chance requests (requests.py), checked and turned
into events: the dealer's commitments, cards and reveals, the evaluator's ranks, the ledger's
rake transfer and the start of a hand.

Each answer must answer the request `pending_chance` makes now; a repeat of one already folded
in (the same shuffle opened, the same hand started, the same transfer) returns no events, and
anything else is refused with the request the table waits for. Cards, discards and ranks then
go through the engine's own checks (a card dealt twice, the wrong number of cards, the wrong
seats ranked), exactly as they did when the shell sent the engine's chance commands.
"""

from __future__ import annotations

from typing import Protocol

from services.games import contract as c
from services.games.errors import InvalidAction, NotAllowedNow
from services.games.poker.chance import NeedCards, deal_from
from services.games.poker.chance import pending_chance as engine_request
from services.games.poker.commands import ReshuffleDiscards, StartHand, SupplyHandRanks
from services.games.poker.events import DeckCommitted, DeckRevealed, Event, RakeSettled
from services.games.poker.requests import DECK, pending_chance
from services.games.poker.rules import decide as engine_decide
from services.games.poker.table import PokerTable
from services.games.ranking import SeatRank


def answer(table: PokerTable, command: c.ChanceAnswer) -> list[Event]:
    request = pending_chance(table)
    if isinstance(command, c.CardsDrawn):
        if isinstance(request, c.DrawCards) and _same(request, command):
            return _cards(table, request, command)
    elif isinstance(command, c.ShuffleOpened):
        if isinstance(request, c.OpenShuffle) and _same(request, command):
            return [DeckCommitted(command.round, command.shuffle_id, command.commitment)]
        if command.name == DECK and (
            table.deck_of(command.round) is not None or command.round <= table.engine.last_hand
        ):
            return []  # a repeat: committed already (or its hand is long over)
    elif isinstance(command, c.RoundStarts):
        if isinstance(request, c.StartRound) and request.round == command.round:
            return engine_decide(table.engine, StartHand())
        if command.round <= table.engine.last_hand:
            return []  # a repeat: that hand started already
    elif isinstance(command, c.Evaluated):
        if isinstance(request, c.Evaluate):
            return _ranks(table, request, command)
    elif isinstance(command, c.CardsReturned):
        if isinstance(request, c.ReturnCards) and _same(request, command):
            return engine_decide(table.engine, ReshuffleDiscards(tuple(command.cards)))
    elif isinstance(command, c.ShuffleClosed):
        if isinstance(request, c.CloseShuffle) and _same(request, command):
            deck = table.deck_of(command.round)
            assert deck is not None  # the request names a committed deck
            return [DeckRevealed(command.round, deck.shuffle_id, command.reveal)]
        if command.name == DECK and table.deck_of(command.round) is None:
            return []  # a repeat: revealed already (or never opened: nothing to reveal)
        deck = table.deck_of(command.round)
        if command.name == DECK and deck is not None and command.round > table.engine.last_hand:
            # A deck of a hand not started yet, closed unused (the table withdrew it): it is
            # forgotten, and the hand opens a fresh one when it comes.
            return [DeckRevealed(command.round, deck.shuffle_id, command.reveal)]
    elif isinstance(command, c.TransferDone):
        if isinstance(request, c.Transfer) and request.key == command.key:
            return [RakeSettled(table.rake_due, request.amount, command.key)]
        if _settled(table, command.key):
            return []  # a repeat
    raise NotAllowedNow(
        f"the table did not ask for {_describe(command)}: it waits for {_describe(request)}"
    )


class _OfShuffle(Protocol):
    """A request or answer about one shuffle: which round, which name."""

    @property
    def round(self) -> int: ...

    @property
    def name(self) -> str: ...


def _same(request: _OfShuffle, answer: _OfShuffle) -> bool:
    return request.round == answer.round and request.name == answer.name


def _cards(table: PokerTable, request: c.DrawCards, answer: c.CardsDrawn) -> list[Event]:
    wanted = request.burn + request.count
    if len(answer.cards) != wanted or answer.burned != request.burn:
        raise InvalidAction(
            f"deal {request.burn} burned card(s) then {request.count}, in one answer: got "
            f"{len(answer.cards)} card(s) of which {answer.burned} burned"
        )
    need = engine_request(table.engine)
    assert isinstance(need, NeedCards)  # what `request` was made from
    return engine_decide(table.engine, deal_from(need, iter(answer.cards)))


def _ranks(table: PokerTable, request: c.Evaluate, answer: c.Evaluated) -> list[Event]:
    if len(answer.ranks) != len(request.requests):
        raise InvalidAction(
            f"{len(request.requests)} hand(s) to rank, got {len(answer.ranks)} rank(s)"
        )
    seats: list[tuple[int, SeatRank]] = []
    board: SeatRank | None = None
    for asked, rank in zip(request.requests, answer.ranks, strict=True):
        if asked.seat is None:
            board = rank
        else:
            seats.append((asked.seat, rank))
    return engine_decide(table.engine, SupplyHandRanks(tuple(seats), board))


def _settled(table: PokerTable, key: str) -> bool:
    """Whether `key` is the rake transfer of a hand that is over and owes nothing now."""
    hand, _, kind = key.partition("/")
    if kind != "rake" or not hand.isdigit():
        return False
    number = int(hand)
    return 1 <= number <= table.engine.last_hand and number != table.rake_due


def _describe(record: object) -> str:
    if record is None:
        return "a player (nothing from outside)"
    round_ = getattr(record, "round", None)
    suffix = f" of hand {round_}" if round_ is not None else ""
    return f"{type(record).__name__}{suffix}"
