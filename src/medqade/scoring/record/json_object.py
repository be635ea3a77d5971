"""Frozen dataclasses that read and write a JSON object byte for byte: :class:`JsonObject`.

A record (:mod:`medqade.scoring.record.score_record`) and its sections are built of these. JSON
only at the edges: :meth:`JsonObject.from_json` reads an object (a stored record, a measure's
block) and
:meth:`JsonObject.to_json` gives it back for writing; inside, code reads typed fields.

**Byte-identical.** An object read and written back is the same JSON: it remembers the keys it
had, in their order (``json_keys``); a key its class does not type is kept unchanged
(``extra``); a field that was absent stays absent (``None`` and not in ``json_keys``), one that
was ``null`` is written as ``null``. :meth:`JsonObject.of` builds an object in code the same
way (the keys given, in the order given, ``None`` written as ``null``), so a section built
from a measure's typed result writes exactly the JSON a dict literal wrote before.

A field whose JSON key is not a Python name (``global``) names its key with :func:`key`.
:class:`JsonView` lets a section be read as the JSON object it writes (``section["global"]``),
for readers written against the stored shape.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import Field, dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any, Final, Self, TypeAlias

JsonValue: TypeAlias = "str | int | float | bool | list[JsonValue] | dict[str, JsonValue] | None"
"""A value JSON can hold."""
JsonDict: TypeAlias = dict[str, JsonValue]
"""A JSON object as built to be written: a submitter's metadata as given (a file's header, the
form, an Inspect log's header) before :func:`~medqade.scoring.intake.meta.clean_meta` checks it."""

Reader = Callable[[Any], Any]
Writer = Callable[[Any], Any]
SKIPPED: Final = frozenset({"json_keys", "extra"})


def convert(reader: Reader, writer: Writer) -> dict[str, Reader | Writer]:
    """The metadata of an optional field read with ``reader`` and written with ``writer``
    (``field(default=None, metadata=convert(...))``; a JSON ``null`` stays ``None`` and is
    never passed to either)."""
    return {"read": reader, "write": writer}


def nested(cls: type[JsonObject]) -> dict[str, Reader | Writer]:
    """The metadata of an optional field holding a :class:`JsonObject` of ``cls``."""
    return convert(cls.from_json, lambda v: v.to_json())


def key(name: str) -> dict[str, str]:
    """The metadata of a field whose JSON key is ``name`` (a keyword such as ``global``)."""
    return {"key": name}


def _frozen_empty() -> Mapping[str, Any]:
    return MappingProxyType({})


def _tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value)


def _list(value: Any) -> list[Any]:
    return list(value)


TUPLE: Final = MappingProxyType(convert(_tuple, _list))
"""A JSON array read as a tuple (a list, a CI pair, ...), written back as an array."""
PAIR: Final = TUPLE


@dataclass(frozen=True, kw_only=True)
class JsonObject:
    """A JSON object read into typed fields; see the module docstring for the round trip."""

    json_keys: tuple[str, ...] = field(default=(), repr=False, compare=False)
    """The object's keys as read, in their order (empty for an object built in code)."""
    extra: Mapping[str, Any] = field(default_factory=_frozen_empty, repr=False)
    """Keys this version does not type, with their JSON values."""

    @classmethod
    def _fields(cls) -> dict[str, Field[Any]]:
        """The typed fields by JSON key."""
        return _known_fields(cls)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self:
        """Read ``obj`` (a JSON object); a key of another type or shape raises ``TypeError``."""
        if not isinstance(obj, Mapping):
            raise TypeError(
                f"{cls.__name__}: expected a JSON object, got {type(obj).__name__}; score the "
                "submission again"
            )
        known = cls._fields()
        values: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for name, value in obj.items():
            f = known.get(name)
            if f is None:
                extra[name] = value
                continue
            reader = f.metadata.get("read")
            values[f.name] = reader(value) if reader is not None and value is not None else value
        return cls(json_keys=tuple(obj), extra=MappingProxyType(extra), **values)

    @classmethod
    def of(cls, **values: Any) -> Self:
        """An object built in code with the fields ``values`` (typed values, by field name),
        written with exactly these keys in this order (``None`` as ``null``), as a dict
        literal of them would be."""
        by_name = {f.name: k for k, f in cls._fields().items()}
        unknown = sorted(set(values) - set(by_name))
        if unknown:
            raise TypeError(f"{cls.__name__} has no field {', '.join(unknown)}")
        return cls(json_keys=tuple(by_name[n] for n in values), **values)

    def updated(self, **values: Any) -> Self:
        """This object with the fields ``values`` set, a key not written yet added after the
        others (as a dict's ``update`` orders it)."""
        by_name = {f.name: k for k, f in self._fields().items()}
        added = tuple(by_name[n] for n in values if by_name[n] not in self.json_keys)
        return replace(self, json_keys=self.json_keys + added, **values)

    def to_json(self) -> dict[str, Any]:
        """The JSON object: the keys read, in their order, then fields set in code."""
        known = self._fields()
        out: dict[str, Any] = {}
        for name in self.json_keys:
            if name in known:
                out[name] = self._write(known[name])
            elif name in self.extra:
                out[name] = self.extra[name]
        for name, f in known.items():
            if name not in out and getattr(self, f.name) is not None:
                out[name] = self._write(f)
        for name, value in self.extra.items():
            out.setdefault(name, value)
        return out

    def _write(self, f: Field[Any]) -> Any:
        value = getattr(self, f.name)
        if value is None:
            return None
        writer = f.metadata.get("write")
        if writer is not None:
            return writer(value)
        return json_value(value)


def json_value(value: Any) -> Any:
    """``value`` as JSON: a :class:`JsonObject` inside it (a field typed ``Mapping[str,
    Agreement]`` or a tuple of blocks) written as its object, a tuple as an array."""
    if isinstance(value, JsonObject):
        return value.to_json()
    if isinstance(value, Mapping):
        return {k: json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    return value


_KNOWN: dict[type[JsonObject], dict[str, Field[Any]]] = {}


def _known_fields(cls: type[JsonObject]) -> dict[str, Field[Any]]:
    known = _KNOWN.get(cls)
    if known is None:
        known = _KNOWN[cls] = {
            f.metadata.get("key", f.name): f for f in fields(cls) if f.name not in SKIPPED
        }
    return known


@dataclass(frozen=True, kw_only=True)
class JsonView(JsonObject, Mapping[str, Any]):
    """A section also read as the JSON object it writes: ``section["key"]``,
    ``section.get(...)`` (the values are its JSON, not its typed fields), for readers written
    against the stored shape."""

    def __getitem__(self, name: str) -> Any:
        return self.to_json()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_json())

    def __len__(self) -> int:
        return len(self.to_json())
