"""The event classes' `FIELDS` tables say what their annotations and constructors say.

The table codec stores and reads events through `FIELDS` (the compiled classes keep no
annotations), so a field added to a class but not to its table would silently not be stored:
these read the annotations and `__init__` parameters from the source and compare.
"""

from __future__ import annotations

import ast
from pathlib import Path

import services.games.poker.events as events

SOURCE = Path(__file__).resolve().parents[4] / "services" / "games" / "poker" / "events.py"
RECORDS = [*events.EVENT_TYPES.values(), events.Share]


def _classes() -> dict[str, ast.ClassDef]:
    tree = ast.parse(SOURCE.read_text())
    return {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        and any(isinstance(base, ast.Name) and base.id == "_Record" for base in node.bases)
    }


def _annotated(node: ast.ClassDef) -> tuple[tuple[str, str], ...]:
    fields = []
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            annotation = statement.annotation
            if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) == "Final":
                fields.append((statement.target.id, ast.unparse(annotation.slice)))
    return tuple(fields)


def _parameters(node: ast.ClassDef) -> tuple[str, ...]:
    init = next(s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__")
    return tuple(arg.arg for arg in init.args.args[1:])


def test_every_record_class_is_checked() -> None:
    assert set(_classes()) == {cls.__name__ for cls in RECORDS}


def test_fields_are_the_annotated_fields_in_order() -> None:
    for name, node in _classes().items():
        assert _annotated(node) == getattr(events, name).FIELDS, name


def test_the_constructor_takes_the_fields_in_order() -> None:
    for name, node in _classes().items():
        assert _parameters(node) == tuple(f for f, _ in getattr(events, name).FIELDS), name
