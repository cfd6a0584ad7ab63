"""Random groups of cards for Monte Carlo equity: distinct, unseen and uniform."""

import numpy as np
import numpy.typing as npt

from services.ranking.subsets import CARD_MASKS, Deals, Masks, mask_of


def _cards_of(masks: Masks) -> npt.NDArray[np.int64]:
    """Per row, a 52-wide 0/1 matrix of which cards the mask holds."""
    held: npt.NDArray[np.int64] = ((masks[:, None] & CARD_MASKS[None, :]) != 0).astype(np.int64)
    return held


def test_every_group_holds_distinct_unseen_cards_apart_from_the_used_ones() -> None:
    known = [0, 13, 26, 51]
    deals = Deals(np.random.default_rng(11), mask_of(known))
    _, board = deals.draw(5, None, 20_000)
    _, hole = deals.draw(4, board, 20_000)
    for masks, size in ((board, 5), (hole, 4)):
        held = _cards_of(masks)
        assert (held.sum(axis=1) == size).all()
        assert not held[:, known].any()
    assert not (board & hole).any()


def test_each_unseen_card_is_dealt_equally_often() -> None:
    known = [5, 17, 40]
    deals = Deals(np.random.default_rng(12), mask_of(known))
    rows = 60_000
    _, board = deals.draw(5, None, rows)
    _, hole = deals.draw(2, board, rows)
    for masks, size in ((board, 5), (hole, 2)):
        counts = np.delete(_cards_of(masks).sum(axis=0), known)
        expected = rows * size / 49
        # Chi-square over 49 cards (48 degrees of freedom): 99.9th percentile is about 84.
        chi2 = float(((counts - expected) ** 2 / expected).sum())
        assert chi2 < 84, chi2


def test_the_same_seed_deals_the_same_groups() -> None:
    one = Deals(np.random.default_rng(3), 0).draw(5, None, 100)
    two = Deals(np.random.default_rng(3), 0).draw(5, None, 100)
    assert (one[0] == two[0]).all() and (one[1] == two[1]).all()


def test_dense_deals_come_from_shuffles_and_are_disjoint_and_uniform() -> None:
    known = [0, 1, 2, 3]
    deals = Deals(np.random.default_rng(13), mask_of(known))
    rows = 30_000
    groups = deals.deal([6, 6, 6, 6], rows)  # half the unseen cards: the shuffle path
    masks = [m for _, m in groups]
    for i, first in enumerate(masks):
        assert (_cards_of(first).sum(axis=1) == 6).all()
        assert not _cards_of(first)[:, known].any()
        for second in masks[i + 1 :]:
            assert not (first & second).any()
    counts = np.delete(_cards_of(masks[3]).sum(axis=0), known)
    expected = rows * 6 / 48
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 85, chi2  # 47 degrees of freedom, 99.9th percentile


def test_sparse_and_dense_deals_agree_on_the_equity_they_measure() -> None:
    from services.games.cards import parse_cards
    from services.ranking.equity import EquityGame, equity

    # Nine players (the shuffle path) against the textbook AA figure (34.7 %).
    hands: list[list[object]] = [list(parse_cards("Ah As")), *([[]] * 8)]
    result = equity(EquityGame.HOLDEM, hands, samples=40_000, seed=2)  # type: ignore[arg-type]
    assert abs(result.players[0].equity - 0.347) < 0.012
