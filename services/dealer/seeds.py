"""The only impure piece of the derivation: fresh server seeds from the OS CSPRNG.

`secrets.token_bytes` reads the operating system's CSPRNG (getrandom / urandom). Seeds never
come from `random`, the clock or the process id, which is how the 1999 online-poker shuffle
was predicted from a few visible cards.
"""

from __future__ import annotations

import secrets

from services.dealer.derivation import SEED_BYTES


def new_server_seed() -> bytes:
    """A fresh 256-bit seed for one shuffle."""
    return secrets.token_bytes(SEED_BYTES)
