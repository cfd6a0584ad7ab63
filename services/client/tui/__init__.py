"""`croupier play`: the terminal UI (textual): a lobby, then tables to play or watch."""
