"""Pure game rules: cards, betting, pots and one package per game.

Standard library only, no I/O, no clock, no randomness: a test enforces it.
"""
