"""Dealer service: auditable seeded shuffles, dealing on demand, reveal and verification."""
