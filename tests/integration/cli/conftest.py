"""The CLI against the table tests' platform (table, dealer, ledger on loopback)."""

from __future__ import annotations

from tests.integration.table.conftest import platform

__all__ = ["platform"]
