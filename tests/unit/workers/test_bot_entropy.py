"""A built-in bot's entropy for a shuffle is the same in every worker process (so any of them
reveals what another committed), differs per shuffle and per bot, and cannot be computed
without the workers' key."""

from __future__ import annotations

from pathlib import Path

from services.shared import auth
from services.workers.bot_entropy import bot_entropy


def test_the_same_key_shuffle_and_bot_give_the_same_32_bytes(tmp_path: Path) -> None:
    paths = auth.write_keys(tmp_path, ("workers",))
    keys = auth.service_keys(paths["public"], "workers", paths["workers"])
    again = auth.service_keys(paths["public"], "workers", paths["workers"])
    entropy = bot_entropy(keys, "t1.hand-1", "bot-a")
    assert len(entropy) == 32
    assert bot_entropy(again, "t1.hand-1", "bot-a") == entropy
    assert bot_entropy(keys, "t1.hand-2", "bot-a") != entropy
    assert bot_entropy(keys, "t1.hand-1", "bot-b") != entropy


def test_another_key_gives_another_entropy(tmp_path: Path) -> None:
    one = auth.write_keys(tmp_path / "one", ("workers",))
    two = auth.write_keys(tmp_path / "two", ("workers",))
    first = auth.service_keys(one["public"], "workers", one["workers"])
    second = auth.service_keys(two["public"], "workers", two["workers"])
    assert bot_entropy(first, "t1.hand-1", "bot-a") != bot_entropy(second, "t1.hand-1", "bot-a")
    shared = bot_entropy("development key", "t1.hand-1", "bot-a")
    assert shared == bot_entropy("development key", "t1.hand-1", "bot-a")
    assert shared != bot_entropy("another development key", "t1.hand-1", "bot-a")
