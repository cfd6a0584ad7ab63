"""grpc.health.v1 probe: ``python -m services.shared.healthcheck HOST:PORT [SERVICE]``.

Exit status 0 when the server reports SERVING for SERVICE ("" = the whole server), 1
otherwise. Used by docker-compose healthchecks and by `croupier run` to wait for each
service. TLS follows the same variables as the services (``CROUPIER_TLS_CA`` to verify the
server; ``CROUPIER_TLS_CERT``/``CROUPIER_TLS_KEY`` as client certificate under mutual TLS).
"""

from __future__ import annotations

import sys
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.shared.channels import connect
from services.shared.settings import TlsSettings


def is_serving(
    address: str, service: str = "", *, timeout: float = 2.0, tls: TlsSettings | None = None
) -> bool:
    """One health check: True when `address` answers SERVING for `service`."""
    with connect(address, tls=tls) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=timeout
            )
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def wait_until_serving(
    address: str,
    service: str = "",
    *,
    timeout: float = 30.0,
    tls: TlsSettings | None = None,
) -> bool:
    """Poll until `address` is SERVING or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        if is_serving(address, service, timeout=1.0, tls=tls):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    address, service = argv[0], argv[1] if len(argv) > 1 else ""
    tls = TlsSettings.from_env()
    if is_serving(address, service, tls=tls if tls.client_enabled else None):
        return 0
    print(f"{address} is not SERVING {service or '(server)'}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
