"""The JSON round trip of typed sections (:mod:`medqade.scoring.record.json_object`): an object
built in code writes the keys it was given in that order (``None`` as ``null``) as a dict literal
does, an update keeps earlier keys in place, a keyword key is aliased, and a view reads the
written JSON."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from medqade.scoring.record.json_object import (
    PAIR,
    JsonObject,
    JsonView,
    json_value,
    key,
    nested,
)


@dataclass(frozen=True, kw_only=True)
class Inner(JsonObject):
    a: int | None = None
    b: str | None = None


@dataclass(frozen=True, kw_only=True)
class Outer(JsonView):
    global_: float | None = field(default=None, metadata=key("global"))
    ci: tuple[float | None, ...] | None = field(default=None, metadata=PAIR)
    inner: Inner | None = field(default=None, metadata=nested(Inner))
    blocks: Any = None


def test_of_writes_the_given_keys_in_order_with_nulls() -> None:
    built = Outer.of(inner=Inner.of(b="x", a=None), ci=(0.1, 0.2), global_=None)
    assert json.dumps(built.to_json()) == json.dumps(
        {"inner": {"b": "x", "a": None}, "ci": [0.1, 0.2], "global": None}
    )
    assert built.global_ is None and built.ci == (0.1, 0.2)
    with pytest.raises(TypeError, match="no field nope"):
        Outer.of(nope=1)


def test_updated_orders_keys_as_a_dict_update_does() -> None:
    old: dict[str, Any] = {"b": "y", "a": 1}
    old.update({"a": 2})
    typed = Inner.of(b="y", a=1).updated(a=2)
    assert list(typed.to_json().items()) == list(old.items())
    outer = Outer.of(ci=None).updated(global_=0.5, ci=(1.0, 2.0))
    assert list(outer.to_json()) == ["ci", "global"]


def test_a_read_object_is_written_back_unchanged_with_unknown_keys() -> None:
    text = '{"zeta": [1, {"q": null}], "global": 0.25, "inner": {"a": 3, "extra": true}}'
    obj = Outer.from_json(json.loads(text))
    assert obj.global_ == 0.25 and obj.inner is not None and obj.inner.a == 3
    assert obj.extra == {"zeta": [1, {"q": None}]}
    assert json.dumps(obj.to_json()) == text


def test_a_view_reads_as_its_json_and_containers_of_blocks_are_written() -> None:
    obj = Outer.of(global_=0.5, blocks={"t1": Inner.of(a=1), "t2": None})
    assert isinstance(obj, Mapping)
    assert obj["global"] == 0.5 and obj.get("blocks") == {"t1": {"a": 1}, "t2": None}
    assert dict(obj) == obj.to_json() and len(obj) == 2
    assert json_value((Inner.of(a=1), [Inner.of(b="z")])) == [{"a": 1}, [{"b": "z"}]]
    assert not Outer.of()  # an empty object is falsy, as {} is
