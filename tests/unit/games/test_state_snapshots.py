"""Every game's `encode_state` / `decode_state`: a state decoded from its bytes equals the
state it was made from, and folding the events after it gives exactly the state a replay from
the first event gives (seeded random games of each game, snapshots at many points); bytes of
another game, another shape version or corrupted on the way are refused, never trusted."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from services.games import contract as c
from services.games.highcard import RULES as HIGH_CARD
from services.games.highcard import HighCardConfig, Turn
from services.games.poker.catalog import GAMES
from services.games.poker.game_rules import RULES as POKER
from services.games.spit import RULES as SPIT
from services.games.spit import SpitConfig
from services.games.spit.config import Variation
from services.games.state_codec import StateCodec, StateDecodeError
from services.games.videopoker import RULES as VIDEO_POKER
from tests.unit.games.contract_driver import Run, World, play, seeded_shuffler, step
from tests.unit.games.poker.test_game_rules import _as_command
from tests.unit.games.poker.test_simulation import policy_with_timeouts, random_config
from tests.unit.games.spit.simulation import Report, play_game
from tests.unit.games.videopoker.machine import Machine

Rules = c.GameRules[Any, Any, Any, Any, Any]


def check_snapshots(rules: Rules, initial: Any, events: Sequence[Any], points: int = 25) -> None:
    """Snapshot the state after many prefixes of `events`; each decodes to the same state and
    resumes to the same final state, requests and deadlines as the full replay."""
    states = [initial]
    for event in events:
        states.append(rules.apply(states[-1], event))
    final = states[-1]
    step_size = max(1, len(events) // points)
    for k in [*range(0, len(events), step_size), len(events)]:
        data = rules.encode_state(states[k])
        decoded = rules.decode_state(data)
        assert decoded == states[k], f"state after {k} events"
        assert rules.encode_state(decoded) == data
        resumed = decoded
        for event in events[k:]:
            resumed = rules.apply(resumed, event)
        assert resumed == final
        assert rules.pending_chance(resumed) == rules.pending_chance(final)
        assert list(rules.deadlines(resumed)) == list(rules.deadlines(final))
        assert rules.view_for(resumed, None) == rules.view_for(final, None)


def poker_game(game: str, seed: int) -> tuple[Any, list[Any]]:
    rng = random.Random(f"snapshot/{game}/{seed}")
    config = random_config(game, rng)
    run = Run(POKER.initial_state(config))
    for seat in range(config.seats):
        step(POKER, run, c.SitDown(seat, f"p{seat}", rng.randint(20, 300)))
    policy = policy_with_timeouts(random.Random(f"policy/{game}/{seed}"))

    def choose(state: Any, seat: int) -> c.Command:
        return _as_command(state, policy(state.engine, POKER.legal_moves(state, seat)))

    seating = run.events
    played = play(POKER, run.state, World(seeded_shuffler(f"{game}/{seed}")), choose, rounds=8)
    return POKER.initial_state(config), seating + played.events


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_poker_table_resumes_from_any_snapshot_as_a_replay_from_the_start(game: str) -> None:
    for seed in range(2):
        initial, events = poker_game(game, seed)
        assert len(events) > 50
        check_snapshots(POKER, initial, events)


@pytest.mark.parametrize("seed", range(4))
def test_a_high_card_table_resumes_from_any_snapshot(seed: int) -> None:
    rng = random.Random(seed)
    config = HighCardConfig(ante=rng.randint(1, 5), max_buy_in=500)
    run = Run(HIGH_CARD.initial_state(config))
    for seat in (0, 1):
        step(HIGH_CARD, run, c.SitDown(seat, f"p{seat}", rng.randint(5, 60)))

    def choose(state: Any, seat: int) -> c.Command:
        mover = rng.choice(sorted(HIGH_CARD.to_act(state)))
        if rng.random() < 0.2:
            (deadline,) = [d for d in HIGH_CARD.deadlines(state) if d.seat == mover]
            return c.TimeOut(mover, deadline.id)
        return c.Move(mover, Turn(), by=f"p{mover}")

    seating = run.events
    world = World(seeded_shuffler(f"highcard/{seed}"))
    played = play(HIGH_CARD, run.state, world, choose, rounds=20)
    check_snapshots(HIGH_CARD, HIGH_CARD.initial_state(config), seating + played.events)


@pytest.mark.parametrize("variation", ["spit", "speed", "bicycle"])
def test_a_spit_table_resumes_from_any_snapshot(variation: str) -> None:
    config = SpitConfig(variation=Variation(variation))
    table = play_game(config, seed=7, report=Report(), full_checks=False)
    assert len(table.events) > 50
    check_snapshots(SPIT, SPIT.initial_state(config), table.events, points=40)


@pytest.mark.parametrize("coins", [1, 5, 10])
def test_a_video_poker_machine_resumes_from_any_snapshot(coins: int) -> None:
    rng = random.Random(coins)
    machine = Machine(seed=f"snapshot/{coins}".encode())
    machine.sit(100_000)
    for _ in range(6):
        machine.deal(rng.choice([3, 5, 10]), coins, rng.choice(["jacks-9-6", "deuces-wild"]))
        machine.hold(*[p for p in range(5) if rng.random() < 0.5])
    check_snapshots(VIDEO_POKER, VIDEO_POKER.initial_state(machine.config), machine.events)


ALL: list[tuple[Rules, Any]] = [
    (POKER, poker_game("texas-holdem", 0)),
    (HIGH_CARD, (HIGH_CARD.initial_state(HighCardConfig()), [])),
    (SPIT, (SPIT.initial_state(SpitConfig()), [])),
    (VIDEO_POKER, (VIDEO_POKER.initial_state(Machine().config), [])),
]


def _a_state(rules: Rules, game: tuple[Any, list[Any]]) -> Any:
    state, events = game
    for event in events:
        state = rules.apply(state, event)
    return state


@pytest.mark.parametrize(("rules", "game"), ALL, ids=lambda x: getattr(x, "name", ""))
def test_bytes_of_another_game_or_corrupted_are_refused(rules: Rules, game: Any) -> None:
    data = rules.encode_state(_a_state(rules, game))
    for other, _ in ALL:
        if other is not rules:
            with pytest.raises(StateDecodeError):
                other.decode_state(data)
    for bad in (b"", b"\x00\xff", data[: len(data) // 2], data + b"x", b"[1]", b"[]"):
        with pytest.raises(StateDecodeError):
            rules.decode_state(bad)
    # A record renamed or given another number of fields on the way is refused, whatever it is.
    rng = random.Random(0)
    for _ in range(40):
        flipped = bytearray(data)
        flipped[rng.randrange(len(flipped))] = rng.randrange(32, 127)
        try:
            decoded = rules.decode_state(bytes(flipped))
        except StateDecodeError:
            continue
        # A flip that still decodes is a different valid state or the same one; the table
        # shell's digest over the snapshot is what refuses those (services/table/snapshots.py).
        assert decoded is not None


def test_a_state_of_another_shape_version_is_refused() -> None:
    import services.games.highcard.state as hc_state

    old = StateCodec("high-card", 1, (hc_state,))
    newer = StateCodec("high-card", 2, (hc_state,))
    data = old.encode(HIGH_CARD.initial_state(HighCardConfig()))
    with pytest.raises(StateDecodeError, match="v1"):
        newer.decode(data)


def test_a_class_no_game_module_names_is_never_built() -> None:
    import services.games.highcard.state as hc_state

    codec = StateCodec("high-card", 1, (hc_state,))
    sneaky = b'[1,"high-card",1,["r","os.system","echo"]]'
    with pytest.raises(StateDecodeError, match=r"os\.system"):
        codec.decode(sneaky)
    with pytest.raises(TypeError, match="not registered"):
        codec.encode(object())
