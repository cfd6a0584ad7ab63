"""Where the command-line tools find the operator's signing key.

In order: ``CROUPIER_AUTH_KEY`` (the shared development key), ``CROUPIER_AUTH_SIGNING_KEY_FILE``
with ``CROUPIER_AUTH_PUBLIC_KEYS_FILE`` (an operator's own Ed25519 key; issuer
``CROUPIER_AUTH_ISSUER``, by default ``croupier``), else the operator key `croupier run` keeps in
``<state>/keys``. The operator issuer signs players', bots', admins' and dealer consoles' tokens,
never a deployable's (`auth.may_sign`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from services.shared import auth
from services.shared.settings import (
    AUTH_KEY_ENV,
    ISSUER_ENV,
    PUBLIC_KEYS_ENV,
    SIGNING_KEY_ENV,
)

KEYS_DIR = "keys"


def keys_dir(state_dir: Path) -> Path:
    return state_dir / KEYS_DIR


def operator_credentials(
    state_dir: Path, env: Mapping[str, str] | None = None
) -> tuple[auth.Credentials, str] | None:
    """The operator's credentials and where they came from, or None when there are none.
    Raises ValueError when a named key file is unusable."""
    source = os.environ if env is None else env
    shared = source.get(AUTH_KEY_ENV, "").strip()
    if shared:
        return auth.SharedKey(shared), AUTH_KEY_ENV
    signing = source.get(SIGNING_KEY_ENV, "").strip()
    public = source.get(PUBLIC_KEYS_ENV, "").strip()
    issuer = source.get(ISSUER_ENV, "").strip() or auth.OPERATOR
    if signing and public:
        return auth.service_keys(Path(public), issuer, Path(signing)), signing
    directory = keys_dir(state_dir)
    key_file = directory / auth.private_key_name(auth.OPERATOR)
    public_file = directory / auth.PUBLIC_KEYS_NAME
    if key_file.exists() and public_file.exists():
        return auth.service_keys(public_file, auth.OPERATOR, key_file), str(key_file)
    return None
