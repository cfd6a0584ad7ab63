"""Identity: signed bearer tokens naming a principal and its role.

Every RPC carries `authorization: Bearer <token>` metadata. The token is a JWT signed with
HMAC-SHA256 (PyJWT) using the platform signing key from the environment. The server
interceptor verifies it (UNAUTHENTICATED when missing, expired or forged) and stores the
`Principal` for the call; applications decide what the principal may do (PERMISSION_DENIED).
"""

from __future__ import annotations

import contextvars
import enum
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import jwt

from services.shared.errors import PermissionDenied, Unauthenticated

ISSUER = "croupier"
ALGORITHM = "HS256"
METADATA_KEY = "authorization"


class Role(enum.StrEnum):
    """What kind of caller a principal is."""

    PLAYER = "player"
    BOT = "bot"
    DEALER_CONSOLE = "dealer-console"
    SERVICE = "service"
    ADMIN = "admin"


@dataclass(frozen=True, slots=True)
class Principal:
    """The verified caller of one RPC: a subject (player id, bot id, service name) and a role."""

    subject: str
    role: Role

    @property
    def is_service(self) -> bool:
        return self.role is Role.SERVICE

    def require(self, *roles: Role) -> None:
        """Raise PermissionDenied unless this principal has one of `roles`."""
        if self.role not in roles:
            allowed = ", ".join(r.value for r in roles)
            raise PermissionDenied(
                f"{self.role.value} '{self.subject}' may not do this; it needs role {allowed}"
            )


def issue_token(key: str, subject: str, role: Role, ttl_seconds: int = 3600) -> str:
    """Sign a token for `subject` with `role` that expires after `ttl_seconds`."""
    if not key:
        raise ValueError("signing key must not be empty")
    now = int(time.time())
    claims = {
        "iss": ISSUER,
        "sub": subject,
        "role": role.value,
        "iat": now,
        "exp": now + ttl_seconds,
    }
    return jwt.encode(claims, key, algorithm=ALGORITHM)


def verify_token(key: str, token: str) -> Principal:
    """Return the principal a token names, or raise Unauthenticated saying why it is refused."""
    return _verify(key, token)[0]


def _verify(key: str, token: str) -> tuple[Principal, float]:
    """The principal and the token's expiry (Unix seconds), or Unauthenticated."""
    try:
        claims = jwt.decode(
            token,
            key,
            algorithms=[ALGORITHM],
            issuer=ISSUER,
            options={"require": ["exp", "sub", "iss"]},
        )
    except jwt.ExpiredSignatureError as exc:
        raise Unauthenticated("token expired; request a new one") from exc
    except jwt.InvalidTokenError as exc:
        raise Unauthenticated(f"invalid token: {exc}") from exc
    try:
        role = Role(claims.get("role", ""))
    except ValueError as exc:
        raise Unauthenticated(f"invalid token: unknown role {claims.get('role')!r}") from exc
    return Principal(subject=str(claims["sub"]), role=role), float(claims["exp"])


class VerifiedTokens:
    """Verified principals per token string until the token expires (a bounded LRU).

    A client sends the same token on every call, and checking its signature costs more than
    the rest of a small RPC's auth; only a token that verified is remembered (a forged or
    malformed one is checked, and refused, every time), and a remembered token past its
    expiry is verified again, which refuses it as expired. Keyed by the exact token string,
    so a token differing in any byte is verified afresh.
    """

    def __init__(
        self, key: str, max_entries: int = 10_000, clock: Callable[[], float] = time.time
    ) -> None:
        self._key = key
        self._max = max_entries
        self._clock = clock
        self._entries: OrderedDict[str, tuple[Principal, float]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def verify(self, token: str) -> Principal:
        """Like `verify_token(key, token)`, answering a repeated valid token from memory."""
        now = self._clock()
        with self._lock:
            entry = self._entries.get(token)
            if entry is not None:
                if now < entry[1]:  # PyJWT refuses a token once now >= exp
                    self._entries.move_to_end(token)
                    return entry[0]
                del self._entries[token]
        principal, expires = _verify(self._key, token)
        with self._lock:
            self._entries[token] = (principal, expires)
            self._entries.move_to_end(token)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)
        return principal


def bearer_metadata(token: str) -> tuple[tuple[str, str], ...]:
    """gRPC call metadata carrying `token`, for clients."""
    return ((METADATA_KEY, f"Bearer {token}"),)


_current: contextvars.ContextVar[Principal | None] = contextvars.ContextVar(
    "croupier_principal", default=None
)


def current_principal() -> Principal:
    """The principal of the RPC being served (set by the auth interceptor)."""
    principal = _current.get()
    if principal is None:
        raise Unauthenticated("no credentials: send 'authorization: Bearer <token>' metadata")
    return principal


def set_current_principal(principal: Principal | None) -> contextvars.Token[Principal | None]:
    """Bind the principal for the current call; the interceptor resets it afterwards."""
    return _current.set(principal)


def reset_current_principal(token: contextvars.Token[Principal | None]) -> None:
    _current.reset(token)
