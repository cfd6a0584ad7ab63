"""The complete example bot in docs/bots.md runs as written against the SDK's `decide` shape.

A copy that drifts from the SDK (a renamed import, a changed callback signature) fails here
instead of in a bot author's hands.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from types import ModuleType

from croupier.table.v1 import table_pb2
from services.bots.sdk import Decide
from services.bots.view import BotAction, Kind
from tests.unit.bots.views import checked_to, facing_bet

DOC = Path(__file__).resolve().parents[3] / "docs" / "bots.md"


def _example() -> ModuleType:
    text = DOC.read_text()
    section = text.split("### A complete example bot", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None, "docs/bots.md lost its example bot"
    module = ModuleType("mybot")
    exec(compile(code.group(1), str(DOC), "exec"), module.__dict__)  # our own doc, not input
    return module


def test_the_example_bot_decides_with_the_sdks_callback_signature() -> None:
    decide = _example().decide
    assert list(inspect.signature(decide).parameters) == ["view", "table"]
    table = table_pb2.TableView(table_id="t1")
    as_sdk_calls: Decide = decide
    assert as_sdk_calls(checked_to(["As", "Kd"]), table) == BotAction(Kind.CHECK)
    assert as_sdk_calls(facing_bet(["As", "Ad"]), table) == BotAction(Kind.CALL)
    assert as_sdk_calls(facing_bet(["As", "Kd"]), table) == BotAction(Kind.FOLD)
