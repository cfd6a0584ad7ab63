"""`croupier run` (`make run`): the whole platform on one machine.

1. Service identities: an Ed25519 key per token issuer (the operator, the table, the workers)
   kept in ``<state>/keys`` (made once, like `croupier keys`), and the public keys every
   service verifies with. Each child gets only its own private key: the table and the worker
   theirs, the dealer, ledger and evaluator none (they call nobody); only the dealer gets the
   dealer key. ``CROUPIER_AUTH_KEY``, when set, switches to the shared development key instead.
2. Redis: ``REDIS_URL`` when set, else a private redis-server/valkey-server with AOF on, its
   data in ``<state>/redis`` (see services.shared.redis_embedded).
3. Every deployable built so far (a ``services/<name>/__main__.py`` exists), one child process
   each: first the services that call no other (evaluator, dealer, ledger, in parallel), then
   the table once those report grpc.health SERVING. Then the Celery worker, once
   ``services/workers`` has one.
4. A child that dies is started again (after `services.shared.restarts.restart_delay`: a
   second, backing off while it keeps dying), and so is the private Redis, on its port and
   data directory: one crashed process never stops the platform.
5. The house's development bankroll (house_bankroll.py): video poker pays wins from it.
6. Ctrl-C or SIGTERM: children get SIGTERM in reverse order, then SIGKILL (to their whole
   process group) if they outlive the grace period; Redis stops last. Nothing is left behind.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from services.client.house_bankroll import bankroll_from_env, fund_house, house_account
from services.sdk import ClientSettings, CroupierError
from services.shared import auth
from services.shared.healthcheck import wait_until_serving
from services.shared.operator_keys import keys_dir, operator_credentials
from services.shared.redis_embedded import (
    EmbeddedRedis,
    ExternalRedis,
    RedisHandle,
    RedisUnavailableError,
    find_server_binary,
    start_private_redis,
)
from services.shared.restarts import crashes_after, restart_delay
from services.shared.settings import (
    AUTH_KEY_ENV,
    DEFAULT_METRICS_PORTS,
    DEFAULT_PORTS,
    ISSUER_ENV,
    PUBLIC_KEYS_ENV,
    SIGNING_KEY_ENV,
    env_prefix,
    target_env_name,
)

# gRPC deployables in start order: the table calls the other three, so it comes last.
GRPC_DEPLOYABLES = ("evaluator", "dealer", "ledger", "table")
# Services that call others start in a later stage; one stage starts in parallel.
START_STAGE = {"evaluator": 0, "dealer": 0, "ledger": 0, "table": 1}
# Modules that, once they exist, hold the Celery app (`app`) the worker runs.
WORKER_APP_MODULES = ("services.workers.app", "services.workers.celery_app")
STOP_GRACE_SECONDS = 10.0
# Most chips a player may deposit at a time under `croupier run` (the development cashier).
DEV_CASHIER_LIMIT = 100_000


@dataclass(frozen=True, slots=True)
class Deployable:
    """A gRPC service process: `python -m <module>`, listening on CROUPIER_<NAME>_ADDR."""

    name: str
    module: str
    stage: int = 0


@dataclass
class Child:
    """One started process, how to reach it, and how to start it again."""

    name: str
    process: subprocess.Popen[bytes]
    address: str | None = None
    metrics_port: int = 0
    readers: list[threading.Thread] = field(default_factory=list)
    command: list[str] = field(default_factory=list)
    env: Mapping[str, str] = field(default_factory=dict)
    started_at: float = field(default_factory=time.monotonic)
    crashes: int = 0  # quick deaths in a row (restarts.crashes_after)
    restart_at: float | None = None  # when it dies: when to start it again (monotonic)

    @property
    def running(self) -> bool:
        return self.process.poll() is None


def has_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def available_deployables() -> list[Deployable]:
    """The gRPC deployables that can be started (their `__main__` module exists)."""
    return [
        Deployable(name, f"services.{name}", START_STAGE[name])
        for name in GRPC_DEPLOYABLES
        if has_module(f"services.{name}.__main__")
    ]


def worker_command() -> list[str] | None:
    """How to start the Celery worker, or None while there is none yet."""
    if has_module("services.workers.__main__"):
        return [sys.executable, "-m", "services.workers"]
    for module in WORKER_APP_MODULES:
        if has_module(module):
            return [
                sys.executable, "-m", "celery", "-A", f"{module}:app", "worker",
                "--loglevel=INFO", "--concurrency=2",
            ]  # fmt: skip
    return None


def service_identities(state_dir: Path) -> dict[str, Path]:
    """The issuers' private keys and the public keys file in ``<state>/keys`` (made once)."""
    return auth.write_keys(keys_dir(state_dir))


def dealer_key_file(state_dir: Path) -> Path:
    """The dealer's seed-encryption key for local runs: 32 random bytes as hex, mode 0600,
    kept in ``<state>/dealer-key`` so shuffles survive a restart of `croupier run`."""
    path = state_dir / "dealer-key"
    if not path.exists():
        state_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32) + "\n")
    return path


def start_redis(env: Mapping[str, str], state_dir: Path) -> RedisHandle:
    url = env.get("REDIS_URL", "").strip()
    if url:
        return ExternalRedis(url)
    binary = find_server_binary()
    if binary is None:
        return start_private_redis()
    data_dir = state_dir / "redis"
    data_dir.mkdir(parents=True, exist_ok=True)
    return EmbeddedRedis(binary, data_dir=data_dir).start()


# What no child inherits from the launcher's environment: each gets only its own secrets.
SECRET_ENV = (
    AUTH_KEY_ENV,
    SIGNING_KEY_ENV,
    ISSUER_ENV,
    PUBLIC_KEYS_ENV,
    "CROUPIER_DEALER_KEY",
    "CROUPIER_DEALER_KEY_FILE",
)
# Acknowledge a write only once that many replicas have it (services/shared/replica_ack.py).
WAIT_REPLICAS_ENV = (
    "CROUPIER_TABLE_WAIT_REPLICAS",
    "CROUPIER_DEALER_WAIT_REPLICAS",
    "CROUPIER_LEDGER_WAIT_REPLICAS",
)
# The children that sign tokens: their issuer (each signs with its own key only).
SIGNING_CHILDREN = {"table": "table", "worker": "workers"}


def child_environment(
    env: Mapping[str, str], redis_url: str, keys: Mapping[str, Path] | None = None
) -> dict[str, str]:
    """Environment every child shares: the public keys (or the shared development key when the
    launcher's environment has one), Redis, and where each service listens and is found. No
    private key: `secrets_for` adds the one a child may hold."""
    child = {name: value for name, value in env.items() if name not in SECRET_ENV}
    shared = env.get(AUTH_KEY_ENV, "").strip()
    if shared:
        child[AUTH_KEY_ENV] = shared
    elif keys is not None:
        child[PUBLIC_KEYS_ENV] = str(keys["public"])
    child["REDIS_URL"] = redis_url
    # The development cashier: a new player funds themselves (`croupier account deposit`).
    # A development platform only; production deployments leave it off (docs/clients.md).
    child.setdefault("CROUPIER_LEDGER_CASHIER_LIMIT", str(DEV_CASHIER_LIMIT))
    # The private Redis has no replica, so no write waits for one; an external REDIS_URL with
    # replicas may set these (docs/scale-out.md), and the children get what was set.
    for name in WAIT_REPLICAS_ENV:
        child.setdefault(name, "0")
    bind_host = child.get("CROUPIER_BIND_HOST", "127.0.0.1")
    for name in GRPC_DEPLOYABLES:
        prefix = env_prefix(name)
        address = child.setdefault(prefix + "ADDR", f"{bind_host}:{DEFAULT_PORTS[name]}")
        child.setdefault(target_env_name(name), address)
    return child


def secrets_for(
    name: str,
    shared: Mapping[str, str],
    keys: Mapping[str, Path] | None,
    dealer_key: Mapping[str, str],
) -> dict[str, str]:
    """`shared` plus the secrets child `name` needs: its own signing key, the dealer key."""
    child = dict(shared)
    issuer = SIGNING_CHILDREN.get(name)
    if issuer is not None and keys is not None and PUBLIC_KEYS_ENV in child:
        child[SIGNING_KEY_ENV] = str(keys[issuer])
        child[ISSUER_ENV] = issuer
    if name == "dealer":
        child.update(dealer_key)
    return child


def _pump(name: str, stream: IO[bytes], out: IO[str]) -> None:
    """Copy a child's output line by line, prefixed with its name."""
    for raw in iter(stream.readline, b""):
        out.write(f"{name:>9} | {raw.decode(errors='replace').rstrip()}\n")
        out.flush()
    stream.close()


def spawn(name: str, command: list[str], env: Mapping[str, str], out: IO[str]) -> Child:
    # A session of its own: a terminal's Ctrl-C reaches only the launcher, which stops the
    # children in order; and killpg can clean up anything a child forked.
    process = subprocess.Popen(
        command,
        env=dict(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    assert process.stdout is not None
    reader = threading.Thread(target=_pump, args=(name, process.stdout, out), daemon=True)
    reader.start()
    return Child(name=name, process=process, readers=[reader], command=command, env=env)


def stop_children(children: list[Child], grace: float = STOP_GRACE_SECONDS) -> None:
    """SIGTERM each child (last started first), then SIGKILL whatever is left of its group."""
    for child in reversed(children):
        if child.running:
            child.process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for child in reversed(children):
        try:
            child.process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.process.kill()
            child.process.wait()
        _kill_group(child.process.pid)
        for reader in child.readers:
            reader.join(timeout=2)


def _kill_group(pgid: int) -> None:
    """SIGKILL any process the child left in its group (e.g. worker pool processes)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


class Launcher:
    """Starts and stops the platform; `run()` blocks until a stop signal or a child dies."""

    def __init__(
        self,
        state_dir: Path,
        env: Mapping[str, str],
        out: IO[str],
        deployables: Sequence[Deployable] | None = None,
        *,
        with_worker: bool = True,
    ) -> None:
        self.with_worker = with_worker
        self.deployables = list(deployables) if deployables is not None else available_deployables()
        self.state_dir = state_dir
        self.env = env
        self.out = out
        self.children: list[Child] = []
        self.stop_requested = threading.Event()
        self._shared_env: dict[str, str] = {}
        self._keys: Mapping[str, Path] | None = None
        self._dealer_key: dict[str, str] = {}

    def _say(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def _request_stop(self, signum: int, _frame: object) -> None:
        self.stop_requested.set()

    def run(self) -> int:
        # SIGHUP too: children live in sessions of their own, so a closed terminal would
        # otherwise kill only the launcher and orphan them.
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, self._request_stop)
        keys = (
            None if self.env.get(AUTH_KEY_ENV, "").strip() else service_identities(self.state_dir)
        )
        try:
            redis = start_redis(self.env, self.state_dir)
        except RedisUnavailableError as exc:
            self._say(f"cannot start Redis: {exc}")
            return 1
        try:
            env = child_environment(self.env, redis.url, keys)
            dealer_key = {
                name: self.env[name]
                for name in ("CROUPIER_DEALER_KEY", "CROUPIER_DEALER_KEY_FILE")
                if self.env.get(name, "").strip()
            } or {"CROUPIER_DEALER_KEY_FILE": str(dealer_key_file(self.state_dir))}
            self._shared_env, self._keys, self._dealer_key = env, keys, dealer_key
            if not self._start_all(env):
                return 0 if self.stop_requested.is_set() else 1
            self._print_summary(redis, self._fund_house(env))
            return self._supervise(redis)
        finally:
            stop_children(self.children)
            redis.close()
            self._say("croupier stopped")

    def _start_all(self, env: Mapping[str, str]) -> bool:
        for stage in sorted({d.stage for d in self.deployables}):
            started = []
            for deployable in (d for d in self.deployables if d.stage == stage):
                name = deployable.name
                child = spawn(
                    name, [sys.executable, "-m", deployable.module], self._env_for(name), self.out
                )
                child.address = env.get(env_prefix(name) + "ADDR")
                metrics = env.get(env_prefix(name) + "METRICS_PORT", "")
                child.metrics_port = (
                    int(metrics) if metrics.isdigit() else DEFAULT_METRICS_PORTS.get(name, 0)
                )
                self.children.append(child)
                started.append(child)
            if not all(self._wait_healthy(child) for child in started):
                return False
        command = worker_command() if self.with_worker else None
        if command is not None:
            self.children.append(spawn("worker", command, self._env_for("worker"), self.out))
        return not self.stop_requested.is_set()

    def _env_for(self, name: str) -> dict[str, str]:
        return secrets_for(name, self._shared_env, self._keys, self._dealer_key)

    def _wait_healthy(self, child: Child) -> bool:
        if child.address is None:
            self._say(f"{child.name}: set {env_prefix(child.name)}ADDR so it can be probed")
            return False
        probe = child.address.replace("0.0.0.0:", "127.0.0.1:")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not self.stop_requested.is_set():
            if not child.running:
                self._say(f"{child.name} exited with status {child.process.returncode}")
                return False
            if wait_until_serving(probe, timeout=0.5):
                return True
        if not self.stop_requested.is_set():
            self._say(f"{child.name} did not become healthy on {child.address}")
        return False

    def _print_summary(self, redis: RedisHandle, house: str = "") -> None:
        self._say("croupier is running; Ctrl-C stops everything")
        where = getattr(redis, "data_dir", None)
        redis_pid = getattr(redis, "pid", None)
        self._say(
            f"  {'redis':<9} {redis.url}"
            + (f"  (private, data in {where})" if where else "  (REDIS_URL)")
            + (f"  pid {redis_pid}" if redis_pid else "")
        )
        for child in self.children:
            metrics = (
                f"  metrics http://127.0.0.1:{child.metrics_port}/metrics"
                if child.metrics_port
                else ""
            )
            listen = child.address or "(celery worker)"
            self._say(f"  {child.name:<9} {listen}{metrics}  pid {child.process.pid}")
        key_note = (
            "the shared development key CROUPIER_AUTH_KEY"
            if self.env.get(AUTH_KEY_ENV, "").strip()
            else f"Ed25519 service identities in {keys_dir(self.state_dir)}"
        )
        self._say(f"  tokens: {key_note}")
        if house:
            self._say(house)
        self._say("  a token: .venv/bin/croupier token --subject alice --role player")

    def _fund_house(self, env: Mapping[str, str]) -> str:
        """The house's development bankroll (house_bankroll.py), signed as a service with the
        operator's key; the summary's line about it (a failure too: the platform stays up)."""
        try:
            amount = bankroll_from_env(self.env)
            creds = operator_credentials(self.state_dir)
            if creds is None or not amount:
                return ""
            token = auth.issue_token(creds[0], "croupier-run", auth.Role.SERVICE, 60)
            target = env.get(target_env_name("ledger"), "")
            settings = ClientSettings(ledger=target.replace("0.0.0.0:", "127.0.0.1:"), token=token)
            balance = fund_house(settings, amount)
        except (ValueError, CroupierError) as exc:
            return f"  house:    no development bankroll ({exc})"
        return f"  house:    {house_account()} holds {balance} chips (pays video poker wins)"

    def _supervise(self, redis: RedisHandle) -> int:
        """Until a stop signal: start again whatever died (Redis first, it serves everyone)."""
        while not self.stop_requested.wait(0.2):
            self._keep_redis_up(redis)
            for child in self.children:
                self._keep_up(child)
        self._say("stopping")
        return 0

    def _keep_up(self, child: Child) -> None:
        if child.running:
            return
        now = time.monotonic()
        if child.restart_at is None:
            child.crashes = crashes_after(child.crashes, now - child.started_at)
            delay = restart_delay(child.crashes)
            child.restart_at = now + delay
            self._say(
                f"{child.name} exited with status {child.process.returncode}; "
                f"starting it again in {delay:.0f} s"
            )
            return
        if now < child.restart_at:
            return
        for reader in child.readers:
            reader.join(timeout=2)
        again = spawn(child.name, child.command, child.env, self.out)
        child.process, child.readers = again.process, again.readers
        child.started_at, child.restart_at = now, None
        self._say(f"{child.name} started again, pid {child.process.pid}")

    def _keep_redis_up(self, redis: RedisHandle) -> None:
        """Start the private Redis again on its port and data directory if it died (its AOF
        keeps what was acknowledged); an external one (REDIS_URL) is not ours to restart."""
        if not isinstance(redis, EmbeddedRedis) or redis.running:
            return
        self._say("redis exited; starting it again on the same port and data")
        try:
            redis.restart()
        except RedisUnavailableError as exc:
            self._say(f"redis did not start again ({exc}); trying again")
            return
        self._say(f"redis started again, pid {redis.pid}")


def run_platform(state_dir: Path, out: IO[str] | None = None) -> int:
    # Absolute: redis-server changes into its data directory before opening its log file.
    return Launcher(state_dir.resolve(), os.environ, out or sys.stdout).run()
