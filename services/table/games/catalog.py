"""The games the table service hosts: one `GameTable` (adapter.py) per game, by name and by
the member of `TableOptions.game_options` that chooses it.

Adding a game adds one line to `ENTRIES` (after its rules package, its proto package and its
translation module under services/table/games/). The composition root (server.py) hands the
catalog to the application and the servicer; nothing else names a game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import grpc

from croupier.table.v1 import table_pb2
from services.shared import errors
from services.table.games import highcard, poker, spit, videopoker, videopoker_service
from services.table.games.adapter import GameTable

ENTRIES: tuple[GameTable, ...] = (
    poker.ADAPTER,
    highcard.ADAPTER,
    spit.ADAPTER,
    videopoker.ADAPTER,
)

# gRPC services a game adds beside TableService, by full service name: each adds itself to
# the table server given a function from a table id to (its game's name, its game state).
TableReader = Callable[[str], tuple[str, object]]
GAME_SERVICES: tuple[tuple[str, Callable[[grpc.Server, TableReader], None]], ...] = (
    (videopoker_service.SERVICE_NAME, videopoker_service.register),
)

# The game of a table whose CreateTable set no member of game_options (poker's first
# spelling), and of a stream whose TableCreated names none (written before other games).
DEFAULT_GAME = poker.ADAPTER.name


class Catalog:
    """Game adapters by catalog name and by TableOptions.game_options member."""

    def __init__(self, entries: Iterable[GameTable], default: str = DEFAULT_GAME) -> None:
        self._by_name: dict[str, GameTable] = {}
        self._by_field: dict[str, GameTable] = {}
        for entry in entries:
            if entry.name in self._by_name or entry.proto_field in self._by_field:
                raise ValueError(f"two catalog entries for {entry.name} / {entry.proto_field}")
            self._by_name[entry.name] = entry
            self._by_field[entry.proto_field] = entry
        self.default = self._by_name[default]

    def __iter__(self) -> Iterator[GameTable]:
        return iter(self._by_name.values())

    def named(self, name: str) -> GameTable:
        """The game a stream's TableCreated.game names ("" is the default game: poker)."""
        if not name:
            return self.default
        game = self._by_name.get(name)
        if game is None:
            raise errors.FailedPrecondition(
                f"this table service does not host {name!r} (it hosts {', '.join(self._by_name)})"
            )
        return game

    def for_options(self, options: table_pb2.TableOptions) -> GameTable:
        """The game CreateTable's options choose: the member of `game_options` that is set,
        else the default game (poker, in its first spelling)."""
        member = options.WhichOneof("game_options")
        if member is None:
            return self.default
        game = self._by_field.get(member)
        if game is None:
            raise errors.InvalidArgument(
                f"options.{member} names a game this table service does not host; it hosts "
                + ", ".join(f"options.{field}" for field in self._by_field)
            )
        return game

    def for_move(self, request: table_pb2.ActRequest) -> GameTable:
        """The game an Act's move is for: the member of `move` that is set, else the
        default game (poker, in its first spelling)."""
        member = request.WhichOneof("move")
        if member is None:
            return self.default
        game = self._by_field.get(member)
        if game is None:
            raise errors.InvalidArgument(f"ActRequest.{member} is no game this service hosts")
        return game


CATALOG = Catalog(ENTRIES)
