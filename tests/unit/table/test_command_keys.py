"""CommandKeys holds exactly what the plain dict did (same entries, same order), immutably."""

from __future__ import annotations

import random

import pytest

from services.table.command_keys import REMEMBERED_KEYS, CommandKeys


def plain(keys: dict[str, int], key: str, version: int, limit: int) -> dict[str, int]:
    """The shell's former fold: copy, re-insert as the newest, drop the oldest past `limit`."""
    keys = dict(keys)
    keys.pop(key, None)
    keys[key] = version
    while len(keys) > limit:
        del keys[next(iter(keys))]
    return keys


def assert_same(
    keys: CommandKeys, expected: dict[str, int], probes: list[str], whole: bool = True
) -> None:
    if whole:
        assert list(keys.items()) == list(expected.items())
    assert len(keys) == len(expected)
    for probe in probes:
        assert keys.get(probe) == expected.get(probe)
        assert (probe in keys) == (probe in expected)


@pytest.mark.parametrize(("limit", "recent_limit"), [(8, 3), (5, 5), (1, 2), (REMEMBERED_KEYS, 64)])
def test_random_commands_leave_the_same_keys_as_the_plain_dict(
    limit: int, recent_limit: int
) -> None:
    rng = random.Random(limit * 1000 + recent_limit)
    universe = [f"k{n}" for n in range(limit * 3)]
    small = limit < 100
    for _ in range(20 if small else 2):
        keys = CommandKeys(limit=limit, recent_limit=recent_limit)
        expected: dict[str, int] = {}
        for step in range(limit * 6):
            # mostly fresh keys (each command has its own), now and then one seen before:
            # still remembered, or pushed out already
            key = rng.choice(universe) if rng.random() < 0.3 else f"fresh{step}"
            keys = keys.accepted(key, step)
            expected = plain(expected, key, step, limit)
            whole = small or step % 97 == 0
            assert_same(keys, expected, [key, rng.choice(universe), "never"], whole)
        assert_same(keys, expected, universe)


def test_extending_a_state_never_changes_it_or_its_siblings() -> None:
    base = CommandKeys(limit=4, recent_limit=2)
    for n in range(6):
        base = base.accepted(f"k{n}", n)
    snapshot = dict(base.items())
    # two branches from one state (a command that lost its append, then the real one)
    left = base.accepted("left", 100).accepted("k5", 101).accepted("x", 102)
    right = base.accepted("right", 200)
    assert dict(base.items()) == snapshot
    assert dict(right.items()) == {**{k: v for k, v in snapshot.items() if k != "k2"}, "right": 200}
    assert list(left.items()) == [("k4", 4), ("left", 100), ("k5", 101), ("x", 102)]


def test_it_reads_like_the_dict_it_replaced() -> None:
    keys = CommandKeys.of({"a": 1, "b": 2})
    assert keys == {"a": 1, "b": 2}
    assert keys["b"] == 2 and keys.get("c") is None and keys.get("c", 7) == 7
    with pytest.raises(KeyError):
        keys["c"]
    assert CommandKeys.of({f"k{n}": n for n in range(10)}, limit=3) == {"k7": 7, "k8": 8, "k9": 9}
