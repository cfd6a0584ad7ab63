"""Limits every service agrees on, so one refuses early what another could not hold later."""

from __future__ import annotations

# The most chips one amount, balance or hold may be. The ledger's Redis commit script checks
# funds with Lua numbers (doubles, exact up to 2**53), and a balance must never overflow
# Redis' int64 HINCRBY half-way through a script, so every quantity stays within 2**53 - 1.
# The table refuses options beyond it at CreateTable, before anything is opened.
MAX_CHIPS = 2**53 - 1
