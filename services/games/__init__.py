"""croupier's pure game core: standard library only, no I/O, clock or randomness.

Shared by every game:
  contract.py           the `GameRules` contract each game package implements and the table
                        shell drives (chance requests and answers, seat commands, deadlines)
  cards.py, cardtext.py playing cards: parsed `Card` records and two-character strings
  errors.py             `RuleViolation` and its kinds (invalid_argument, failed_precondition, ...)
  ranking.py            the ranking port (`HandRanker`, `HandValue`) and its reference
                        implementation in reference_ranking.py
  timebank.py           time banks, the same for every game's decisions

One package per game family:
  poker/                the poker engine: hold'em, hold'em hi-lo, Spit in the Ocean, Six-Card
                        Open Draw as data over one generic engine (docs/engine.md)
  spit/                 Spit, the two-player real-time game, and its variations (four piles,
                        alternating colours, Bicycle's Spit, Speed) (docs/games/spit.md)
  videopoker/           multi-play video poker against the house's pay table, with the Split
                        Card feature (docs/games/video-poker.md)
"""
