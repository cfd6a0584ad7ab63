"""docker-compose.yml is complete (Docker itself is not available on build machines):
every deployable is there with an image, a healthcheck, health-gated dependencies and the
environment its settings code requires."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

from services.client.launcher import GRPC_DEPLOYABLES, has_module, worker_command
from services.shared import auth
from services.shared.replica_ack import ReplicaAck
from services.shared.settings import (
    AUTH_KEY_ENV,
    PUBLIC_KEYS_ENV,
    SIGNING_KEY_ENV,
    RuntimeSettings,
    env_prefix,
    target_env_name,
)
from tools import build_engine

ROOT = Path(__file__).resolve().parents[3]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
WORKER = "worker"
_SUBST = re.compile(r"\$\{(\w+)(?::?([-?])([^}]*))?\}")
_REQUIRE_ENV = re.compile(r"require_env\(\s*[\"']([A-Z0-9_]+)[\"']")
_TARGET_ENV = re.compile(r"target_env_name\(\s*[\"'](\w+)[\"']\s*\)")


def _substitute(value: object) -> str:
    """Compose's ${VAR:-default} / ${VAR:?error}, as if VAR were set for the required ones."""

    def replace(match: re.Match[str]) -> str:
        name, kind, default = match.groups()
        if kind == "-":
            return default
        return f"<{name}>"

    return _SUBST.sub(replace, str(value))


def environment(service: str) -> dict[str, str]:
    raw = SERVICES[service].get("environment", {})
    if isinstance(raw, list):
        raw = dict(item.split("=", 1) for item in raw)
    return {key: _substitute(value) for key, value in raw.items()}


def required_env_names(package: str) -> set[str]:
    """Variables the code of `package` (and the shared plumbing) requires at start-up."""
    names = set()
    sources = [*(ROOT / "services" / package).rglob("*.py")]
    sources += [p for p in (ROOT / "services" / "shared").rglob("*.py") if p.name != "settings.py"]
    for path in sources:
        text = path.read_text()
        names.update(_REQUIRE_ENV.findall(text))
        names.update(target_env_name(name) for name in _TARGET_ENV.findall(text))
    return names


def _port(address: str) -> int:
    return int(address.rpartition(":")[2])


def test_compose_has_redis_every_grpc_service_and_a_worker() -> None:
    assert set(SERVICES) == {"redis", *GRPC_DEPLOYABLES, WORKER}


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_every_service_has_an_image_and_a_healthcheck(service: str) -> None:
    spec = SERVICES[service]
    assert spec.get("build") or spec.get("image")
    test = spec.get("healthcheck", {}).get("test")
    assert test and test[0] in ("CMD", "CMD-SHELL") and len(test) > 1


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_dependencies_wait_until_healthy(service: str) -> None:
    for dependency, condition in SERVICES[service].get("depends_on", {}).items():
        assert dependency in SERVICES
        assert condition == {"condition": "service_healthy"}, f"{service} -> {dependency}"
    if service != "redis":
        assert "redis" in SERVICES[service]["depends_on"]


def test_the_table_starts_after_the_services_it_calls() -> None:
    assert {"dealer", "evaluator", "ledger"} <= set(SERVICES["table"]["depends_on"])


SECRETS = COMPOSE["secrets"]
SECRETS_DIR = "/run/secrets/"


def secrets_of(service: str) -> set[str]:
    return {s if isinstance(s, str) else s["source"] for s in SERVICES[service].get("secrets", [])}


def on_disk(service: str, keys_dir: Path) -> dict[str, str]:
    """The service's environment with each /run/secrets/<name> it mounts mapped to the file
    `croupier keys` wrote (and a dealer key) in `keys_dir`, as Docker would mount them."""
    written = auth.write_keys(keys_dir)
    (keys_dir / "dealer-key").write_text("ab" * 32 + "\n")
    assert set(written) >= {"public", *auth.ISSUERS}
    env = environment(service)
    for name, value in env.items():
        if value.startswith(SECRETS_DIR):
            secret = value.removeprefix(SECRETS_DIR)
            assert secret in secrets_of(service), f"{service}: {name} names unmounted {secret}"
            source = Path(SECRETS[secret]["file"])
            assert source.parent == Path("deploy/keys"), source
            env[name] = str(keys_dir / source.name)
    return env


def test_compose_secrets_are_files_croupier_keys_writes() -> None:
    names = {auth.PUBLIC_KEYS_NAME, "dealer-key", *map(auth.private_key_name, auth.ISSUERS)}
    for secret in SECRETS.values():
        assert Path(secret["file"]).name in names
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert "/deploy/keys/" in ignored, "keys must never be committed"


@pytest.mark.parametrize("service", [*GRPC_DEPLOYABLES, WORKER])
def test_each_service_holds_only_its_own_secrets(service: str) -> None:
    # The operator's key is mounted nowhere; a signing key only where that issuer runs; the
    # dealer's key only in the dealer.
    own = {"table": {"table_signing_key"}, WORKER: {"workers_signing_key"}}
    expected = {"public_keys", *own.get(service, set())}
    if service == "dealer":
        expected.add("dealer_key")
    assert secrets_of(service) == expected
    env = environment(service)
    assert AUTH_KEY_ENV not in env, "the shared development key has no place in a deployment"
    assert "CROUPIER_DEALER_KEY" not in env
    assert env[PUBLIC_KEYS_ENV] == SECRETS_DIR + "public_keys"
    if service in own:
        assert env[SIGNING_KEY_ENV] == SECRETS_DIR + next(iter(own[service]))
    else:
        assert SIGNING_KEY_ENV not in env


def test_the_operator_key_is_mounted_nowhere() -> None:
    operator = auth.private_key_name(auth.OPERATOR)
    assert not [name for name, s in SECRETS.items() if Path(s["file"]).name == operator]


@pytest.mark.parametrize("service", GRPC_DEPLOYABLES)
def test_grpc_services_start_from_their_env_and_are_probed_where_they_listen(
    service: str, tmp_path: Path
) -> None:
    spec = SERVICES[service]
    assert spec["command"] == ["croupier", "serve", service]
    settings = RuntimeSettings.from_env(service, env=on_disk(service, tmp_path))
    keys = settings.service_keys
    assert keys is not None and set(keys.public_keys) == set(auth.ISSUERS)
    assert (keys.private_key is not None) == (service == "table")
    port = _port(settings.address)
    assert settings.address.startswith("0.0.0.0:"), "bind all interfaces inside a container"
    assert spec["healthcheck"]["test"][-1] == f"127.0.0.1:{port}"
    assert f"{port}:{port}" in spec.get("ports", [])


@pytest.mark.parametrize("service", [*GRPC_DEPLOYABLES, WORKER])
def test_every_service_gets_the_environment_its_settings_code_requires(service: str) -> None:
    package = "workers" if service == WORKER else service
    missing = required_env_names(package) - set(environment(service))
    assert not missing, f"{service} needs {sorted(missing)} in docker-compose.yml"
    assert PUBLIC_KEYS_ENV in environment(service)


def test_the_worker_starts_with_its_own_identity(tmp_path: Path) -> None:
    from services.workers.settings import WorkerSettings

    settings = WorkerSettings.from_env(on_disk(WORKER, tmp_path))
    creds = settings.credentials
    assert isinstance(creds, auth.ServiceKeys) and creds.issuer == "workers"
    assert creds.private_key is not None


@pytest.mark.parametrize("service", [*GRPC_DEPLOYABLES, WORKER])
def test_targets_name_a_compose_service_on_the_port_it_listens_on(service: str) -> None:
    for key, value in environment(service).items():
        if not key.endswith("_TARGET"):
            continue
        target = next(n for n in GRPC_DEPLOYABLES if target_env_name(n) == key)
        host, _, port = value.rpartition(":")
        assert host == target and host in SERVICES
        listen = environment(target)[env_prefix(target) + "ADDR"]
        assert int(port) == _port(listen)


def test_redis_runs_with_the_repository_config_and_aof_everysec() -> None:
    redis = SERVICES["redis"]
    assert any("deploy/redis/redis.conf" in volume for volume in redis["volumes"])
    conf = (ROOT / "deploy" / "redis" / "redis.conf").read_text().splitlines()
    assert "appendonly yes" in conf and "appendfsync everysec" in conf


def test_the_required_env_scan_sees_require_env_calls() -> None:
    # Guards the scan itself: the table's settings will require its peers' addresses.
    assert _REQUIRE_ENV.findall('require_env("CROUPIER_DEALER_TARGET", "x")') == [
        "CROUPIER_DEALER_TARGET"
    ]
    assert _TARGET_ENV.findall('require_env(target_env_name("ledger"), "x")') == ["ledger"]


def _module_run_by(command: list[str]) -> str:
    """`python -m pkg` -> "pkg.__main__"; `celery -A pkg.mod:app ...` -> "pkg.mod"."""
    if command[:2] == ["python", "-m"]:
        return command[2] + ".__main__"
    return command[command.index("-A") + 1].partition(":")[0]


def test_the_worker_runs_the_celery_app_the_workers_package_defines() -> None:
    module = _module_run_by(SERVICES[WORKER]["command"])
    defines_app = any(
        "Celery(" in path.read_text() for path in (ROOT / "services" / "workers").rglob("*.py")
    )
    if defines_app:
        # Once there is a Celery app, compose and `croupier run` must both find it.
        assert has_module(module), f"compose runs {module}, which does not exist"
        assert worker_command() is not None
    else:
        assert worker_command() is None


def test_the_image_compiles_the_engine_and_ships_the_compiled_modules() -> None:
    # The image runs what `make` runs: the engine compiled by tools/build_engine.py, built
    # before the wheel, whose package data must carry the extension modules.
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    build = dockerfile.index("python tools/build_engine.py")
    assert (
        dockerfile.index("python tools/gen_protos.py") < build < dockerfile.index("pip install .")
    )
    assert "gcc" in dockerfile[: dockerfile.index("AS runtime")]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    package_data = pyproject["tool"]["setuptools"]["package-data"]
    for package in build_engine.COMPILED_PACKAGES:
        name = ".".join(("services", "games", package)).rstrip(".")
        assert "*.so" in package_data[name], name


def test_the_ledger_runs_in_strict_durability_on_a_redis_with_waitaof() -> None:
    # everysec can lose acknowledged commits on a Redis crash (docs/eventstore.md); the
    # ledger holds money, so the deployment waits for the fsync, which needs Redis >= 7.2.
    assert environment("ledger")["CROUPIER_DURABILITY"] == "strict"
    major, minor = (int(part) for part in SERVICES["redis"]["image"].split(":")[1].split(".")[:2])
    assert (major, minor) >= (7, 2)


@pytest.mark.parametrize("deployable", ["table", "dealer", "ledger"])
def test_no_write_waits_for_a_replica_the_single_redis_does_not_have(deployable: str) -> None:
    env = environment(deployable)
    assert ReplicaAck.from_env(f"CROUPIER_{deployable.upper()}", env).replicas == 0
