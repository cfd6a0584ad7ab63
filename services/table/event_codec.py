"""Every message a table stream may hold, for every game the catalog hosts: the event store's
registry and the decoding of a stored message without knowing its table's game (the watch
fan-out reads streams that way). A game's events go through its own codec (its adapter's
`events`); the envelope's are protobuf messages already and pass through unchanged.
"""

from __future__ import annotations

from google.protobuf.message import Message

from services.shared.eventstore import EventRegistry
from services.table.codec import SHELL_EVENT_TYPES, CodecError
from services.table.games.adapter import EventCodec
from services.table.games.catalog import CATALOG, Catalog


class TableCodec:
    _default: TableCodec | None = None

    @classmethod
    def default(cls) -> TableCodec:
        """The codec of the default catalog (built once)."""
        if cls._default is None:
            cls._default = TableCodec()
        return cls._default

    def __init__(self, catalog: Catalog = CATALOG) -> None:
        self.catalog = catalog
        self._codecs: dict[str, EventCodec] = {}  # message full name -> its game's codec
        for game in catalog:
            for message_type in game.events.message_types():
                self._codecs[message_type.DESCRIPTOR.full_name] = game.events

    def registry(self) -> EventRegistry:
        """An event registry knowing every message a table stream of these games may hold."""
        reg = EventRegistry()
        for game in self.catalog:
            for message_type in game.events.message_types():
                reg.register(message_type)
            for name, message_type in game.events.former_names():
                reg.register_alias(name, message_type)
        for cls in SHELL_EVENT_TYPES:
            reg.register(cls)
        return reg

    def encode(self, event: object) -> Message:
        """The stored form of an event of any game the catalog hosts (tests and tools; the
        table itself encodes with its own game's codec)."""
        for game in self.catalog:
            try:
                return game.events.to_message(event)
            except CodecError:
                continue
        raise CodecError(f"{type(event).__name__} is no event of a hosted game")

    def decode(self, message: Message) -> object:
        """The game's event a stored message stands for, or the message itself (the
        envelope's own events)."""
        codec = self._codecs.get(message.DESCRIPTOR.full_name)
        if codec is None:
            return message
        event = codec.from_message(message)
        return message if event is None else event
