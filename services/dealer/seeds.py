"""The only impure piece of the derivation: fresh server seeds from the OS CSPRNG.

`secrets.token_bytes` reads the operating system's CSPRNG (getrandom / urandom). Seeds never
come from `random`, the clock or the process id, which is how the 1999 online-poker shuffle
was predicted from a few visible cards.
"""

from __future__ import annotations

import secrets

from services.shuffles.derivation import SEED_BYTES


class SecretBytes(bytes):
    """Bytes whose repr and str never show the value.

    Console logging renders tracebacks with local variables; a seed held in a local must not
    appear there (or in any accidental f-string) before Close.
    """

    def __repr__(self) -> str:
        return f"<secret: {len(self)} bytes>"

    __str__ = __repr__


def new_server_seed() -> SecretBytes:
    """A fresh 256-bit seed for one shuffle."""
    return SecretBytes(secrets.token_bytes(SEED_BYTES))
