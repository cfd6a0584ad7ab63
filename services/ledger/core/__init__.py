"""The pure double-entry core of the ledger: no I/O, no clock, no randomness.

`decide(state, command) -> events` validates a command against the state it needs;
`apply(state, event) -> state` folds an event in without validating; `audit` replays a journal
and compares it with a projection. The application and the Redis store are thin shells
around these functions.
"""
