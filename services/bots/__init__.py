"""Bots: pure decision policies and the SDK that external bot programs use."""
