"""A client's mirror of the table (services/games/spit/mirror.py): built from a viewer's view
at any moment, or from the empty table, and fed that viewer's redacted events, it shows that
viewer exactly what the table's own view shows them, at every event of complete random games
of every variation, and never a card they may not see."""

from __future__ import annotations

import random

import pytest

from services.games.spit import RULES, SpitConfig, Variation
from services.games.spit import mirror as mirror_of
from services.games.spit.reducer import apply
from services.games.spit.state import SpitState
from tests.unit.games.spit.simulation import Report, play_game
from tests.unit.games.spit.support import cards_in, visible_cards

CONFIGS = {
    "spit": SpitConfig(),
    "four-piles": SpitConfig(piles=4),
    "alternating-colours": SpitConfig(alternating_colours=True),
    "bicycle": SpitConfig(variation=Variation.BICYCLE),
    "speed": SpitConfig(variation=Variation.SPEED, stake=25),
}
VIEWERS = (None, 0, 1)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_a_mirror_fed_redacted_events_shows_what_the_table_shows(name: str) -> None:
    config = CONFIGS[name]
    for seed in range(1):
        table = play_game(config, seed, Report(), full_checks=False)
        rng = random.Random(seed)
        # Where each viewer's second mirror starts: from the view at a random event.
        joins = {viewer: rng.randrange(len(table.events)) for viewer in VIEWERS}
        live = RULES.initial_state(config)
        mirrors: dict[int | None, list[SpitState]] = {v: [live] for v in VIEWERS}
        for index, event in enumerate(table.events):
            live = apply(live, event)
            for viewer in VIEWERS:
                redacted = RULES.redact(event, viewer)
                assert redacted is not None
                kept = [apply(m, redacted) for m in mirrors[viewer]]
                if index == joins[viewer]:
                    kept.append(mirror_of.from_view(RULES.view_for(live, viewer), config))
                mirrors[viewer] = kept
                expected = RULES.view_for(live, viewer)
                for mirror in kept:
                    assert RULES.view_for(mirror, viewer) == expected, (name, seed, index, event)
        for viewer in VIEWERS:
            assert len(mirrors[viewer]) == 2
            for mirror in mirrors[viewer]:
                shown = set(cards_in(RULES.view_for(mirror, viewer)))
                assert shown <= visible_cards(live, viewer)
