"""Identity: signed bearer tokens naming a principal and its role, and who may sign them.

Every RPC carries `authorization: Bearer <token>` metadata. The server interceptor verifies the
token (UNAUTHENTICATED when missing, expired, forged or signed by an issuer that may not sign
that role) and stores the `Principal` for the call; applications decide what the principal may
do (PERMISSION_DENIED).

Two ways to sign, chosen by the environment (`services.shared.settings`):

* **Service identities** (production, `croupier run`, docker-compose): Ed25519 JWTs (EdDSA).
  Each issuer — the operator (`croupier`: player, bot, admin and dealer-console tokens), the
  table and the workers — holds only its own private key; every service holds only the
  issuers' *public* keys and `may_sign` says which issuer may sign which role and subject, so a
  leaked worker key cannot mint an admin or a table token, and no verifier can sign anything.
* **Shared development key** (`CROUPIER_AUTH_KEY`, HMAC-SHA256): one secret signs and verifies
  every role. For tests, benchmarks and a developer's laptop only: whoever holds it is every
  identity at once. A server in this mode says so in its start-up log.
"""

from __future__ import annotations

import base64
import contextvars
import enum
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

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
    # Reads closed shuffles' seeds and every dealt card (the dealer's GetShuffle), nothing more.
    AUDITOR = "auditor"


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


# The operator's issuer: players, bots, admins and dealer consoles get their tokens from it (a
# login service or `croupier token`); it never signs as one of the deployables.
OPERATOR = "croupier"
# Deployables that call other services and so sign their own `service` tokens.
SERVICE_ISSUERS = ("table", "workers")
# Every deployable's name: no issuer but the deployable itself may sign a service token that
# names it (the dealer trusts the subject `table`, the ledger any service).
DEPLOYABLES = ("table", "dealer", "ledger", "evaluator", "workers")
# The issuers `croupier keys` makes keys for.
ISSUERS = (OPERATOR, *SERVICE_ISSUERS)
EDDSA = "EdDSA"


def may_sign(issuer: str, role: Role, subject: str) -> bool:
    """Whether a token from `issuer` may name `subject` with `role` (the verifiers' policy).

    * a deployable signs only `service` tokens naming itself; the workers also sign the tokens
      of the built-in bots they play (role `bot`, nothing more);
    * the operator signs people's and bots' tokens (player, bot, admin, dealer-console) and
      `service` tokens only for subjects that are not a deployable (an operator's tool such
      as `croupier simulate --full-stack`), so it can never pass for the table at the dealer.
    """
    if issuer == OPERATOR:
        if role is Role.SERVICE:
            return subject not in DEPLOYABLES
        return True
    if issuer in DEPLOYABLES:
        if role is Role.SERVICE:
            return subject == issuer
        return issuer == "workers" and role is Role.BOT
    return False


@dataclass(frozen=True, slots=True)
class SharedKey:
    """Development and test mode: one HMAC secret signs and verifies every role."""

    secret: str = field(repr=False)

    def __post_init__(self) -> None:
        if not self.secret:
            raise ValueError("signing key must not be empty")


@dataclass(frozen=True, slots=True)
class ServiceKeys:
    """Service identities: this process's issuer and private key (None when it signs nothing)
    and every issuer's public key."""

    public_keys: Mapping[str, Ed25519PublicKey]
    issuer: str = ""
    private_key: Ed25519PrivateKey | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.private_key is not None:
            if not self.issuer:
                raise ValueError("a signing key needs the name of its issuer")
            mine = self.public_keys.get(self.issuer)
            if mine is None or _raw(mine) != _raw(self.private_key.public_key()):
                raise ValueError(
                    f"the signing key is not the one the public keys name for '{self.issuer}'"
                )


Credentials = SharedKey | ServiceKeys


def credentials(key: str | Credentials) -> Credentials:
    """A plain string is the shared development key."""
    return SharedKey(key) if isinstance(key, str) else key


def issue_token(key: str | Credentials, subject: str, role: Role, ttl_seconds: int = 3600) -> str:
    """Sign a token for `subject` with `role` that expires after `ttl_seconds`.

    With service identities, an issuer refuses to sign what the verifiers would refuse
    (ValueError naming the issuer and role).
    """
    creds = credentials(key)
    now = int(time.time())
    claims: dict[str, object] = {
        "sub": subject,
        "role": role.value,
        "iat": now,
        "exp": now + ttl_seconds,
    }
    if isinstance(creds, SharedKey):
        claims["iss"] = ISSUER
        return jwt.encode(claims, creds.secret, algorithm=ALGORITHM)
    if creds.private_key is None:
        raise ValueError("this process holds no signing key (CROUPIER_AUTH_SIGNING_KEY_FILE)")
    if not may_sign(creds.issuer, role, subject):
        raise ValueError(
            f"issuer '{creds.issuer}' may not sign a {role.value} token for {subject!r}"
        )
    claims["iss"] = creds.issuer
    return jwt.encode(claims, creds.private_key, algorithm=EDDSA, headers={"kid": creds.issuer})


def verify_token(key: str | Credentials, token: str) -> Principal:
    """Return the principal a token names, or raise Unauthenticated saying why it is refused."""
    return _verify(credentials(key), token)[0]


def _verify(creds: Credentials, token: str) -> tuple[Principal, float]:
    """The principal and the token's expiry (Unix seconds), or Unauthenticated."""
    try:
        if isinstance(creds, SharedKey):
            issuer = ISSUER
            claims = jwt.decode(
                token,
                creds.secret,
                algorithms=[ALGORITHM],
                issuer=ISSUER,
                options={"require": ["exp", "sub", "iss"]},
            )
        else:
            issuer = str(jwt.get_unverified_header(token).get("kid", ""))
            public = creds.public_keys.get(issuer)
            if public is None:
                raise Unauthenticated(f"invalid token: unknown issuer {issuer!r}")
            claims = jwt.decode(
                token,
                public,
                algorithms=[EDDSA],
                issuer=issuer,
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
    subject = str(claims["sub"])
    if isinstance(creds, ServiceKeys) and not may_sign(issuer, role, subject):
        raise Unauthenticated(
            f"invalid token: issuer '{issuer}' may not sign a {role.value} token for {subject!r}"
        )
    return Principal(subject=subject, role=role), float(claims["exp"])


# --- key files ------------------------------------------------------------------------------
# A private key is PKCS#8 PEM (mode 0600); the public keys are one text file, a line per issuer:
# "<issuer> <urlsafe base64 of the 32-byte raw Ed25519 public key>", comments with "#".


def _raw(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """The Ed25519 private key in a PEM file, or ValueError saying what is wrong."""
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except OSError as exc:
        raise ValueError(f"cannot read the signing key {path}: {exc.strerror}") from exc
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{path} is not a PEM private key") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError(f"{path} is not an Ed25519 private key")
    return key


def parse_public_keys(text: str, source: str = "public keys") -> dict[str, Ed25519PublicKey]:
    keys: dict[str, Ed25519PublicKey] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        try:
            if len(parts) != 2:
                raise ValueError
            raw = base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4))
            keys[parts[0]] = Ed25519PublicKey.from_public_bytes(raw)
        except ValueError as exc:
            raise ValueError(
                f"{source} line {number}: expected '<issuer> <base64 Ed25519 public key>'"
            ) from exc
    if not keys:
        raise ValueError(f"{source} names no issuer")
    return keys


def format_public_keys(keys: Mapping[str, Ed25519PublicKey]) -> str:
    lines = ["# croupier token issuers' Ed25519 public keys (not secret)"]
    lines += [
        f"{issuer} {base64.urlsafe_b64encode(_raw(key)).decode().rstrip('=')}"
        for issuer, key in sorted(keys.items())
    ]
    return "\n".join(lines) + "\n"


def private_key_name(issuer: str) -> str:
    return f"{issuer}.key"


PUBLIC_KEYS_NAME = "public-keys"


def write_keys(directory: Path, issuers: tuple[str, ...] = ISSUERS) -> dict[str, Path]:
    """A new private key per issuer in `directory` (mode 0600, never overwritten) and the public
    keys file beside them; the paths written, by issuer and "public"."""
    directory.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    public: dict[str, Ed25519PublicKey] = {}
    for issuer in issuers:
        path = directory / private_key_name(issuer)
        if path.exists():
            key = load_private_key(path)
        else:
            key = Ed25519PrivateKey.generate()
            pem = key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(pem)
        written[issuer] = path
        public[issuer] = key.public_key()
    public_path = directory / PUBLIC_KEYS_NAME
    public_path.write_text(format_public_keys(public))
    written["public"] = public_path
    return written


def service_keys(
    public_keys_file: Path, issuer: str = "", signing_key_file: Path | None = None
) -> ServiceKeys:
    """Read the public keys and, when given, this issuer's private key (ValueError if unusable)."""
    try:
        text = public_keys_file.read_text()
    except OSError as exc:
        raise ValueError(f"cannot read the public keys {public_keys_file}: {exc.strerror}") from exc
    public = parse_public_keys(text, str(public_keys_file))
    private = load_private_key(signing_key_file) if signing_key_file is not None else None
    return ServiceKeys(public_keys=public, issuer=issuer, private_key=private)


class VerifiedTokens:
    """Verified principals per token string until the token expires (a bounded LRU).

    A client sends the same token on every call, and checking its signature costs more than
    the rest of a small RPC's auth; only a token that verified is remembered (a forged or
    malformed one is checked, and refused, every time), and a remembered token past its
    expiry is verified again, which refuses it as expired. Keyed by the exact token string,
    so a token differing in any byte is verified afresh.
    """

    def __init__(
        self,
        key: str | Credentials,
        max_entries: int = 10_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._key = credentials(key)
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
