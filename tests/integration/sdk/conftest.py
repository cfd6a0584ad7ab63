"""The client SDK against the real services: the table tests' platform (table, dealer and
ledger servers on loopback over the session's Redis), with SDK clients for any principal."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services.sdk import ClientSettings, Croupier
from services.shared import auth
from tests.integration.table.conftest import KEY, Platform, platform

__all__ = ["platform"]


class Clients:
    """SDK clients of one platform, closed at the end of the test."""

    def __init__(self, platform: Platform) -> None:
        self.platform = platform
        self._opened: list[Croupier] = []

    def settings(
        self, subject: str, role: auth.Role = auth.Role.PLAYER, **extra: object
    ) -> ClientSettings:
        return ClientSettings(
            table=f"127.0.0.1:{self.platform.port}",
            ledger=f"127.0.0.1:{self.platform.ledger_port}",
            token=auth.issue_token(KEY, subject, role, 600),
            **extra,  # type: ignore[arg-type]
        )

    def __call__(
        self, subject: str, role: auth.Role = auth.Role.PLAYER, **extra: object
    ) -> Croupier:
        client = Croupier(self.settings(subject, role, **extra))
        self._opened.append(client)
        return client

    def close(self) -> None:
        for client in self._opened:
            client.close()


@pytest.fixture
def clients(platform: Platform) -> Iterator[Clients]:
    handle = Clients(platform)
    yield handle
    handle.close()
