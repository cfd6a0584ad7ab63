"""Ports picked for launched servers stay out of the range the kernel gives outgoing
connections, so none can be taken by a client socket between picking and binding."""

from __future__ import annotations

import random
import socket

import pytest

from services.shared import redis_embedded
from services.shared.redis_embedded import free_port


def test_ports_are_below_the_ephemeral_range_and_free() -> None:
    ceiling = redis_embedded._first_ephemeral_port()
    if ceiling <= redis_embedded._LOWEST_PORT:
        pytest.fail(f"this test needs Linux's ip_local_port_range (read {ceiling})")
    for _ in range(50):
        port = free_port()
        assert redis_embedded._LOWEST_PORT <= port < ceiling
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))  # free right now


def test_a_taken_port_is_never_handed_out(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as taken, socket.socket() as probe:
        taken.bind(("127.0.0.1", 0))
        probe.bind(("127.0.0.1", 0))
        busy, free = int(taken.getsockname()[1]), int(probe.getsockname()[1])
        probe.close()
        picks = iter([busy, busy, free])  # the "random" candidates, in turn
        monkeypatch.setattr(redis_embedded, "_first_ephemeral_port", lambda: 65_536)
        monkeypatch.setattr(random, "randrange", lambda lo, hi: next(picks))
        assert free_port() == free


def test_without_a_known_range_the_os_picks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redis_embedded, "_first_ephemeral_port", lambda: 0)
    port = free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))
