"""Who the `croupier` commands act as, and where the platform is.

Service addresses come from `CROUPIER_<SVC>_TARGET` (default 127.0.0.1 and the usual ports,
where `croupier run` puts them). The caller is, first match wins:

1. `--token T` or `CROUPIER_TOKEN`: a bearer token as issued (production: your login's);
2. `--as NAME` or `CROUPIER_PLAYER=NAME`: a player token signed here for NAME with the
   operator's key (`CROUPIER_AUTH_KEY` in development, or the one `croupier run` keeps in
   `.run/keys`; services.shared.operator_keys): whoever holds it can sign players' tokens.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from services.sdk import ClientSettings, Croupier
from services.shared import auth
from services.shared.operator_keys import operator_credentials
from services.shared.settings import AUTH_KEY_ENV

PLAYER_ENV = "CROUPIER_PLAYER"
DEFAULT_STATE_DIR = Path(".run")
TOKEN_TTL_S = 12 * 3600


class IdentityError(Exception):
    """No way to say who the caller is: the message says what to pass."""


def signing_key(state_dir: Path = DEFAULT_STATE_DIR) -> auth.Credentials | None:
    """The operator's signing credentials (services.shared.operator_keys: CROUPIER_AUTH_KEY in
    development, an operator key file, or the key `croupier run` keeps in <state>/keys)."""
    try:
        found = operator_credentials(state_dir)
    except ValueError as exc:
        raise IdentityError(str(exc)) from None
    return None if found is None else found[0]


@dataclass(frozen=True, slots=True)
class Identity:
    """The global options of every command (`croupier --as alice ...`)."""

    player: str = ""
    token: str = ""
    state_dir: Path = DEFAULT_STATE_DIR
    timeout_s: float = 10.0
    table_target: str = ""  # overrides CROUPIER_TABLE_TARGET

    def subject(self) -> str:
        """The caller's name as tokens name it."""
        if self._token():
            try:
                return _unverified_subject(self._token())
            except ValueError as exc:
                raise IdentityError(f"the token is not a croupier token: {exc}") from None
        return self._player()

    def _token(self) -> str:
        return self.token or os.environ.get("CROUPIER_TOKEN", "").strip()

    def _player(self) -> str:
        return self.player or os.environ.get(PLAYER_ENV, "").strip()

    def bearer(self, role: auth.Role = auth.Role.PLAYER) -> str:
        token = self._token()
        if token:
            return token
        player = self._player()
        if not player:
            raise IdentityError(
                f"say who you are: croupier --as NAME ... (or {PLAYER_ENV}=NAME, or --token)"
            )
        key = signing_key(self.state_dir)
        if not key:
            raise IdentityError(
                f"no token and no signing key: pass --token, or set {AUTH_KEY_ENV}, or start "
                "`croupier run` (it keeps the operator's key in .run/keys)"
            )
        return auth.issue_token(key, player, role, TOKEN_TTL_S)

    def settings(self, role: auth.Role = auth.Role.PLAYER) -> ClientSettings:
        settings = replace(
            ClientSettings.from_env(), token=self.bearer(role), timeout_s=self.timeout_s
        )
        return replace(settings, table=self.table_target) if self.table_target else settings

    def connect(self, role: auth.Role = auth.Role.PLAYER) -> Croupier:
        return Croupier(self.settings(role))


def _unverified_subject(token: str) -> str:
    """The subject a token names, read without checking its signature (the server checks)."""
    import jwt

    try:
        claims = jwt.decode(token, options={"verify_signature": False})
    except jwt.InvalidTokenError as exc:
        raise ValueError(str(exc)) from None
    return str(claims.get("sub", ""))
