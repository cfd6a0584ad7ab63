"""The croupier client SDK: the one way our own clients (the CLI, the terminal UI, the bot
SDK) and anybody else's Python program talk to croupier.

    from services.sdk import Croupier, ClientSettings, poker_move, poker_options

    with Croupier(ClientSettings(token=token)) as c:
        table = c.tables.create_table(poker_options(big_blind=2), bots=[("tight", 0.5)])
        c.tables.join(table.table_id, buy_in=200)
        for item in c.tables.watch(table.table_id):
            ...

Typed wrappers over the generated stubs of every service (`TableClient`, `LedgerClient`,
`DealerClient`, `EvaluatorClient`, `VideoPokerClient`), sharing `ClientSettings`: targets,
token, TLS, deadlines and retries. Every refusal is a `CroupierError` subclass carrying the
server's message. docs/clients.md is the guide.
"""

from __future__ import annotations

from services.sdk.connection import ClientSettings, RetryPolicy, new_key
from services.sdk.dealer import (
    DealerClient,
    shown_commitment,
    shown_positions_root,
    shuffle_id,
    shuffle_id_of,
)
from services.sdk.entropy import EntropyContributor, entropy_commitment
from services.sdk.errors import (
    Aborted,
    AlreadyExists,
    CroupierError,
    DeadlineExceeded,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unauthenticated,
    Unavailable,
)
from services.sdk.evaluator import EvaluatorClient
from services.sdk.ledger import LedgerClient, player_account
from services.sdk.poker import poker_move, poker_options
from services.sdk.table import PlayStream, TableClient, TableWatch, act_request
from services.sdk.videopoker import VideoPokerClient

__all__ = [
    "Aborted",
    "AlreadyExists",
    "ClientSettings",
    "Croupier",
    "CroupierError",
    "DeadlineExceeded",
    "DealerClient",
    "EntropyContributor",
    "EvaluatorClient",
    "FailedPrecondition",
    "InvalidArgument",
    "LedgerClient",
    "NotFound",
    "PermissionDenied",
    "PlayStream",
    "RetryPolicy",
    "TableClient",
    "TableWatch",
    "Unauthenticated",
    "Unavailable",
    "VideoPokerClient",
    "act_request",
    "entropy_commitment",
    "new_key",
    "player_account",
    "poker_move",
    "poker_options",
    "shown_commitment",
    "shown_positions_root",
    "shuffle_id",
    "shuffle_id_of",
]


class Croupier:
    """Every service's client on one set of settings; channels open on first use."""

    def __init__(self, settings: ClientSettings | None = None) -> None:
        self.settings = settings or ClientSettings.from_env()
        self._tables: TableClient | None = None
        self._ledger: LedgerClient | None = None
        self._dealer: DealerClient | None = None
        self._evaluator: EvaluatorClient | None = None
        self._videopoker: VideoPokerClient | None = None

    @property
    def tables(self) -> TableClient:
        if self._tables is None:
            self._tables = TableClient(self.settings)
        return self._tables

    @property
    def ledger(self) -> LedgerClient:
        if self._ledger is None:
            self._ledger = LedgerClient(self.settings)
        return self._ledger

    @property
    def dealer(self) -> DealerClient:
        if self._dealer is None:
            self._dealer = DealerClient(self.settings)
        return self._dealer

    @property
    def evaluator(self) -> EvaluatorClient:
        if self._evaluator is None:
            self._evaluator = EvaluatorClient(self.settings)
        return self._evaluator

    @property
    def videopoker(self) -> VideoPokerClient:
        """Video poker machines (tables through `tables`, hints and pay tables)."""
        if self._videopoker is None:
            self._videopoker = VideoPokerClient(self.settings, self.tables)
        return self._videopoker

    def close(self) -> None:
        clients = (self._videopoker, self._tables, self._ledger, self._dealer, self._evaluator)
        for client in clients:
            if client is not None:
                client.close()

    def __enter__(self) -> Croupier:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
