"""Live-dealer hold'em: the dealer's card reports and the irregularity procedures.

Kept apart from the compiled engine (services/games/poker/*.py is built with mypyc and held
byte-identical by the engine digest, the golden hands and the pokerkit differential tests), so
the electronic mode cannot change. See docs/games/irregularities.md.
"""
