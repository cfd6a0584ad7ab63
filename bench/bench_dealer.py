"""Dealer throughput and latency.

Pure rows: a full 52-card derivation (key, HMAC-DRBG, rejection sampling, Fisher–Yates) plus
dealing every card through the DealSequence, and verifying a fully dealt hand; beside them
three shuffles that are NOT auditable (nobody can re-derive or check them afterwards):
`random.shuffle` (Mersenne Twister, predictable from outputs), `secrets.SystemRandom().shuffle`
(OS CSPRNG) and numpy's PCG64 `permutation`.

RPC rows: Deal (2 cards) and CreateShuffle through the full stack — real gRPC on loopback
with auth/metrics/error interceptors, the application, and the Redis event store on a private
server — and Deal with the in-memory event store, which isolates what Redis costs.

CPU rows: the dealer as its own process (`python -m services.dealer`, Redis store) and ten
client threads, each playing the dealer calls of a hold'em hand as the table makes them
(CreateShuffle of the next hand, Deal hole 12, Deal flop 3 + burn, turn and river 1 + burn,
Close; and batched, as the table sends them since AdvanceShuffles: the last hand's Close, the
next hand's CreateShuffle and the hole cards in one AdvanceShuffles, then the flop, turn and
river Deals): the dealer process's CPU (utime + stime from /proc) per call and per hand. "paced"
spaces each thread's calls 40-120 ms apart (about 100 calls/s in all, the rate the full-stack
table benchmark drives), "flat out" sends them back to back. At the same pace a grpc.health
Check (no application work, no Redis) shows what the gRPC server itself costs per call.
"""

from __future__ import annotations

import os
import random
import secrets
import statistics
import subprocess
import threading
import time
from collections.abc import Callable
from functools import partial

import numpy as np
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.percentiles import percentile
from bench.service_process import cpu_seconds, free_port, start_service
from croupier.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from services.dealer.application import register_events
from services.dealer.server import build
from services.dealer.settings import DealerSettings
from services.shared import auth
from services.shared.channels import connect
from services.shared.eventstore import EventRegistry, InMemoryEventStore
from services.shared.grpc_server import create_server
from services.shared.redis_embedded import start_private_redis
from services.shuffles.decks import DeckSpec
from services.shuffles.derivation import Contribution, commitment, derive_order
from services.shuffles.sequence import DealSequence
from services.shuffles.verification import Dealt, verify

AUTH_KEY = "bench-signing-key-0123456789abcdef-0123456789"
DECK = DeckSpec().card_multiset()
CONTRIBUTIONS = (Contribution("alice", b"alice-entropy"), Contribution("bob", b"bob-entropy"))


def _rate(fn: Callable[[int], object], n: int) -> float:
    fn(0)  # warm up
    started = time.perf_counter()
    for i in range(n):
        fn(i)
    return n / (time.perf_counter() - started)


def _derive(i: int) -> None:
    derive_order(i.to_bytes(32, "big"), f"b-{i}", CONTRIBUTIONS, 0, DECK)


def _derive_and_deal(i: int) -> None:
    seed = i.to_bytes(32, "big")
    sequence = DealSequence.start(
        DECK, lambda nonce, cards: derive_order(seed, f"b-{i}", CONTRIBUTIONS, nonce, cards)
    )
    for _ in range(52):
        _, sequence = sequence.deal(1)


def _verify_hand(hand: tuple[bytes, str, tuple[Dealt, ...]], _i: int) -> None:
    seed, sid, steps = hand
    assert verify(commitment(sid, seed), seed, sid, DeckSpec(), CONTRIBUTIONS, steps).ok


def _pure_rows(n: int) -> list[dict[str, object]]:
    seed = bytes(32)
    order = derive_order(seed, "bench", CONTRIBUTIONS, 0, DECK)
    hand = (seed, "bench", tuple(Dealt((card,)) for card in order))
    cards = list(DECK)
    system = secrets.SystemRandom()
    mersenne = random.Random(1)
    generator = np.random.default_rng(1)
    rows = [
        ("croupier derive order 52 (HMAC-DRBG)", _rate(_derive, n), "auditable"),
        ("croupier derive + deal 52 one by one", _rate(_derive_and_deal, n), "auditable"),
        ("croupier verify 52 dealt cards", _rate(partial(_verify_hand, hand), n), "auditable"),
        ("random.shuffle (Mersenne Twister)", _rate(lambda _: mersenne.shuffle(cards), n * 4),
         "not auditable, predictable"),
        ("secrets.SystemRandom().shuffle", _rate(lambda _: system.shuffle(cards), n * 4),
         "not auditable"),
        ("numpy PCG64 permutation(52)", _rate(lambda _: generator.permutation(52), n * 4),
         "not auditable, predictable"),
    ]  # fmt: skip
    return [
        {"variant": name, "shuffles_per_s": rate, "p50_ms": "", "p99_ms": "", "note": note}
        for name, rate, note in rows
    ]


def _latencies(call: Callable[[int], object], n: int) -> dict[str, float]:
    for i in range(min(50, n)):
        call(-1 - i)
    samples = []
    for i in range(n):
        started = time.perf_counter()
        call(i)
        samples.append(time.perf_counter() - started)
    samples.sort()
    return {
        "rpc_per_s": n / sum(samples),
        "p50_ms": statistics.median(samples) * 1000,
        "p99_ms": percentile(samples, 0.99) * 1000,
    }


def _rpc_rows(redis_url: str, n: int, label: str, in_memory: bool) -> list[dict[str, object]]:
    env = {
        "CROUPIER_AUTH_KEY": AUTH_KEY,
        "CROUPIER_DEALER_METRICS_PORT": "0",
        "REDIS_URL": redis_url,
        "CROUPIER_DEALER_KEY": secrets.token_hex(32),
    }
    settings = DealerSettings.from_env(env)
    store = InMemoryEventStore(register_events(EventRegistry())) if in_memory else None
    server, port = create_server(build(settings, store), settings.runtime)
    token = auth.issue_token(AUTH_KEY, "table", auth.Role.SERVICE, 3600)
    channel = connect(f"127.0.0.1:{port}", token)
    stub = dealer_pb2_grpc.DealerServiceStub(channel)
    prefix = secrets.token_hex(4)
    standard = dealer_pb2.DeckSpec(kind=dealer_pb2.DECK_KIND_STANDARD)
    rows = []
    try:
        if not in_memory:

            def create(i: int) -> None:
                sid = f"bench-{prefix}-c{i}"
                stub.CreateShuffle(dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=standard))

            rows.append({"variant": f"CreateShuffle RPC ({label})", **_latencies(create, n)})
        # Deal 2 cards at a time, 26 deals per shuffle, a fresh shuffle when one runs out.
        sid, left = "", 0

        def deal(i: int) -> None:
            nonlocal sid, left
            if left < 2:
                sid = f"bench-{prefix}-d{i}"
                stub.CreateShuffle(dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=standard))
                left = 52
            reply = stub.Deal(
                dealer_pb2.DealRequest(
                    shuffle_id=sid, count=2, purpose=dealer_pb2.DEAL_PURPOSE_HOLE
                )
            )
            left = reply.remaining

        # The deal that follows a CreateShuffle is timed together with it; 1 in 26.
        rows.append({"variant": f"Deal(2) RPC ({label})", **_latencies(deal, n)})
    finally:
        channel.close()
        server.stop(0).wait()
    return rows


def _dealer_process(redis_url: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {
        **os.environ,
        "CROUPIER_AUTH_KEY": AUTH_KEY,
        "REDIS_URL": redis_url,
        "CROUPIER_LOG_LEVEL": "warning",
        "CROUPIER_DEALER_KEY": secrets.token_hex(32),
        "CROUPIER_DEALER_ADDR": f"127.0.0.1:{port}",
        "CROUPIER_DEALER_METRICS_PORT": "0",
    }
    return start_service("dealer", port, env), port


def _hand_calls(
    stub: dealer_pb2_grpc.DealerServiceStub, prefix: str, hand: int, batched: bool = False
) -> list[Callable[[], object]]:
    """The dealer calls of one hold'em hand, in the table's order (see the module docstring);
    `batched`: the hand's boundary in one AdvanceShuffles (closing the hand before it)."""
    sid, board = f"{prefix}-{hand}", dealer_pb2.DEAL_PURPOSE_BOARD
    standard = dealer_pb2.DeckSpec(kind=dealer_pb2.DECK_KIND_STANDARD, copies=1)

    def deal(
        count: int, burn: int, purpose: dealer_pb2.DealPurpose.ValueType, step: str
    ) -> Callable[[], object]:
        request = dealer_pb2.DealRequest(
            shuffle_id=sid, count=count, burn=burn, purpose=purpose, idempotency_key=f"{sid}/{step}"
        )  # fmt: skip
        return lambda: stub.Deal(request)

    create = dealer_pb2.CreateShuffleRequest(shuffle_id=f"{prefix}-{hand + 1}", deck=standard)
    if batched:
        hole = dealer_pb2.DealRequest(
            shuffle_id=sid, count=12, purpose=dealer_pb2.DEAL_PURPOSE_HOLE,
            idempotency_key=f"{sid}/hole",
        )  # fmt: skip
        commands = [dealer_pb2.ShuffleCommand(create=create), dealer_pb2.ShuffleCommand(deal=hole)]
        if hand:
            last = dealer_pb2.CloseRequest(shuffle_id=f"{prefix}-{hand - 1}")
            commands.insert(0, dealer_pb2.ShuffleCommand(close=last))
        batch = dealer_pb2.AdvanceShufflesRequest(commands=commands)
        return [
            lambda: stub.AdvanceShuffles(batch),
            deal(3, 1, board, "flop"),
            deal(1, 1, board, "turn"),
            deal(1, 1, board, "river"),
        ]
    return [
        lambda: stub.CreateShuffle(create),
        deal(12, 0, dealer_pb2.DEAL_PURPOSE_HOLE, "hole"),
        deal(3, 1, board, "flop"),
        deal(1, 1, board, "turn"),
        deal(1, 1, board, "river"),
        lambda: stub.Close(dealer_pb2.CloseRequest(shuffle_id=sid)),
    ]


def _cpu_rows(redis_url: str, hands: int, clients: int = 10) -> list[dict[str, object]]:
    process, port = _dealer_process(redis_url)
    token = auth.issue_token(AUTH_KEY, "table", auth.Role.SERVICE, 3600)
    channels = [connect(f"127.0.0.1:{port}", token) for _ in range(clients)]
    stubs = [dealer_pb2_grpc.DealerServiceStub(channel) for channel in channels]
    healths = [health_pb2_grpc.HealthStub(channel) for channel in channels]
    rows = []

    def measure(variant: str, play: Callable[[int, random.Random], int]) -> None:
        counts = [0] * clients

        def client(c: int) -> None:
            counts[c] = play(c, random.Random(c))

        threads = [threading.Thread(target=client, args=(c,)) for c in range(clients)]
        before, started = cpu_seconds(process.pid), time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        cpu_ms, wall = (cpu_seconds(process.pid) - before) * 1000, time.perf_counter() - started
        calls, played = sum(counts), hands // clients * clients
        rows.append(
            {
                "variant": variant,
                "rpc_per_s": calls / wall,
                "calls_per_hand": calls / played,
                "dealer_cpu_ms_per_call": cpu_ms / calls,
                "dealer_cpu_ms_per_hand": cpu_ms / played,
                "load_1m": round(os.getloadavg()[0], 1),
            }
        )

    def hands_of(pace: bool, batched: bool = False) -> Callable[[int, random.Random], int]:
        def play(c: int, rng: random.Random) -> int:
            prefix = f"cpu-{secrets.token_hex(4)}-{c}"
            stubs[c].CreateShuffle(
                dealer_pb2.CreateShuffleRequest(
                    shuffle_id=f"{prefix}-0",
                    deck=dealer_pb2.DeckSpec(kind=dealer_pb2.DECK_KIND_STANDARD, copies=1),
                )
            )
            made = 0
            for hand in range(hands // clients):
                for call in _hand_calls(stubs[c], prefix, hand, batched):
                    if pace:
                        time.sleep(rng.uniform(0.04, 0.12))
                    call()
                    made += 1
            if batched:  # the last hand's Close (the next hand's batch would carry it)
                last = f"{prefix}-{hands // clients - 1}"
                stubs[c].Close(dealer_pb2.CloseRequest(shuffle_id=last))
                made += 1
            return made

        return play

    def health_checks(c: int, rng: random.Random) -> int:
        for _ in range(hands // clients * 6):
            time.sleep(rng.uniform(0.04, 0.12))
            healths[c].Check(health_pb2.HealthCheckRequest())
        return hands // clients * 6

    try:
        hands_of(pace=False)(0, random.Random(0))  # warm up: connections, threads, caches
        measure("hold'em hand's dealer calls, paced (dealer process)", hands_of(pace=True))
        measure(
            "hold'em hand's dealer calls batched (AdvanceShuffles + 3 Deals), paced "
            "(dealer process)",
            hands_of(pace=True, batched=True),
        )
        measure("grpc.health Check, same pace (dealer process)", health_checks)
        measure("hold'em hand's dealer calls, flat out (dealer process)", hands_of(pace=False))
        measure(
            "hold'em hand's dealer calls batched (AdvanceShuffles + 3 Deals), flat out "
            "(dealer process)",
            hands_of(pace=False, batched=True),
        )
    finally:
        for channel in channels:
            channel.close()
        process.terminate()
        process.wait(timeout=10)
    return rows


def run(quick: bool) -> list[dict[str, object]]:
    n_pure = 300 if quick else 3000
    n_rpc = 200 if quick else 2000
    rows = _pure_rows(n_pure)
    rows += _rpc_rows("redis://unused", n_rpc, "in-memory store", in_memory=True)
    redis = start_private_redis()
    try:
        rows += _rpc_rows(redis.url, n_rpc, "Redis store", in_memory=False)
        rows += _cpu_rows(redis.url, 100 if quick else 400)
    finally:
        redis.close()
    return rows
