"""The dispatch path's stand-ins for `dataclasses`, `enum` and `json.dumps` (toolgate_cli.records,
toolgate_cli.json_text) behave as the standard ones do where toolgate uses them."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolgate_cli.argv import Action, Arity, Dialect, ItemKind
from toolgate_cli.json_text import dumps
from toolgate_cli.records import Choice, field, record, replace


@record(frozen=True)
class Point:
    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list)
    size: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", self.x + self.y)


@record
class Mutable:
    name: str
    seen: list[int] = field(default_factory=list)


def test_a_record_is_built_defaulted_compared_hashed_and_shown_like_a_dataclass() -> None:
    point = Point(1)
    assert (point.x, point.y, point.tags, point.size) == (1, 0, [], 1)
    assert Point(1, 2) == Point(x=1, y=2) and Point(1, 2) != Point(2, 1)
    assert Point(1).tags is not Point(1).tags  # a fresh default each time
    assert repr(Point(1, 2, ["a"])) == "Point(x=1, y=2, tags=['a'])"
    frozen = Point(3, 4, ())  # type: ignore[arg-type]
    assert hash(frozen) == hash(Point(3, 4, ()))  # type: ignore[arg-type]
    assert Point(1) != (1, 0, [])
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, size=3)  # type: ignore[call-arg]


def test_a_frozen_record_cannot_change_and_replace_makes_a_new_one() -> None:
    point = Point(1, 2)
    with pytest.raises(AttributeError):
        point.x = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del point.x  # type: ignore[misc]
    moved = replace(point, y=7)
    assert (moved.x, moved.y, moved.size) == (1, 7, 8)  # __post_init__ ran again
    assert point.y == 2
    with pytest.raises(TypeError):
        replace(point, z=1)


def test_a_mutable_record_can_change_and_is_unhashable() -> None:
    item = Mutable("a")
    item.seen.append(1)
    item.name = "b"
    assert item == Mutable("b", [1])
    with pytest.raises(TypeError):
        hash(item)


def test_choices_are_members_with_names_values_order_and_lookup() -> None:
    assert [member.name for member in Action] == ["KEEP", "REPLACE", "STRIP", "REFUSE"]
    assert Action("keep") is Action.KEEP and Action.KEEP.value == "keep"
    assert list(Dialect) == [Dialect.COMMANDER, Dialect.CLAP]
    assert Arity.FLAG is not Arity.VALUE and Arity.FLAG != Arity.VALUE
    assert {ItemKind.OPTION: 1}[ItemKind.OPTION] == 1
    assert repr(Action.KEEP) == "<Action.KEEP: 'keep'>"
    assert copy.deepcopy(Action.STRIP) is Action.STRIP
    assert pickle.loads(pickle.dumps(Arity.VARIADIC)) is Arity.VARIADIC
    with pytest.raises(ValueError):
        Action("nothing")
    with pytest.raises(AttributeError):
        Action.KEEP.value = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        Action.KEEP = Action.REFUSE  # type: ignore[misc]


def test_a_choice_of_its_own() -> None:
    class Colour(Choice):
        RED = "red"
        BLUE = "blue"

        def shout(self) -> str:
            return str(self.value).upper()

    assert Colour.RED.shout() == "RED"
    assert [c.value for c in Colour] == ["red", "blue"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(json_values)
def test_dumps_writes_what_json_dumps_writes(value: object) -> None:
    assert dumps(value) == json.dumps(value, ensure_ascii=False)
    assert dumps(value, compact=True) == json.dumps(
        value, ensure_ascii=False, separators=(",", ":")
    )


def test_dumps_writes_tuples_as_lists_and_refuses_what_json_refuses() -> None:
    assert dumps({"a": ("x", 1, None)}) == '{"a": ["x", 1, null]}'
    assert dumps("caf\udce9") == json.dumps("caf\udce9", ensure_ascii=False)  # lone surrogate kept
    for bad in ({1: "x"}, {"a": 1.5}, object()):
        with pytest.raises(TypeError):
            dumps(bad)


def test_the_type_checker_sees_the_standard_ones() -> None:
    # The names are the standard library's under TYPE_CHECKING; at run time the records only
    # imitate them: no dataclass machinery is attached.
    assert not dataclasses.is_dataclass(Point)
