"""A fingerprint of what the engine does over seeded random play of every game.

Run in two processes, one on the compiled engine and one forced to the source
(`tools.build_engine.use_interpreted`), it shows whether the two builds behave the same:
test_compiled_engine.py compares them. Covers every game and structure, random seat counts,
rake, draw limits and timeouts (test_simulation's random tables), and the views and
redactions of every event.
"""

from __future__ import annotations

import hashlib
import random
import sys

from services.games.poker import GAMES, legal_actions, redact, view_for
from services.games.poker.playout import play_hand
from services.games.reference_ranking import ReferenceRanker
from tests.unit.games.poker.support import ShuffledStub, seated_table
from tests.unit.games.poker.test_simulation import policy_with_timeouts, random_config


def digest(tables_per_game: int = 4, hands_per_table: int = 25) -> str:
    out = hashlib.sha256()
    ranker = ReferenceRanker()
    for name in sorted(GAMES):
        for table in range(tables_per_game):
            rng = random.Random(f"{name}/{table}")
            config = random_config(name, rng)
            state, _ = seated_table(config, [rng.randint(20, 300) for _ in range(config.seats)])
            policy = policy_with_timeouts(rng)
            for _ in range(hands_per_table):
                if len([s for s in state.seats if s is not None and s.stack > 0]) < 2:
                    break
                run = play_hand(state, policy, ShuffledStub(rng), ranker)
                for event in run.events:
                    out.update(repr(event).encode())
                    for viewer in (None, 0):
                        out.update(repr(redact(event, viewer)).encode())
                state = run.state
                out.update(repr(state).encode())
                out.update(repr(view_for(state, None)).encode())
                if state.hand is not None and state.hand.to_act is not None:
                    out.update(repr(legal_actions(state, state.hand.to_act)).encode())
    return out.hexdigest()


if __name__ == "__main__":
    sys.stdout.write(digest() + "\n")
