"""Each pay table's exact return under optimal play, per coin bet: data the platform lists
(VideoPokerService.ListPaytables) without analysing every deal at each request.

Computed by services.videopoker_analysis (`croupier vp analyze --paytable NAME`, and with
`--split` for the Split Card feature at the table's `in_deal`); the tests compare them with
the analyzer (tests/unit/videopoker_analysis/test_exact.py) and docs/games/video-poker.md
publishes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True, slots=True)
class Returns:
    standard: Fraction  # 5 coins a line
    split: Fraction  # the Split Card feature: 10 coins a line, paid as 5


RETURNS: dict[str, Returns] = {
    "jacks-9-6": Returns(
        standard=Fraction(1653526326983, 1661102543100),
        split=Fraction(123606794759213, 148708227668000),
    ),
    "deuces-wild": Returns(
        standard=Fraction(32187682693, 31944279675),
        split=Fraction(137790857494442, 175661593932825),
    ),
    "double-double-bonus-9-6": Returns(
        standard=Fraction(822086155841, 830551271550),
        split=Fraction(488527846878107, 501890268379500),
    ),
}
