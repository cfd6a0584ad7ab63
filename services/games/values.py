"""`repr` and equality for the engine's hand-written value classes.

The state classes, `Act`, `DealCards`, `NeedCards` and `LegalActions` are plain classes with
`Final` fields and explicit constructors rather than dataclasses, so that mypyc compiles them
as native classes with compiled constructors (a dataclass's generated `__init__` stays
interpreted). These give them the dataclass `__repr__`, `__eq__` and `__hash__` back.
"""

from __future__ import annotations


def fields_repr(obj: object, names: tuple[str, ...]) -> str:
    """`Name(field=value, ...)`, as a dataclass prints itself."""
    fields = ", ".join([f"{name}={getattr(obj, name)!r}" for name in names])
    return f"{type(obj).__name__}({fields})"


def field_values(obj: object, names: tuple[str, ...]) -> tuple[object, ...]:
    """The values compared and hashed, in field order."""
    return tuple([getattr(obj, name) for name in names])
