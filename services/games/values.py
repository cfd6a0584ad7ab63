"""The base of the engine's native record classes, and their `repr` and equality.

The events, the state classes and the records the hot paths build (`Act`, `DealCards`,
`NeedCards`, `LegalActions`, ...) are plain classes with `Final` fields and explicit
constructors rather than dataclasses, so that mypyc compiles them as native classes with
compiled constructors (a dataclass's generated `__init__` stays interpreted). Each is declared
once, deriving from `Record`, in a package's `schema/` folder, and tools/gen_records.py writes
the full class. `Record` gives them the dataclass `__repr__`, `__eq__` and `__hash__` over the
fields its `FIELDS` table names.
"""

from __future__ import annotations

from typing import ClassVar


def fields_repr(obj: object, names: tuple[str, ...]) -> str:
    """`Name(field=value, ...)`, as a dataclass prints itself."""
    fields = ", ".join([f"{name}={getattr(obj, name)!r}" for name in names])
    return f"{type(obj).__name__}({fields})"


def field_values(obj: object, names: tuple[str, ...]) -> tuple[object, ...]:
    """The values compared and hashed, in field order."""
    return tuple([getattr(obj, name) for name in names])


class Record:
    """What every generated record shares: `FIELDS` ((name, annotation as written), ...) in
    declaration order, and the dataclass `__repr__`, `__eq__` and `__hash__` over them."""

    __slots__ = ()

    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = ()

    def _names(self) -> tuple[str, ...]:
        return tuple([name for name, _ in type(self).FIELDS])

    def __repr__(self) -> str:
        return fields_repr(self, self._names())

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return False
        names = self._names()
        return field_values(self, names) == field_values(other, names)

    def __hash__(self) -> int:
        return hash(field_values(self, self._names()))
