"""Chip ledger service: double-entry accounts, two-phase escrow and settlement."""
