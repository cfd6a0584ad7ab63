"""A game state as bytes and back: the encoding behind `GameRules.encode_state` / `decode_state`.

Why not pickle: the compiled engine's native classes cannot be pickled, and a snapshot read
back from storage must never be trusted to name the code that rebuilds it. This codec
rebuilds only the classes a game registers (every record, dataclass and enum of the modules it
names), so a snapshot can at worst fail to decode, never run anything.

The format is JSON, versioned twice: the codec's own `FORMAT` and the game's `version` (bumped
whenever a state record changes shape), both in the header with the game's name. `decode`
refuses anything else (`StateDecodeError`), and the table shell then replays the stream from
its first event instead.

Values: None, bool, int, float and str are themselves; every other value is a list whose first
item says what it is:

    ["t", item, ...]              a tuple            ["l", item, ...]   a list
    ["f", item, ...]              a frozenset (items in their encodings' order, so a state
                                  always encodes to the same bytes)
    ["d", [k, v], ...]            a dict (insertion order)
    ["e", "module.Name", value]   an enum member     ["r", "module.Name", field, ...] a record
    ["c", "module.Name", value]   a custom value (a registered `Custom`'s plain form)

A record is a `services.games.values.Record` (fields in its `FIELDS` order, rebuilt with its
constructor) or a dataclass (its init fields, rebuilt with its constructor). Pure: standard
library only.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any, TypeVar

FORMAT = 1


class StateDecodeError(ValueError):
    """The bytes are not a state this codec wrote for this game and version."""


@dataclass(frozen=True, slots=True)
class Custom:
    """A class the codec keeps as a plain value: `to_plain` gives one (made of values the
    codec encodes), `from_plain` rebuilds the object from it."""

    cls: type
    to_plain: Callable[[Any], object]
    from_plain: Callable[[Any], object]


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _record_fields(cls: type) -> tuple[str, ...] | None:
    """The field names a record class is encoded by, None when it is no record."""
    fields = getattr(cls, "FIELDS", None)
    if isinstance(fields, tuple) and fields and not dataclasses.is_dataclass(cls):
        return tuple(name for name, _ in fields)
    if dataclasses.is_dataclass(cls):
        return tuple(f.name for f in dataclasses.fields(cls) if f.init)
    return None


class StateCodec:
    """Encodes and decodes the states of one game (`game`, state shape `version`)."""

    def __init__(
        self,
        game: str,
        version: int,
        modules: Iterable[ModuleType],
        custom: Iterable[Custom] = (),
    ) -> None:
        self.game = game
        self.version = version
        self._records: dict[str, tuple[type, tuple[str, ...]]] = {}
        self._enums: dict[str, type[enum.Enum]] = {}
        self._custom = {_name(c.cls): c for c in custom}
        self._custom_by_type = {c.cls: c for c in custom}
        for module in modules:
            for value in vars(module).values():
                if not isinstance(value, type) or value in self._custom_by_type:
                    continue
                if issubclass(value, enum.Enum):
                    self._enums[_name(value)] = value
                    continue
                fields = _record_fields(value)
                if fields is not None:
                    self._records[_name(value)] = (value, fields)
        self._record_names = {cls: (name, f) for name, (cls, f) in self._records.items()}
        self._enum_names: dict[type, str] = {cls: name for name, cls in self._enums.items()}

    # --- encoding ---------------------------------------------------------------------------

    def encode(self, state: object) -> bytes:
        body = [FORMAT, self.game, self.version, self._tree(state)]
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()

    def _tree(self, value: object) -> object:
        cls = type(value)
        # (exact types: a StrEnum member is a str too, and must come back as its enum)
        if value is None or cls is str or cls is int or cls is bool or cls is float:
            return value
        if cls is tuple:
            return ["t", *[self._tree(v) for v in value]]  # type: ignore[attr-defined]
        record = self._record_names.get(cls)
        if record is not None:
            name, fields = record
            return ["r", name, *[self._tree(getattr(value, f)) for f in fields]]
        enum_name = self._enum_names.get(cls)
        if enum_name is not None:
            return ["e", enum_name, self._tree(value.value)]  # type: ignore[attr-defined]
        custom = self._custom_by_type.get(cls)
        if custom is not None:
            return ["c", _name(cls), self._tree(custom.to_plain(value))]
        if cls is list:
            return ["l", *[self._tree(v) for v in value]]  # type: ignore[attr-defined]
        if cls is frozenset:
            # (in a canonical order: the same set always encodes to the same bytes)
            items = [self._tree(v) for v in value]  # type: ignore[attr-defined]
            return ["f", *sorted(items, key=_canonical)]
        if cls is dict:
            pairs = value.items()  # type: ignore[attr-defined]
            return ["d", *[[self._tree(k), self._tree(v)] for k, v in pairs]]
        raise TypeError(f"{self.game} state codec: {_name(cls)} is not registered")

    # --- decoding ---------------------------------------------------------------------------

    def decode(self, data: bytes) -> object:
        try:
            body = json.loads(data)
        except (ValueError, UnicodeDecodeError) as exc:
            raise StateDecodeError(f"not a state: {exc}") from None
        if not isinstance(body, list) or len(body) != 4:
            raise StateDecodeError("not a state: no header")
        fmt, game, version, tree = body
        if fmt != FORMAT or game != self.game or version != self.version:
            raise StateDecodeError(
                f"a state of {game!r} v{version} (format {fmt}), "
                f"not of {self.game!r} v{self.version} (format {FORMAT})"
            )
        try:
            return self._value(tree)
        except StateDecodeError:
            raise
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
            raise StateDecodeError(f"not a {self.game} state: {exc!r}") from None

    def _value(self, tree: object) -> object:
        if not isinstance(tree, list):
            if tree is None or isinstance(tree, (bool, int, float, str)):
                return tree
            raise StateDecodeError(f"unexpected {type(tree).__name__}")
        if not tree:
            raise StateDecodeError("an empty node")
        tag = tree[0]
        if tag == "t":
            return tuple([self._value(v) for v in tree[1:]])
        if tag == "r":
            cls, fields = self._records.get(tree[1]) or _unknown(tree[1])
            values = [self._value(v) for v in tree[2:]]
            if len(values) != len(fields):
                raise StateDecodeError(f"{tree[1]} has {len(fields)} fields, not {len(values)}")
            if dataclasses.is_dataclass(cls):
                return cls(**dict(zip(fields, values, strict=True)))
            return cls(*values)
        if tag == "e":
            enum_cls = self._enums.get(tree[1]) or _unknown(tree[1])
            return enum_cls(self._value(tree[2]))
        if tag == "c":
            custom = self._custom.get(tree[1]) or _unknown(tree[1])
            return custom.from_plain(self._value(tree[2]))
        if tag == "l":
            return [self._value(v) for v in tree[1:]]
        if tag == "f":
            return frozenset([self._value(v) for v in tree[1:]])
        if tag == "d":
            return {self._value(k): self._value(v) for k, v in tree[1:]}
        raise StateDecodeError(f"unknown node {tag!r}")


def _canonical(tree: object) -> str:
    return json.dumps(tree, separators=(",", ":"), ensure_ascii=False)


def _unknown(name: object) -> Any:
    raise StateDecodeError(f"{name!r} is not a class of this game's state")


def mapping_as_pairs(cls: type, rebuild: Callable[[dict[Any, Any]], object]) -> Custom:
    """A `Custom` for an immutable Mapping class: kept as its (key, value) pairs in order."""

    def plain(mapping: Mapping[Any, Any]) -> object:
        return dict(mapping.items())

    return Custom(cls, plain, rebuild)


_T = TypeVar("_T")


def decode_as(codec: StateCodec, data: bytes, cls: type[_T]) -> _T:
    """`codec.decode(data)`, which must be a `cls` (StateDecodeError otherwise)."""
    state = codec.decode(data)
    if not isinstance(state, cls):
        raise StateDecodeError(f"a {type(state).__name__}, not a {cls.__name__}")
    return state
