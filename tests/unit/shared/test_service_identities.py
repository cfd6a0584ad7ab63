"""Service identities: each issuer signs with its own Ed25519 key, and a verifier accepts a
token only from an issuer that may sign that role for that subject (`auth.may_sign`).

The audit's finding: every service and the worker held the one HMAC key that signs admin and
service tokens, so the worker (which runs bot code) could mint the table's identity and close
a shuffle mid-hand. With identities, the worker's key signs only its own service token and its
bots' tokens."""

from __future__ import annotations

import time
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.shared import auth
from services.shared.errors import Unauthenticated
from services.shared.settings import RuntimeSettings, SettingsError

Role = auth.Role


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    return auth.write_keys(tmp_path)


def identity(keys: dict[str, Path], issuer: str) -> auth.ServiceKeys:
    return auth.service_keys(keys["public"], issuer, keys[issuer])


def verifier(keys: dict[str, Path]) -> auth.ServiceKeys:
    return auth.service_keys(keys["public"])


def forge(private: Ed25519PrivateKey, kid: str, subject: str, role: Role) -> str:
    """A token signed by `private` claiming issuer `kid`: what a thief of that key could make
    without going through `issue_token`'s own refusal."""
    now = int(time.time())
    claims = {"iss": kid, "sub": subject, "role": role.value, "iat": now, "exp": now + 60}
    return jwt.encode(claims, private, algorithm="EdDSA", headers={"kid": kid})


def test_each_issuer_signs_what_it_may_and_every_service_accepts_it(
    keys: dict[str, Path],
) -> None:
    check = verifier(keys)
    allowed = [
        ("table", "table", Role.SERVICE),
        ("workers", "workers", Role.SERVICE),
        ("workers", "bot-7", Role.BOT),
        ("croupier", "alice", Role.PLAYER),
        ("croupier", "ops", Role.ADMIN),
        ("croupier", "bob-bot", Role.BOT),
        ("croupier", "pit", Role.DEALER_CONSOLE),
        ("croupier", "simulate", Role.SERVICE),
    ]
    for issuer, subject, role in allowed:
        token = auth.issue_token(identity(keys, issuer), subject, role, 60)
        assert auth.verify_token(check, token) == auth.Principal(subject, role)


@pytest.mark.parametrize(
    ("issuer", "subject", "role"),
    [
        ("workers", "table", Role.SERVICE),  # the audit's attack: the worker as the table
        ("workers", "ops", Role.ADMIN),
        ("workers", "alice", Role.PLAYER),
        ("table", "workers", Role.SERVICE),
        ("table", "ops", Role.ADMIN),
        ("table", "alice", Role.PLAYER),
        ("croupier", "table", Role.SERVICE),
        ("croupier", "dealer", Role.SERVICE),
        ("croupier", "ledger", Role.SERVICE),
    ],
)
def test_no_issuer_signs_a_role_it_may_not_and_a_forged_one_is_refused(
    keys: dict[str, Path], issuer: str, subject: str, role: Role
) -> None:
    own = identity(keys, issuer)
    with pytest.raises(ValueError, match="may not sign"):
        auth.issue_token(own, subject, role, 60)
    assert own.private_key is not None
    forged = forge(own.private_key, issuer, subject, role)
    with pytest.raises(Unauthenticated, match="may not sign"):
        auth.verify_token(verifier(keys), forged)


def test_a_key_that_claims_another_issuer_is_refused(keys: dict[str, Path]) -> None:
    workers = identity(keys, "workers").private_key
    assert workers is not None
    with pytest.raises(Unauthenticated, match="invalid token"):
        auth.verify_token(verifier(keys), forge(workers, "table", "table", Role.SERVICE))
    with pytest.raises(Unauthenticated, match="unknown issuer"):
        auth.verify_token(verifier(keys), forge(workers, "mallory", "table", Role.SERVICE))


def test_the_shared_development_key_is_refused_where_identities_are_used(
    keys: dict[str, Path],
) -> None:
    token = auth.issue_token("a-shared-development-key-0123456789", "table", Role.SERVICE)
    with pytest.raises(Unauthenticated):
        auth.verify_token(verifier(keys), token)


def test_a_verifier_without_a_private_key_signs_nothing(keys: dict[str, Path]) -> None:
    with pytest.raises(ValueError, match="no signing key"):
        auth.issue_token(verifier(keys), "table", Role.SERVICE)


def test_a_signing_key_must_be_the_one_the_public_keys_name(keys: dict[str, Path]) -> None:
    with pytest.raises(ValueError, match="not the one the public keys name for 'table'"):
        auth.service_keys(keys["public"], "table", keys["workers"])


def test_settings_pick_the_mode_and_explain_every_mistake(keys: dict[str, Path]) -> None:
    base = {"CROUPIER_TABLE_METRICS_PORT": "0"}
    table = RuntimeSettings.from_env(
        "table",
        env=base
        | {
            "CROUPIER_AUTH_PUBLIC_KEYS_FILE": str(keys["public"]),
            "CROUPIER_AUTH_SIGNING_KEY_FILE": str(keys["table"]),
        },
    )
    assert table.service_keys is not None and table.service_keys.issuer == "table"
    assert not table.shared_key_mode
    dealer = RuntimeSettings.from_env(
        "dealer", env=base | {"CROUPIER_AUTH_PUBLIC_KEYS_FILE": str(keys["public"])}
    )
    assert dealer.service_keys is not None and dealer.service_keys.private_key is None
    dev = RuntimeSettings.from_env("dealer", env=base | {"CROUPIER_AUTH_KEY": "k" * 32})
    assert dev.shared_key_mode
    mistakes = {
        "not set": base,
        "not both": base
        | {"CROUPIER_AUTH_KEY": "k" * 32, "CROUPIER_AUTH_PUBLIC_KEYS_FILE": str(keys["public"])},
        "needs CROUPIER_AUTH_PUBLIC_KEYS_FILE": base
        | {"CROUPIER_AUTH_SIGNING_KEY_FILE": str(keys["table"])},
        "cannot read the public keys": base
        | {"CROUPIER_AUTH_PUBLIC_KEYS_FILE": str(keys["public"]) + ".missing"},
        "is not a PEM private key": base
        | {
            "CROUPIER_AUTH_PUBLIC_KEYS_FILE": str(keys["public"]),
            "CROUPIER_AUTH_SIGNING_KEY_FILE": str(keys["public"]),
        },
    }
    for message, env in mistakes.items():
        with pytest.raises(SettingsError, match=message):
            RuntimeSettings.from_env("table", env=env)


def test_a_malformed_public_keys_file_names_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "public-keys"
    bad.write_text("# comment\ntable not-base64!\n")
    with pytest.raises(ValueError, match="line 2"):
        auth.service_keys(bad)
