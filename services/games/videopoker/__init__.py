"""Multi-play video poker with the Split Card feature: pure rules behind the table contract.

`RULES` implements `services.games.contract.GameRules`; pay tables are data
(`paytables`), hands are classified in one place (`hands`), and the split card's procedure is
in `split`. Standard library only, like every rules package. docs/games/video-poker.md has
the rules as implemented.
"""

from services.games.videopoker.moves import Deal, Hold, LegalMoves, MachineConfig
from services.games.videopoker.paytables import PAYTABLES, Hand, PayLine, PayTable
from services.games.videopoker.rules import RULES, VideoPokerRules
from services.games.videopoker.state import MachineState

__all__ = [
    "PAYTABLES",
    "RULES",
    "Deal",
    "Hand",
    "Hold",
    "LegalMoves",
    "MachineConfig",
    "MachineState",
    "PayLine",
    "PayTable",
    "VideoPokerRules",
]
