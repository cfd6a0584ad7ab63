"""What per-position shuffle commitments (docs/dealer.md 2.10) cost, beside the derivation
they replaced.

Three operations, each in three peers measured side by side in the same run:

* **open a shuffle** (seed -> what CreateShuffle publishes): the plain derivation of 2.3
  (`derive_order`, what a shuffle cost before per-position commitments: the floor), and the
  positions root (base order, salts, leaves, Merkle tree) as the library computed it at
  `BEFORE` and as it computes it now, and now's parts;
* **a card proof**: what GetHandHistory does for one viewer of a six-handed hold'em hand
  (open every dealt card from the dealer's reveal, cut the viewer's, JSON), and what the
  player's `croupier verify PROOF` does with it (every opening against the root and the
  players' permutation); the floor is re-deriving the whole order from the seed;
* **a full hand history**: an auditor's `croupier verify` of the hand's whole record with the
  seed (`verify`), and the table's six viewers' card proofs of one hand.

"before" is the library `services/shuffles` at commit `BEFORE`, loaded from git into a
private package (`git show`), so the peers are the same code paths, not rewritten copies;
without git those rows are left out. "now" is the working tree's; "now, cached" is the
repeated call (the table answering a second viewer, the dealer dealing from the shuffle it
just created), where the library's segment memo answers.

Every peer's output is checked equal to the others' before it is timed. Each operation's
peers run interleaved, round after round, so a change in the machine's load hits all of them
alike: the figures are the median and the minimum per-round mean.
"""

from __future__ import annotations

import importlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from croupier.dealer.v1 import dealer_pb2
from services.dealer.application import DealerApplication, register_events
from services.dealer.seed_cipher import SeedCipher
from services.dealer.views import shuffle_info
from services.shared.auth import Principal, Role
from services.shared.eventstore import EventRegistry, InMemoryEventStore
from services.shuffles import positions
from services.shuffles.decks import DeckSpec
from services.shuffles.derivation import Contribution, derive_order, entropy_commitment
from services.shuffles.wire import PURPOSE_NAMES
from services.table import card_proofs
from services.table.adapters import reveal_json

BEFORE = "6d923ba2545c1b729ddf83d7d4f27751b41e1933"  # main before the one-pass commitments
ROOT = Path(__file__).resolve().parents[1]
TABLE = Principal("table", Role.SERVICE)
SEED = bytes(range(32))
SHUFFLE_ID = "bench-table.hand-1"
PLAYERS = 6
DECK = DeckSpec().card_multiset()
MODULES = (
    "decks drbg sampling derivation positions sequence verification openings wire history proof"
)


def load_before() -> dict[str, ModuleType] | None:
    """`services/shuffles` at BEFORE as the package `shuffles_before` (None without git)."""
    target = Path(tempfile.mkdtemp(prefix="shuffles-before-")) / "shuffles_before"
    target.mkdir()
    try:
        for name in ["__init__", *MODULES.split()]:
            source = subprocess.run(
                ["git", "-C", str(ROOT), "show", f"{BEFORE}:services/shuffles/{name}.py"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            (target / f"{name}.py").write_text(
                source.replace("services.shuffles", "shuffles_before")
            )
    except (OSError, subprocess.CalledProcessError):
        return None
    sys.path.insert(0, str(target.parent))
    return {name: importlib.import_module(f"shuffles_before.{name}") for name in MODULES.split()}


def closed_hand() -> tuple[str, dealer_pb2.ShuffleInfo, list[frozenset[str]]]:
    """A six-handed hold'em hand as the dealer closes it: its reveal (the table's copy), its
    ShuffleInfo and what each seat saw (its hole cards and the board)."""
    store = InMemoryEventStore(register_events(EventRegistry()))
    app = DealerApplication(store, SeedCipher(bytes(range(100, 132))), new_seed=lambda: SEED)
    app.create_shuffle(TABLE, SHUFFLE_ID, DeckSpec())
    entropies = [(f"seat-{i}", f"entropy of seat {i}, 16+ bytes".encode()) for i in range(6)]
    for who, entropy in entropies:
        app.contribute(TABLE, SHUFFLE_ID, who, entropy_commitment(SHUFFLE_ID, who, entropy))
    app.seal(TABLE, SHUFFLE_ID)
    for who, entropy in entropies:
        app.reveal(TABLE, SHUFFLE_ID, who, entropy)
    hole = app.deal(TABLE, SHUFFLE_ID, 2 * PLAYERS, dealer_pb2.DEAL_PURPOSE_HOLE).cards
    board = list(app.deal(TABLE, SHUFFLE_ID, 3, dealer_pb2.DEAL_PURPOSE_BOARD, burn=1).cards)
    for _ in range(2):
        board += app.deal(TABLE, SHUFFLE_ID, 1, dealer_pb2.DEAL_PURPOSE_BOARD, burn=1).cards
    app.close(TABLE, SHUFFLE_ID)
    state, _ = app.get(SHUFFLE_ID)
    info = shuffle_info(state, 0)
    reveal = reveal_json(dealer_pb2.CloseResponse(shuffle=info))
    seen = [frozenset([*hole[seat::PLAYERS], *board]) for seat in range(PLAYERS)]
    return reveal, info, seen


def card_proof_with(mods: dict[str, ModuleType], reveal: str, seen: frozenset[str]) -> str:
    """services/table/card_proofs.py's card_proof over another copy of the library."""
    data = json.loads(reveal)
    info = mods["history"]._shuffle_info(data)
    wire = mods["wire"]
    deck = wire.deck_from_wire(info.deck)
    contributions = [wire.contribution_from_wire(c) for c in info.contributions]
    purposes: list[int] = []
    for step in info.steps:
        if step.WhichOneof("step") == "deal":
            purposes += [int(step.deal.purpose)] * len(step.deal.cards)
    opened = mods["openings"].open_dealt(
        info.revealed_seed,
        info.shuffle_id,
        deck.card_multiset(),
        contributions,
        wire.steps_from_wire(info.steps),
    )
    dealt: dict[str, int] = {}
    for o in opened.openings:
        dealt[o.card] = dealt.get(o.card, 0) + 1
    chosen = []
    for opening, purpose in zip(opened.openings, purposes, strict=True):
        if purpose == dealer_pb2.DEAL_PURPOSE_BURN:
            continue
        public = purpose in card_proofs.PUBLIC_PURPOSES
        if public or (opening.card in seen and dealt[opening.card] == 1):
            chosen.append((opening, PURPOSE_NAMES.get(purpose, "")))
    proof = mods["proof"].card_proof_json(
        info.shuffle_id,
        deck,
        info.commitment,
        info.positions_root,
        list(info.reshuffle_roots),
        contributions,
        [(c.contributor, c.commitment, c.revealed) for c in info.commitments],
        chosen,
    )
    return json.dumps(proof, sort_keys=True)


def check_proof_with(mods: dict[str, ModuleType], proof_json: str) -> int:
    """What `croupier verify PROOF` does: parse the proof and check every opening."""
    check = mods["proof"].check_card_proof(mods["proof"].parse_card_proof(json.loads(proof_json)))
    assert check.ok, check
    return len(check.verdicts)


def verify_with(mods: dict[str, ModuleType], info: dealer_pb2.ShuffleInfo, root: bytes) -> int:
    """An auditor's `croupier verify` of the whole record with the seed."""
    wire = mods["wire"]
    result = mods["verification"].verify(
        info.commitment,
        info.revealed_seed,
        info.shuffle_id,
        wire.deck_from_wire(info.deck),
        [wire.contribution_from_wire(c) for c in info.contributions],
        wire.steps_from_wire(info.steps),
        root,
    )
    assert result.ok, result
    return int(result.cards_checked)


Peers = dict[str, Callable[[], object]]


def interleaved(peers: Peers, rounds: int, per_round: int) -> dict[str, tuple[float, float]]:
    """(median, minimum) microseconds per call of each peer, over `rounds` rounds in which
    every peer runs `per_round` calls in turn."""
    for call in peers.values():
        call()  # warm up (imports, lazily built tables)
    samples: dict[str, list[float]] = {name: [] for name in peers}
    for _ in range(rounds):
        for name, call in peers.items():
            started = time.perf_counter()
            for _ in range(per_round):
                call()
            samples[name].append((time.perf_counter() - started) / per_round * 1e6)
    return {name: (statistics.median(s), min(s)) for name, s in samples.items()}


def _rows(operation: str, peers: Peers, rounds: int, per_round: int) -> list[dict[str, Any]]:
    timed = interleaved(peers, rounds, per_round)
    floor = next(iter(timed.values()))[0]
    return [
        {
            "operation": operation,
            "variant": name,
            "median_us": median,
            "min_us": low,
            "x_floor": median / floor,
        }
        for name, (median, low) in timed.items()
    ]


def uncached(call: Callable[[], object]) -> Callable[[], object]:
    """`call` with the library's segment memo and the table's memo of opened reveals emptied
    first: what the first request for a hand costs."""

    def run() -> object:
        positions.forget_segments()
        card_proofs.forget_openings()
        return call()

    return run


def run(quick: bool) -> list[dict[str, Any]]:
    rounds, per_round = (5, 20) if quick else (25, 40)
    before = load_before()
    now = {name: importlib.import_module(f"services.shuffles.{name}") for name in MODULES.split()}
    reveal, info, seen = closed_hand()
    root = info.positions_root
    contributions = [Contribution(c.contributor, c.entropy) for c in info.contributions]

    def old_order() -> object:
        return derive_order(SEED, SHUFFLE_ID, contributions, 0, DECK)

    # The same hand dealt from the plain derivation: the record an old shuffle leaves.
    plain = derive_order(SEED, SHUFFLE_ID, contributions, 0, DECK)
    old_record = dealer_pb2.ShuffleInfo()
    old_record.CopyFrom(info)
    old_record.positions_root = b""
    dealt = 0
    for step in old_record.steps:
        if step.WhichOneof("step") == "deal":
            count = len(step.deal.cards)
            del step.deal.cards[:]
            step.deal.cards.extend(str(c) for c in plain[dealt : dealt + count])
            dealt += count

    # The peers must agree before their times mean anything.
    new_proofs = [card_proofs.card_proof(reveal, s) for s in seen]
    assert new_proofs == [card_proof_with(now, reveal, s) for s in seen]
    assert positions.seeded_segment(SEED, SHUFFLE_ID, 0, DECK).root == root
    if before is not None:
        assert before["positions"].seeded_segment(SEED, SHUFFLE_ID, 0, DECK).root == root
        assert new_proofs == [card_proof_with(before, reveal, s) for s in seen]

    def peers(
        floor: Callable[[], object],
        old: Callable[[dict[str, ModuleType]], object] | None,
        new: Callable[[], object],
    ) -> Peers:
        chosen: Peers = {"floor: plain derivation (2.3), no commitments": floor}
        if before is not None and old is not None:
            chosen[f"before ({BEFORE[:7]})"] = lambda: old(before)
        chosen["now"] = uncached(new)
        chosen["now, cached"] = new
        return chosen

    proof = new_proofs[0]
    opening = peers(
        old_order,
        lambda m: m["positions"].seeded_segment(SEED, SHUFFLE_ID, 0, DECK).root,
        lambda: positions.seeded_segment(SEED, SHUFFLE_ID, 0, DECK).root,
    )
    if before is not None:
        # the plain derivation as the library did it at BEFORE: what a shuffle cost the dealer
        # before per-position commitments, and before this library's faster Fisher-Yates
        old_derivation = before["derivation"]
        opening = {
            **dict(list(opening.items())[:1]),
            f"plain derivation (2.3) at {BEFORE[:7]}": lambda: old_derivation.derive_order(
                SEED, SHUFFLE_ID, contributions, 0, DECK
            ),
            **dict(list(opening.items())[1:]),
        }
    rows = _rows("open a shuffle (seed -> positions root)", opening, rounds, per_round)
    base = positions.base_order(SEED, SHUFFLE_ID, 0, DECK)
    rows += _rows(
        "open a shuffle, its parts now",
        {
            "floor: plain derivation (2.3), no commitments": old_order,
            "base order (Fisher-Yates over the DRBG)": uncached(
                lambda: positions.base_order(SEED, SHUFFLE_ID, 0, DECK)
            ),
            "52 salts": lambda: positions.salts(SEED, SHUFFLE_ID, 0, len(DECK)),
            "salts, leaves and tree over a base order": lambda: positions.segment(
                SEED, SHUFFLE_ID, 0, base
            ),
        },
        rounds,
        per_round,
    )
    rows += _rows(
        "card proof: build one viewer's (GetHandHistory)",
        peers(
            old_order,
            lambda m: card_proof_with(m, reveal, seen[0]),
            lambda: card_proofs.card_proof(reveal, seen[0]),
        ),
        rounds,
        per_round,
    )
    rows += _rows(
        "card proof: check it (croupier verify PROOF)",
        peers(
            old_order, lambda m: check_proof_with(m, proof), lambda: check_proof_with(now, proof)
        ),
        rounds,
        per_round,
    )
    rows += _rows(
        "hand history: verify the whole record with the seed",
        peers(
            lambda: verify_with(now, old_record, b""),
            lambda m: verify_with(m, info, root),
            lambda: verify_with(now, info, root),
        ),
        rounds,
        per_round,
    )
    rows += _rows(
        f"hand history: {PLAYERS} viewers' card proofs of one hand",
        peers(
            lambda: [old_order() for _ in seen],
            lambda m: [card_proof_with(m, reveal, s) for s in seen],
            lambda: [card_proofs.card_proof(reveal, s) for s in seen],
        ),
        rounds,
        max(1, per_round // 4),
    )
    return rows
