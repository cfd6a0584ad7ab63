"""Bots against bots: `croupier simulate` (engine-only or through the full stack)."""
