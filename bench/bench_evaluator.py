"""Hand evaluator speed next to treys, phevaluator and eval7 on the same hands, same run.

Rows (hands per second, higher is better; `target` is the goal, `x eval7` the ratio to eval7
measured in the same rounds):
* five-card and seven-card single calls: croupier's fast path on pre-encoded ints
  (`eval5_ints` / `eval7_ints`, compiled by `make ranking`) and its friendly API
  (`evaluate_high`, cards + words), each peer through its public Python API, phevaluator also
  through its C entry points; the seven-card target is 1.2x eval7;
* batch seven-card: `eval7_batch` over a NumPy array (no peer has a batch path);
* Spit in the Ocean with 1 to 4 wild cards: `eval_wild5_ints`, and a naive evaluator that
  substitutes every card for the wilds over phevaluator (the only way the peers can do it);
* eight-or-better low, and exact AA v KK pre-flop equity (1,712,304 boards);
* Monte Carlo equity, trials per second: `equity` against eval7's
  `py_hand_vs_range_monte_carlo` for the same match-ups and trial counts, interleaved rounds
  (target: at least eval7's rate), and the peak memory of one call at the API's sample cap
  next to a small call (target: the same);
* `EvaluatePacked` through a real server process over loopback: hands per second from one
  client, next to `EvaluateMany` (target: 100,000 hands/s);
* the Showdown RPC for nine seats over loopback (p50/p99 latency) to a separate server process.

Throughputs are CPU time of the benchmark process (see `_rate`); the RPC latency is wall time.

`python -m bench --only evaluator [--quick]`. The full 133,784,560 seven-card census is
`make bench-seven` (bench/seven_card_census.py), not part of this module.
"""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RANKS = "23456789TJQKA"
SUITS = "cdhs"


def _rate(fn: Callable[[], Any], count: int, repeats: int = 3) -> float:
    """Best of `repeats` runs of `fn` (which evaluates `count` hands), in hands per second.

    Timed in CPU seconds of this (single-threaded) process: on a machine shared with other
    jobs that is the per-core throughput, where wall time would also count their turns.
    """
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return count / max(best, 1e-9)


def _hands(n: int, size: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [rng.sample(range(52), size) for _ in range(n)]


def _text(index: int) -> str:
    # croupier numbers cards suit-major (2c=0 .. Ac=12, 2d=13 ..).
    return RANKS[index % 13] + SUITS[index // 13]


def _peer_loops(hands: list[list[int]]) -> dict[str, Callable[[], Any]]:
    import eval7
    import treys
    from phevaluator.evaluator import _pheval, evaluate_cards

    size = len(hands[0])
    texts = [[_text(c) for c in h] for h in hands]
    treys_hands = [[treys.Card.new(t) for t in h] for h in texts]
    treys_eval = treys.Evaluator()
    e7_hands = [[eval7.Card(t) for t in h] for h in texts]
    ph_ids = [tuple((c % 13) * 4 + c // 13 for c in h) for h in hands]
    ph_c = _pheval.evaluate_7cards if size == 7 else _pheval.evaluate_5cards

    def treys_loop() -> None:
        for h in treys_hands:
            treys_eval.evaluate(h[:2], h[2:])

    def eval7_loop() -> None:
        for h in e7_hands:
            eval7.evaluate(h)

    def ph_loop() -> None:
        for h in ph_ids:
            evaluate_cards(*h)

    def ph_c_loop() -> None:
        for h in ph_ids:
            ph_c(*h)

    return {"treys": treys_loop, "eval7": eval7_loop, "phevaluator": ph_loop, "ph_c": ph_c_loop}


def _single_rows(quick: bool) -> list[dict[str, Any]]:
    from services.games.cards import card_from_index
    from services.ranking.encoding import FAST_INTS
    from services.ranking.fast import eval5_ints, eval7_ints
    from services.ranking.high import evaluate_high

    n = 50_000 if quick else 300_000
    rows = []
    for size, target in ((5, "1.0x eval7"), (7, "1.2x eval7")):
        hands = _hands(n, size, seed=size)
        # Pre-encoded hands as tuples (what a simulation keeps), peers' ids likewise.
        ints = [tuple(FAST_INTS[c] for c in h) for h in hands]
        fast = eval7_ints if size == 7 else eval5_ints

        def fast_loop(ints: list[tuple[int, ...]] = ints, fast: Callable[..., int] = fast) -> None:
            for h in ints:
                fast(*h)

        friendly_hands = [[card_from_index(c) for c in h] for h in hands[: n // 10]]

        def friendly_loop(friendly_hands: list[Any] = friendly_hands) -> None:
            for h in friendly_hands:
                evaluate_high(h)

        peers = _peer_loops(hands)
        loops = {
            "croupier": fast_loop,
            "eval7": peers["eval7"],
            "phevaluator": peers["phevaluator"],
            "phevaluator C entry": peers["ph_c"],
        }
        # Interleaved rounds, best of each: load from other jobs on the machine then hits
        # every library alike instead of whichever happened to run during a busy spell.
        best: dict[str, float] = {}
        for _ in range(5):
            for name, loop in loops.items():
                best[name] = max(best.get(name, 0.0), _rate(loop, n, 1))
        rows.append(
            {
                "variant": f"{size}-card single call (fast path, ints)",
                **best,
                "treys": _rate(peers["treys"], n, 1),
                "x eval7": best["croupier"] / best["eval7"],
                "target": target,
                "unit": "hands/s",
            }
        )
        rows.append(
            {
                "variant": f"{size}-card friendly API (cards + words)",
                "croupier": _rate(friendly_loop, len(friendly_hands)),
                "unit": "hands/s",
            }
        )
    return rows


def _batch_row(quick: bool) -> dict[str, Any]:
    from services.ranking.batch import eval7_batch

    n = 1_000_000 if quick else 5_000_000
    rng = np.random.default_rng(1)
    cards = np.argsort(rng.random((n, 52)), axis=1)[:, :7].astype(np.uint8)
    eval7_batch(cards[:10])  # builds the dense table once
    return {
        "variant": "7-card batch (NumPy, one core; no peer batch)",
        "croupier": _rate(lambda: eval7_batch(cards), n),
        "target": 30e6,
        "unit": "hands/s",
    }


def _naive_wild(hand: list[int], wild: set[int]) -> int:
    """Peers' only option: substitute every card not in the hand for each wild card."""
    from phevaluator.evaluator import _pheval

    naturals = [(c % 13) * 4 + c // 13 for c in hand if c not in wild]
    left = [i for i in range(52) if i not in naturals]
    best = 1 << 30
    for subs in itertools.combinations(left, len(hand) - len(naturals)):
        best = min(best, _pheval.evaluate_5cards(*naturals, *subs))
    return best


def _wild_rows(quick: bool) -> list[dict[str, Any]]:
    from services.games.cards import card_from_index
    from services.ranking.encoding import wild_encoding
    from services.ranking.fast import eval_wild5_ints
    from services.ranking.high import evaluate_high

    rng = random.Random(4)
    n = 50_000 if quick else 300_000
    rows = []
    for wilds in (1, 2, 3, 4):
        # Spit in the Ocean: four hole cards and the spit card; the spit's rank is wild.
        hands, encoded, friendly = [], [], []
        for _ in range(n):
            spit = rng.randrange(52)
            rank_cards = {spit % 13 + 13 * s for s in range(4)}
            others = [c for c in range(52) if c not in rank_cards]
            extra = rng.sample(sorted(rank_cards - {spit}), wilds - 1)
            hand = [spit, *extra, *rng.sample(others, 5 - wilds)]
            hands.append((hand, rank_cards))
            enc = wild_encoding(frozenset(rank_cards))
            first, second, third, fourth, fifth = (enc[card] for card in hand)
            encoded.append((first, second, third, fourth, fifth))
        for hand, rank_cards in hands[: n // 20]:
            wild = frozenset(card_from_index(c) for c in rank_cards)
            friendly.append(([card_from_index(c) for c in hand], wild))

        def fast_loop(encoded: list[tuple[int, int, int, int, int]] = encoded) -> None:
            for h in encoded:
                eval_wild5_ints(*h)

        def friendly_loop(friendly: list[Any] = friendly) -> None:
            for h, wild in friendly:
                evaluate_high(h, wild)

        naive_n = {1: 2000, 2: 60, 3: 3, 4: 1}[wilds] // (4 if quick else 1) or 1
        sample = hands[:naive_n]

        def naive_loop(sample: list[Any] = sample) -> None:
            for hand, rank_cards in sample:
                _naive_wild(hand, rank_cards)

        rows.append(
            {
                "variant": f"Spit in the Ocean, {wilds} wild (peer: naive substitution)",
                "croupier": _rate(fast_loop, n),
                "phevaluator C entry": _rate(naive_loop, naive_n, 1),
                "target": 1e6,
                "unit": "hands/s",
            }
        )
        rows.append(
            {
                "variant": f"Spit in the Ocean, {wilds} wild, friendly API",
                "croupier": _rate(friendly_loop, len(friendly)),
                "unit": "hands/s",
            }
        )
    return rows


def _low_and_equity_rows(quick: bool) -> list[dict[str, Any]]:
    from services.games.cards import card_from_index, parse_cards
    from services.ranking.equity import EquityGame, equity
    from services.ranking.low import low_value_of

    n = 30_000 if quick else 200_000
    hands = [[card_from_index(c) for c in h] for h in _hands(n, 7, seed=9)]

    def low_loop() -> None:
        for h in hands:
            low_value_of(h)

    start = time.process_time()
    result = equity(EquityGame.HOLDEM, [parse_cards("Ah As"), parse_cards("Kd Kc")])
    seconds = time.process_time() - start
    return [
        {
            "variant": "8-or-better low, 7 cards",
            "croupier": _rate(low_loop, n),
            "unit": "hands/s",
        },
        {
            "variant": f"AA v KK exact equity, {result.trials:,} boards "
            f"(AA {result.players[0].equity:.4f})",
            "croupier": seconds,
            "unit": "CPU s",
        },
    ]


def _equity_rows(quick: bool) -> list[dict[str, Any]]:
    import tracemalloc

    import eval7

    from services.games.cards import parse_cards
    from services.ranking.equity import EquityGame, equity

    everything = eval7.HandRange("22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32")
    matchups = [
        ("AhAs v a random hand, pre-flop", "Ah As", ""),
        ("AhKh v a random hand on 2c 7d 9h", "Ah Kh", "2c 7d 9h"),
    ]
    trials = 200_000 if quick else 1_000_000
    rows: list[dict[str, Any]] = []
    for name, hero, board in matchups:
        mine, shown = parse_cards(hero), parse_cards(board) if board else []
        players: list[list[Any]] = [list(mine), []]
        e7_hero = [eval7.Card(str(c)) for c in mine]
        e7_board = [eval7.Card(str(c)) for c in shown]
        equity(EquityGame.HOLDEM, players, shown, samples=1_000, max_exact=0)  # tables built

        def ours(players: list[list[Any]] = players, shown: Sequence[Any] = shown) -> float:
            result = equity(EquityGame.HOLDEM, players, shown, samples=trials, seed=1, max_exact=0)
            return result.players[0].equity

        def theirs(hero: list[Any] = e7_hero, board: list[Any] = e7_board) -> float:
            return float(eval7.py_hand_vs_range_monte_carlo(hero, everything, board, trials))

        best: dict[str, float] = {}
        shares: dict[str, float] = {}
        for _ in range(3):
            for who, run in (("croupier", ours), ("eval7", theirs)):
                start = time.process_time()
                shares[who] = run()
                best[who] = max(best.get(who, 0.0), trials / (time.process_time() - start))
        rows.append(
            {
                "variant": f"Monte Carlo equity, {name} (croupier {shares['croupier']:.4f}, "
                f"eval7 {shares['eval7']:.4f})",
                **best,
                "x eval7": best["croupier"] / best["eval7"],
                "target": "1.0x eval7",
                "unit": "trials/s",
            }
        )
    peaks = {}
    crowd = [parse_cards("Ah As"), [], [], [], [], []]
    for samples in (20_000, 1_000_000):
        tracemalloc.start()
        equity(EquityGame.HOLDEM, crowd, samples=samples, seed=1)
        peaks[samples] = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
    rows.append(
        {
            "variant": "Equity peak memory, AA v 5 random hands, 1,000,000 samples "
            f"(20,000 samples: {peaks[20_000]:.1f} MB)",
            "croupier": peaks[1_000_000],
            "target": "as for 20,000",
            "unit": "MB",
        }
    )
    return rows


def _server(key: str) -> tuple[subprocess.Popen[bytes], str]:
    from bench.service_process import free_port
    from services.evaluator.server import SERVICE_NAME
    from services.shared.healthcheck import wait_until_serving

    address = f"127.0.0.1:{free_port()}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
    env.update(
        CROUPIER_AUTH_KEY=key,
        CROUPIER_EVALUATOR_ADDR=address,
        CROUPIER_EVALUATOR_METRICS_PORT="0",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "services.evaluator"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    if not wait_until_serving(address, SERVICE_NAME, timeout=60):
        process.terminate()
        raise RuntimeError("evaluator never served")
    return process, address


def _packed_rows(quick: bool) -> list[dict[str, Any]]:
    from croupier.evaluator.v1 import evaluator_pb2 as pb
    from croupier.evaluator.v1 import evaluator_pb2_grpc
    from services.shared import auth
    from services.shared.channels import connect

    key = "bench-evaluator-signing-key-0123456789"
    process, address = _server(key)
    try:
        token = auth.issue_token(key, "bench", auth.Role.SERVICE, 3600)
        stub = evaluator_pb2_grpc.EvaluatorServiceStub(connect(address, token))
        rng = np.random.default_rng(8)
        per_call = 10_000
        hands = np.argsort(rng.random((per_call * 4, 52)), axis=1)[:, :7].astype(np.uint8)
        packed = [
            pb.EvaluatePackedRequest(cards=hands[i::4].tobytes(), cards_per_hand=7)
            for i in range(4)
        ]
        many = [
            pb.EvaluateManyRequest(
                requests=[pb.EvaluateRequest(hole_cards=[_text(c) for c in h]) for h in
                          hands[i * 1000 : (i + 1) * 1000].tolist()]
            )
            for i in range(4)
        ]  # fmt: skip
        seconds = 1.0 if quick else 4.0

        def rate(call: Any, requests: list[Any], size: int) -> float:
            call(requests[0])
            done, start = 0, time.perf_counter()
            while time.perf_counter() - start < seconds:
                call(requests[done % len(requests)])
                done += 1
            return done * size / (time.perf_counter() - start)

        packed_rate = rate(stub.EvaluatePacked, packed, per_call)
        many_rate = rate(stub.EvaluateMany, many, 1000)
        return [
            {
                "variant": f"EvaluatePacked RPC, 7 cards, {per_call:,} hands a call, one server "
                f"process, loopback (EvaluateMany, 1,000 a call: {many_rate:,.0f})",
                "croupier": packed_rate,
                "target": 100_000.0,
                "unit": "hands/s (wall)",
            }
        ]
    finally:
        process.terminate()
        process.wait(timeout=10)


def _showdown_row(quick: bool) -> dict[str, Any]:
    from bench.service_process import free_port
    from croupier.evaluator.v1 import evaluator_pb2 as pb
    from croupier.evaluator.v1 import evaluator_pb2_grpc
    from services.evaluator.server import SERVICE_NAME
    from services.shared import auth
    from services.shared.channels import connect
    from services.shared.healthcheck import wait_until_serving

    key = "bench-evaluator-signing-key-0123456789"
    address = f"127.0.0.1:{free_port()}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
    env.update(
        CROUPIER_AUTH_KEY=key,
        CROUPIER_EVALUATOR_ADDR=address,
        CROUPIER_EVALUATOR_METRICS_PORT="0",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "services.evaluator"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        if not wait_until_serving(address, SERVICE_NAME, timeout=60):
            raise RuntimeError("evaluator never served")
        token = auth.issue_token(key, "table", auth.Role.SERVICE, 3600)
        stub = evaluator_pb2_grpc.EvaluatorServiceStub(connect(address, token))
        rng = random.Random(3)
        requests = []
        for _ in range(200):
            deal = [_text(c) for c in rng.sample(range(52), 5 + 2 * 9)]
            requests.append(
                pb.ShowdownRequest(
                    split=pb.POT_SPLIT_HIGH_LOW_EIGHT_OR_BETTER,
                    board_cards=deal[:5],
                    seats=[
                        pb.SeatCards(seat=s + 1, hole_cards=deal[5 + 2 * s : 7 + 2 * s])
                        for s in range(9)
                    ],
                )
            )
        calls = 500 if quick else 3000
        for request in requests[:50]:
            stub.Showdown(request)
        latencies = []
        for i in range(calls):
            start = time.perf_counter()
            stub.Showdown(requests[i % len(requests)])
            latencies.append(time.perf_counter() - start)
        p50, p99 = np.percentile(np.array(latencies) * 1e3, [50, 99])
        return {
            "variant": f"Showdown RPC p99, 9 seats hi-lo, loopback "
            f"(p50 {p50:.2f} ms, {calls} calls)",
            "croupier": float(p99),
            "target": 2.0,
            "unit": "ms",
        }
    finally:
        process.terminate()
        process.wait(timeout=10)


def run(quick: bool) -> list[dict[str, Any]]:
    rows = _single_rows(quick)
    rows.append(_batch_row(quick))
    rows.extend(_wild_rows(quick))
    rows.extend(_low_and_equity_rows(quick))
    rows.extend(_equity_rows(quick))
    rows.extend(_packed_rows(quick))
    rows.append(_showdown_row(quick))
    return rows
