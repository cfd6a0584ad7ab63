"""The auth interceptor's cache of verified tokens must never accept what verify_token refuses."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, tzinfo

import jwt
import jwt.api_jwt
import pytest

from services.shared import auth
from services.shared.errors import Unauthenticated

KEY = "unit-test-signing-key-0123456789abcdef"


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def shifted_datetime(seconds: float) -> type[datetime]:
    class Shifted(datetime):
        @classmethod
        def now(cls, tz: tzinfo | None = None) -> Shifted:
            moved = datetime.now(tz) + timedelta(seconds=seconds)
            return cls.fromtimestamp(moved.timestamp(), tz)

    return Shifted


def counting_verifier(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = auth._verify

    def spy(key: auth.Credentials, token: str) -> tuple[auth.Principal, float]:
        calls.append(token)
        return real(key, token)

    monkeypatch.setattr(auth, "_verify", spy)
    return calls


def test_a_repeated_valid_token_is_verified_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = counting_verifier(monkeypatch)
    tokens = auth.VerifiedTokens(KEY)
    token = auth.issue_token(KEY, "alice", auth.Role.PLAYER, 60)
    first = tokens.verify(token)
    second = tokens.verify(token)
    assert first == second == auth.Principal("alice", auth.Role.PLAYER)
    assert calls == [token]


def test_a_cached_token_is_refused_once_it_expires(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    tokens = auth.VerifiedTokens(KEY, clock=clock)
    token = auth.issue_token(KEY, "alice", auth.Role.PLAYER, 2)
    assert tokens.verify(token).subject == "alice"
    clock.now += 3
    # PyJWT reads the real clock: move it too, so the re-verification sees the expiry.
    monkeypatch.setattr(jwt.api_jwt, "datetime", shifted_datetime(clock.now - time.time()))
    with pytest.raises(Unauthenticated, match="expired"):
        tokens.verify(token)
    assert len(tokens) == 0


def test_a_cached_token_is_refused_at_its_expiry_second() -> None:
    clock = Clock()
    tokens = auth.VerifiedTokens(KEY, clock=clock)
    expires = int(time.time()) + 60
    token = jwt.encode(
        {"iss": auth.ISSUER, "sub": "bob", "role": "bot", "exp": expires}, KEY, algorithm="HS256"
    )
    tokens.verify(token)
    clock.now = expires  # the cache must not answer; the real check still sees it valid
    assert tokens.verify(token).subject == "bob"
    assert len(tokens) == 1


def test_a_forged_token_is_refused_every_time_and_never_cached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = counting_verifier(monkeypatch)
    tokens = auth.VerifiedTokens(KEY)
    forged = auth.issue_token("some-other-key-0123456789abcdef-xyz", "mallory", auth.Role.ADMIN)
    for _ in range(2):
        with pytest.raises(Unauthenticated, match="invalid token"):
            tokens.verify(forged)
    assert calls == [forged, forged]
    assert len(tokens) == 0


def test_a_tampered_copy_of_a_cached_token_is_refused() -> None:
    tokens = auth.VerifiedTokens(KEY)
    token = auth.issue_token(KEY, "alice", auth.Role.PLAYER, 60)
    tokens.verify(token)
    header, payload, signature = token.split(".")
    tampered = f"{header}.{payload}.{signature[:-2]}{'AA' if signature[-2:] != 'AA' else 'BB'}"
    with pytest.raises(Unauthenticated):
        tokens.verify(tampered)


def test_the_cache_keeps_only_the_most_recently_used_tokens() -> None:
    tokens = auth.VerifiedTokens(KEY, max_entries=2)
    a, b, c = (auth.issue_token(KEY, name, auth.Role.PLAYER, 60) for name in "abc")
    tokens.verify(a)
    tokens.verify(b)
    tokens.verify(a)  # a is now the most recent: b goes first
    tokens.verify(c)
    assert len(tokens) == 2
    assert set(tokens._entries) == {a, c}
