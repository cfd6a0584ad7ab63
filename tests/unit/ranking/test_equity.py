import itertools
import tracemalloc
from collections.abc import Sequence
from fractions import Fraction

import pytest

from services.games.cards import Card
from services.games.cards import parse_cards as cards
from services.ranking import HandError, evaluate_high
from services.ranking.equity import BudgetExceeded, EquityGame, equity
from services.ranking.low import low_value_of

# AhAs v KdKc over all 1,712,304 boards, counted independently with eval7 (same run of boards).
AA_WINS, TIES, KK_WINS = 1_388_072, 6_538, 317_694


@pytest.mark.slow
def test_aces_against_kings_preflop_is_exact() -> None:
    result = equity(EquityGame.HOLDEM, [cards("Ah As"), cards("Kd Kc")])
    assert result.exact
    assert result.trials == 1_712_304
    aces, kings = result.players
    assert aces.win == pytest.approx(AA_WINS / 1_712_304, abs=1e-12)
    assert aces.tie == pytest.approx(TIES / 1_712_304, abs=1e-12)
    assert kings.win == pytest.approx(KK_WINS / 1_712_304, abs=1e-12)
    assert aces.equity == pytest.approx(0.8126, abs=5e-4)  # about 81 / 19 with ties


def _brute_force_holdem(hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> list[Fraction]:
    deck = [Card(i % 13, i // 13) for i in range(52)]
    used = set(board) | {c for h in hands for c in h}
    shares = [Fraction(0)] * len(hands)
    runs = 0
    for rest in itertools.combinations([c for c in deck if c not in used], 5 - len(board)):
        full = [*board, *rest]
        values = [evaluate_high([*h, *full]).value for h in hands]
        best = max(values)
        winners = [i for i, v in enumerate(values) if v == best]
        for i in winners:
            shares[i] += Fraction(1, len(winners))
        runs += 1
    return [s / runs for s in shares]


def test_exact_flop_equity_matches_brute_force() -> None:
    hands = [cards("Ah Kh"), cards("Qc Qd"), cards("7s 8s")]
    board = cards("2h 9h Qs")
    result = equity(EquityGame.HOLDEM, hands, board)
    expected = _brute_force_holdem(hands, board)
    assert result.exact
    for player, share in zip(result.players, expected, strict=True):
        assert player.equity == pytest.approx(float(share), abs=1e-12)


def test_monte_carlo_lands_within_three_standard_errors_of_exact() -> None:
    hands = [cards("Ah Kh"), cards("Qc Qd")]
    board = cards("2h 9h")
    exact = equity(EquityGame.HOLDEM, hands, board)
    sampled = equity(EquityGame.HOLDEM, hands, board, max_exact=0, samples=20_000, seed=42)
    assert not sampled.exact
    for e, s in zip(exact.players, sampled.players, strict=True):
        assert s.standard_error > 0
        assert abs(s.equity - e.equity) <= 3 * s.standard_error


def test_monte_carlo_is_reproducible_with_a_seed() -> None:
    hands = [cards("Ah Kh"), []]
    one = equity(EquityGame.HOLDEM, hands, samples=3_000, seed=7)
    two = equity(EquityGame.HOLDEM, hands, samples=3_000, seed=7)
    assert one == two


def test_hi_lo_equity_splits_the_pot_between_high_and_low() -> None:
    hands = [cards("Ah 2h"), cards("Kc Kd")]
    board = cards("3c 4d 9s Ks")
    result = equity(EquityGame.HOLDEM_HI_LO, hands, board)
    # Brute force over the 44 rivers: the low half goes to A2 when a low qualifies.
    deck = [Card(i % 13, i // 13) for i in range(52)]
    used = set(board) | {c for h in hands for c in h}
    share = Fraction(0)
    rivers = [c for c in deck if c not in used]
    for river in rivers:
        full = [*board, river]
        high = [evaluate_high([*h, *full]).value for h in hands]
        low = [low_value_of([*h, *full]) for h in hands]
        high_share = Fraction(int(high[0] > high[1]) * 2 + int(high[0] == high[1]), 2)
        if max(low):
            low_share = Fraction(int(low[0] > low[1]) * 2 + int(low[0] == low[1]), 2)
            share += (high_share + low_share) / 2
        else:
            share += high_share
    assert result.players[0].equity == pytest.approx(float(share / len(rivers)), abs=1e-12)


def test_spit_in_the_ocean_equity_enumerates_the_spit_card() -> None:
    hands = [cards("Ac Ad 3h 9s"), cards("Kc Kd Ks 2h")]
    result = equity(EquityGame.SPIT_IN_THE_OCEAN, hands)
    assert result.exact and result.trials == 44
    deck = [Card(i % 13, i // 13) for i in range(52)]
    used = {c for h in hands for c in h}
    wins = 0
    for spit in (c for c in deck if c not in used):
        wild = frozenset(Card(spit.rank, s) for s in range(4))
        a, b = (evaluate_high([*h, spit], wild).value for h in hands)
        wins += a > b
    assert result.players[0].win == pytest.approx(wins / 44)


def test_equity_rejects_duplicate_and_excess_cards() -> None:
    with pytest.raises(HandError, match="duplicate card Ah"):
        equity(EquityGame.HOLDEM, [cards("Ah Kh"), cards("Ah Qd")])
    with pytest.raises(HandError, match="deals 2"):
        equity(EquityGame.HOLDEM, [cards("Ah Kh 3c"), cards("Qc Qd")])


def test_monte_carlo_hi_lo_and_spit_land_within_three_standard_errors_of_exact() -> None:
    cases = [
        (EquityGame.HOLDEM_HI_LO, [cards("Ah 2h"), cards("Kc Kd")], cards("3c 4d 9s")),
        (EquityGame.SPIT_IN_THE_OCEAN, [cards("Ac Ad 3h 9s"), cards("Kc Kd Ks 2h")], []),
    ]
    for game, hands, board in cases:
        exact = equity(game, hands, board)
        sampled = equity(game, hands, board, max_exact=0, samples=30_000, seed=5)
        assert exact.exact and not sampled.exact and sampled.complete
        for e, s in zip(exact.players, sampled.players, strict=True):
            assert abs(s.equity - e.equity) <= 3 * s.standard_error, game
            assert abs(s.win - e.win) <= 0.02, game


def test_unknown_hole_cards_are_dealt_around_the_known_ones() -> None:
    # AA against two random hands: about 73 % (the textbook three-way figure).
    result = equity(EquityGame.HOLDEM, [cards("Ah As"), [], []], samples=60_000, seed=1)
    assert result.players[0].equity == pytest.approx(0.734, abs=0.01)
    assert sum(p.equity for p in result.players) == pytest.approx(1.0)


def test_a_stopped_monte_carlo_run_answers_with_the_deals_it_made() -> None:
    hands = [cards("Ah Kh"), []]
    asked: list[int] = []

    def stop_after_two_chunks(done: int) -> bool:
        asked.append(done)
        return len(asked) == 2

    partial = equity(EquityGame.HOLDEM, hands, samples=100_000, seed=3,
                     should_stop=stop_after_two_chunks)  # fmt: skip
    assert not partial.complete and not partial.exact
    assert partial.trials == asked[-1] < 100_000
    # The first chunks of a seeded run are the same deals whatever the run's length.
    same = equity(EquityGame.HOLDEM, hands, samples=partial.trials, seed=3)
    assert same.complete and same.players == partial.players


def test_a_stopped_exact_enumeration_raises_instead_of_answering() -> None:
    with pytest.raises(BudgetExceeded, match="exact deals"):
        equity(EquityGame.HOLDEM, [cards("Ah As"), cards("Kd Kc")], should_stop=lambda done: True)


def test_memory_does_not_grow_with_the_number_of_samples() -> None:
    hands = [cards("Ah As"), [], [], []]
    equity(EquityGame.HOLDEM, hands, samples=1_000, seed=1)  # tables built outside the count
    peaks = []
    for samples in (20_000, 400_000):
        tracemalloc.start()
        equity(EquityGame.HOLDEM, hands, samples=samples, seed=1)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < 1.2 * peaks[0] + 100_000, peaks
    assert peaks[1] < 16_000_000
