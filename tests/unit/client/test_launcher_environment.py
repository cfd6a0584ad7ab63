"""What `croupier run` hands its children: replica acknowledgement off on its private Redis
(no replica), and whatever the operator set for an external one."""

from __future__ import annotations

from services.client.launcher import WAIT_REPLICAS_ENV, child_environment
from services.shared.replica_ack import ReplicaAck


def test_no_write_waits_for_a_replica_the_private_redis_does_not_have() -> None:
    child = child_environment({}, "redis://127.0.0.1:1/0")
    for prefix in ("CROUPIER_TABLE", "CROUPIER_DEALER", "CROUPIER_LEDGER"):
        assert ReplicaAck.from_env(prefix, child) == ReplicaAck(0)


def test_an_operators_setting_reaches_the_children() -> None:
    env = {name: "1" for name in WAIT_REPLICAS_ENV}
    child = child_environment(env, "redis://replicated:6379/0")
    assert {name: child[name] for name in WAIT_REPLICAS_ENV} == env
