"""Client-side load balancing over a service's replicas, with gRPC's own round_robin policy.

A target names one server or many:

* ``host:port``: one server (gRPC's default, pick_first);
* ``host:port,host:port,...``: a static list of replicas, e.g.
  ``CROUPIER_TABLE_TARGET=10.0.0.5:50051,10.0.0.6:50051``; the names are resolved once, when
  the channel is made, into one ``ipv4:``/``ipv6:`` target over every address;
* ``dns:///name:port``: every address DNS answers for the name (a Kubernetes headless
  Service: one per ready pod), resolved again as gRPC sees fit.

A list and a ``dns:`` target get ``grpc.lb_policy_name=round_robin``: each call goes to the
next ready replica, and a replica that dies drops out of the rotation until it answers again.
Any table replica may serve any table (expected versions arbitrate; docs/scale-out.md).
"""

from __future__ import annotations

import ipaddress
import socket

ROUND_ROBIN = ("grpc.lb_policy_name", "round_robin")


def _addresses(entry: str) -> list[tuple[int, str, int]]:
    host, sep, port = entry.strip().rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(f"target {entry!r} in a replica list is not host:port")
    host = host.strip("[]")
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        infos = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
        return [(family, str(info[0]), int(port)) for family, _, _, _, info in infos]
    family = socket.AF_INET if literal.version == 4 else socket.AF_INET6
    return [(family, str(literal), int(port))]


def balanced_target(target: str) -> tuple[str, list[tuple[str, str]]]:
    """The gRPC target for `target` (module docstring) and the channel options it needs."""
    if target.startswith("dns:"):
        return target, [ROUND_ROBIN]
    if "," not in target:
        return target, []
    found: list[tuple[int, str, int]] = []
    for entry in (part for part in target.split(",") if part.strip()):
        for address in _addresses(entry):
            if address not in found:
                found.append(address)
    # One target URI holds one address family: IPv4 when there is any.
    v4 = [(host, port) for family, host, port in found if family == socket.AF_INET]
    if v4:
        return "ipv4:" + ",".join(f"{h}:{p}" for h, p in v4), [ROUND_ROBIN]
    return "ipv6:" + ",".join(f"[{h}]:{p}" for _, h, p in found), [ROUND_ROBIN]
