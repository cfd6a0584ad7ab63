"""deploy/k8s is complete and safe (no cluster on build machines: a structural check of the
base, and of the local overlay as `kubectl kustomize` builds it where kubectl is installed):
every deployable is a Deployment with probes, resources and a non-root read-only container
holding only its own secrets and the environment its settings code requires; the gRPC
services have headless Services and grpc.health.v1 probes on the port they listen on; every
Deployment has a PodDisruptionBudget and the table an autoscaler."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from services.client.launcher import GRPC_DEPLOYABLES
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
from tests.unit.deploy.test_compose import required_env_names

ROOT = Path(__file__).resolve().parents[3]
BASE = ROOT / "deploy" / "k8s" / "base"
LOCAL = ROOT / "deploy" / "k8s" / "overlays" / "local"
WORKERS = "workers"
DEPLOYABLES = (*GRPC_DEPLOYABLES, WORKERS)
MOUNT = "/run/secrets/croupier/"
# Each deployable's secrets: the issuers' public keys everywhere; a signing key only where
# that issuer runs; the dealer key only in the dealer; the operator's key nowhere.
OWN_SECRETS = {
    "table": {"croupier-table-signing-key"},
    WORKERS: {"croupier-workers-signing-key"},
    "dealer": {"croupier-dealer-key"},
}


def _load(paths: list[Path]) -> list[dict[str, Any]]:
    return [doc for path in paths for doc in yaml.safe_load_all(path.read_text()) if doc]


def base_resources() -> list[dict[str, Any]]:
    kustomization = yaml.safe_load((BASE / "kustomization.yaml").read_text())
    return _load([BASE / name for name in kustomization["resources"]])


RESOURCES = base_resources()


def of_kind(kind: str, resources: list[dict[str, Any]] = RESOURCES) -> dict[str, dict[str, Any]]:
    return {r["metadata"]["name"]: r for r in resources if r["kind"] == kind}


DEPLOYMENTS = of_kind("Deployment")
CONFIG = of_kind("ConfigMap")["croupier-config"]["data"]


def container(name: str) -> dict[str, Any]:
    containers = DEPLOYMENTS[name]["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return dict(containers[0])


def environment(name: str) -> dict[str, str]:
    env = dict(CONFIG)
    env.update({e["name"]: e["value"] for e in container(name).get("env", [])})
    return env


def test_every_deployable_is_a_deployment() -> None:
    assert set(DEPLOYMENTS) == set(DEPLOYABLES)


@pytest.mark.parametrize("name", DEPLOYABLES)
def test_pods_run_as_non_root_on_a_read_only_root_with_no_privileges(name: str) -> None:
    pod = DEPLOYMENTS[name]["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    assert pod["automountServiceAccountToken"] is False
    security = container(name)["securityContext"]
    assert security["readOnlyRootFilesystem"] is True
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"]["drop"] == ["ALL"]
    # The only writable place: an emptyDir on /tmp (the image's working directory).
    mounts = {m["mountPath"]: m for m in container(name)["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert "emptyDir" in volumes[mounts["/tmp"]["name"]]
    assert all(m.get("readOnly") for path, m in mounts.items() if path != "/tmp")


@pytest.mark.parametrize("name", DEPLOYABLES)
def test_every_container_requests_cpu_and_memory_and_is_probed(name: str) -> None:
    spec = container(name)
    assert {"cpu", "memory"} <= set(spec["resources"]["requests"])
    assert "memory" in spec["resources"]["limits"]
    assert "livenessProbe" in spec
    assert selected_by(of_kind("PodDisruptionBudget"), name), f"{name} has no PDB"


def selected_by(resources: dict[str, dict[str, Any]], name: str) -> list[str]:
    """The resources whose selector picks the pods of Deployment `name`."""
    labels = DEPLOYMENTS[name]["spec"]["template"]["metadata"]["labels"]
    return [
        key
        for key, r in resources.items()
        if all(labels.get(k) == v for k, v in _selector(r).items())
    ]


def _selector(resource: dict[str, Any]) -> dict[str, str]:
    selector = resource["spec"]["selector"]
    return dict(selector.get("matchLabels", selector))


@pytest.mark.parametrize("name", GRPC_DEPLOYABLES)
def test_grpc_services_listen_where_they_are_probed_and_served_headless(
    name: str, tmp_path: Path
) -> None:
    spec = container(name)
    assert spec["command"] == ["croupier", "serve", name]
    env = environment(name)
    env.update(_keys_on_disk(env, tmp_path))
    settings = RuntimeSettings.from_env(name, env=env)
    port = int(settings.address.rpartition(":")[2])
    assert settings.address.startswith("0.0.0.0:")
    for probe in ("readinessProbe", "livenessProbe"):
        assert spec[probe]["grpc"]["port"] == port, probe
    service = of_kind("Service")[name]
    assert service["spec"]["clusterIP"] == "None", "clients balance over the pods themselves"
    assert _selector(service) == DEPLOYMENTS[name]["spec"]["selector"]["matchLabels"]
    grpc_port = next(p for p in service["spec"]["ports"] if p["name"] == "grpc")
    assert grpc_port["port"] == port and grpc_port["targetPort"] == "grpc"
    assert {"name": "grpc", "containerPort": port} in spec["ports"]


def _keys_on_disk(env: dict[str, str], keys_dir: Path) -> dict[str, str]:
    """The key files the pod mounts, written by `croupier keys` into `keys_dir`."""
    auth.write_keys(keys_dir)
    (keys_dir / "dealer-key").write_text("ab" * 32 + "\n")
    return {k: str(keys_dir / v.removeprefix(MOUNT)) for k, v in env.items() if v.startswith(MOUNT)}


@pytest.mark.parametrize("name", DEPLOYABLES)
def test_each_deployable_mounts_only_its_own_secrets(name: str) -> None:
    pod = DEPLOYMENTS[name]["spec"]["template"]["spec"]
    secrets = {
        source["secret"]["name"]
        for volume in pod["volumes"]
        for source in volume.get("projected", {}).get("sources", [])
        if "secret" in source
    }
    secrets |= {v["secret"]["secretName"] for v in pod["volumes"] if "secret" in v}
    assert secrets == {"croupier-public-keys", *OWN_SECRETS.get(name, set())}
    env = environment(name)
    assert AUTH_KEY_ENV not in env, "the shared development key has no place in a deployment"
    assert env[PUBLIC_KEYS_ENV] == MOUNT + auth.PUBLIC_KEYS_NAME
    signing = {"table": "table.key", WORKERS: "workers.key"}
    assert env.get(SIGNING_KEY_ENV) == (MOUNT + signing[name] if name in signing else None)
    assert auth.private_key_name(auth.OPERATOR) not in " ".join(env.values())


@pytest.mark.parametrize("name", DEPLOYABLES)
def test_every_deployable_gets_the_environment_its_settings_code_requires(name: str) -> None:
    missing = required_env_names(name) - set(environment(name))
    assert not missing, f"{name} needs {sorted(missing)} in deploy/k8s"


def test_targets_are_headless_services_balanced_round_robin() -> None:
    for name in GRPC_DEPLOYABLES:
        port = environment(name)[env_prefix(name) + "ADDR"].rpartition(":")[2]
        assert CONFIG[target_env_name(name)] == f"dns:///{name}:{port}"


def test_redis_is_a_cluster_for_the_state_and_one_server_for_celery() -> None:
    assert CONFIG["REDIS_CLUSTER_NODES"] and "REDIS_URL" not in CONFIG
    assert CONFIG["CROUPIER_WORKERS_REDIS_URL"].startswith("redis://")
    # strict durability is refused on a cluster (WAITAOF must follow the write's connection)
    assert CONFIG["CROUPIER_DURABILITY"] == "everysec"


def test_the_table_scales_on_cpu_and_keeps_most_pods_through_disruptions() -> None:
    hpa = of_kind("HorizontalPodAutoscaler")["table"]["spec"]
    assert hpa["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "table"}
    assert 1 <= hpa["minReplicas"] < hpa["maxReplicas"]
    assert of_kind("PodDisruptionBudget")["table"]["spec"]["maxUnavailable"] == 1


KUBECTL = shutil.which("kubectl")


@pytest.mark.skipif(KUBECTL is None, reason="kubectl (for `kubectl kustomize`) not installed")
def test_the_local_overlay_builds_into_one_namespace_with_every_part() -> None:
    assert KUBECTL is not None
    built = subprocess.run(
        [KUBECTL, "kustomize", str(LOCAL)], check=True, capture_output=True, text=True
    ).stdout
    resources = [doc for doc in yaml.safe_load_all(built) if doc]
    kinds = sorted(r["kind"] for r in resources)
    assert kinds.count("Deployment") == len(DEPLOYABLES)
    assert kinds.count("PodDisruptionBudget") == len(DEPLOYABLES)
    assert kinds.count("Service") == len(GRPC_DEPLOYABLES)
    namespaced = [r for r in resources if r["kind"] != "Namespace"]
    assert {r["metadata"]["namespace"] for r in namespaced} == {"croupier"}
    for deployment in of_kind("Deployment", resources).values():
        assert deployment["metadata"]["labels"]["app.kubernetes.io/part-of"] == "croupier"
        (only,) = deployment["spec"]["template"]["spec"]["containers"]
        assert only["image"] == "croupier:latest"


@pytest.mark.parametrize("deployable", ["TABLE", "DEALER", "LEDGER"])
def test_every_write_waits_for_a_replica_of_its_cluster_master(deployable: str) -> None:
    # A master SIGKILLed inside the replication lag loses nothing acknowledged.
    assert ReplicaAck.from_env(f"CROUPIER_{deployable}", CONFIG) == ReplicaAck(1, 500)
