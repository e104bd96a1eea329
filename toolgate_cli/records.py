"""Records and choices: frozen data classes and enumerations for the dispatch path, without
importing `dataclasses` or `enum`.

`toolgate dispatch` runs before every lane launch, and what it costs is a share of every lane
run (benchmarks/run.py, "A real run"). `import dataclasses` alone cost 17 ms of CPU here, more
than all of toolgate's own work, because it imports `inspect` (and with it `ast`, `dis`,
`tokenize`, `enum`, `re`, ...). `record` does the part of `dataclasses.dataclass` this package
uses, with none of those imports: an `__init__` generated from the class annotations (fast to
call, like the dataclass one), defaults and `field(default_factory=...)`, `field(init=False)`,
`__post_init__`, frozen instances, `__eq__`/`__hash__`/`__repr__`, and `replace`.

`Choice` does the same for `enum.Enum` (1-3 ms of start-up): a class whose plain attributes
become its members, each with `name` and `value`, iterable, looked up by value with `Cls(v)`.

Type checkers see `dataclasses.dataclass`, `field`, `replace` and `enum.Enum` themselves (the
names are imported from there under TYPE_CHECKING), so a record is written and checked exactly
as a dataclass (`@record(frozen=True)` where the code said `@dataclass(frozen=True)`) and a
choice as an enum.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    # What the type checker reads: the standard ones, whose semantics these follow.
    from collections.abc import Callable
    from dataclasses import dataclass as record
    from dataclasses import field, replace
    from enum import Enum as Choice
    from typing import Any
else:
    _MISSING = object()

    class _Field:
        """What `field()` leaves in a class body: a default factory, or a field set by
        `__post_init__` only (not a parameter, not compared, not shown)."""

        __slots__ = ("default_factory", "init")

        def __init__(self, default_factory: object, init: bool) -> None:
            self.default_factory = default_factory
            self.init = init

    def field(
        *,
        default_factory: object = _MISSING,
        init: bool = True,
        repr: bool = True,
        compare: bool = True,
    ) -> Any:  # noqa: ANN401 - stands for the field's value, as dataclasses.field
        return _Field(default_factory, init)

    def _frozen_setattr(self: object, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")

    def _frozen_delattr(self: object, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")

    def _build(cls: type, frozen: bool) -> type:
        names: list[str] = []
        for klass in reversed(cls.__mro__[:-1]):
            # inspect.get_annotations would import inspect, the cost this module avoids
            for name in klass.__dict__.get("__annotations__", {}):  # noqa: RUF063
                if name not in names and not name.startswith("__"):
                    names.append(name)
        namespace: dict[str, Any] = {"_MISSING": _MISSING, "_set": object.__setattr__}
        parameters: list[str] = []
        lines: list[str] = []
        compared: list[str] = []
        for name in names:
            default = cls.__dict__.get(name, getattr(cls, name, _MISSING))
            if isinstance(default, _Field):
                delattr(cls, name)
                if not default.init:
                    continue
                namespace[f"_factory_{name}"] = default.default_factory
                parameters.append(f"{name}=_MISSING")
                value = f"_factory_{name}() if {name} is _MISSING else {name}"
            elif default is not _MISSING:
                namespace[f"_default_{name}"] = default
                parameters.append(f"{name}=_default_{name}")
                value = name
            else:
                parameters.append(name)
                value = name
            compared.append(name)
            if frozen:
                lines.append(f"    _set(self, {name!r}, {value})")
            else:
                lines.append(f"    self.{name} = {value}")
        if hasattr(cls, "__post_init__"):
            lines.append("    self.__post_init__()")
        source = f"def __init__(self, {', '.join(parameters)}):\n" + (
            "\n".join(lines) or "    pass"
        )
        exec(source, namespace)  # noqa: S102 - our own generated source, as dataclasses does
        init = namespace["__init__"]
        init.__qualname__ = f"{cls.__qualname__}.__init__"
        fields = tuple(compared)

        def __eq__(self: object, other: object) -> bool:
            if other.__class__ is not self.__class__:
                return NotImplemented
            return all(getattr(self, n) == getattr(other, n) for n in fields)

        def __repr__(self: object) -> str:
            shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in fields)
            return f"{type(self).__qualname__}({shown})"

        cls.__init__ = init
        cls.__eq__ = __eq__
        cls.__repr__ = __repr__
        cls.__match_args__ = fields
        cls._record_fields = fields
        if frozen:
            cls.__setattr__ = _frozen_setattr
            cls.__delattr__ = _frozen_delattr
            cls.__hash__ = lambda self: hash(tuple(getattr(self, n) for n in fields))
        else:
            cls.__hash__ = None  # mutable: unhashable, as with dataclasses
        return cls

    def record(
        cls: type | None = None, /, *, frozen: bool = False, slots: bool = False
    ) -> type | Callable[[type], type]:
        """Make `cls` a record (see the module docstring). `slots` is accepted and ignored:
        an instance keeps its fields in its `__dict__`."""
        if cls is None:
            return lambda klass: _build(klass, frozen)
        return _build(cls, frozen)

    def replace(obj: Any, /, **changes: object) -> Any:  # noqa: ANN401 - any record
        """A copy of the record `obj` with `changes` (as `dataclasses.replace`)."""
        fields = obj._record_fields
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"{type(obj).__name__} has no field {sorted(unknown)[0]!r}")
        return type(obj)(**{name: changes.get(name, getattr(obj, name)) for name in fields})

    class _ChoiceType(type):
        """Turns the plain class attributes of a `Choice` into its members."""

        def __new__(
            mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]
        ) -> _ChoiceType:
            values = {
                key: value
                for key, value in namespace.items()
                if not key.startswith("_") and isinstance(value, str | int)
            }
            for key in values:
                del namespace[key]
            cls = super().__new__(mcls, name, bases, namespace)
            members = []
            for key, value in values.items():
                member = object.__new__(cls)
                object.__setattr__(member, "name", key)
                object.__setattr__(member, "value", value)
                type.__setattr__(cls, key, member)
                members.append(member)
            type.__setattr__(cls, "_members", tuple(members))
            return cls

        def __iter__(cls) -> Any:  # noqa: ANN401 - an iterator of members
            return iter(cls._members)  # type: ignore[attr-defined]

        def __call__(cls, value: object) -> Any:  # noqa: ANN401 - the member
            for member in cls._members:  # type: ignore[attr-defined]
                if member.value == value:
                    return member
            raise ValueError(f"{value!r} is not a valid {cls.__name__}")

        def __setattr__(cls, name: str, value: object) -> None:
            raise AttributeError(f"cannot reassign {cls.__name__}.{name}")

    class Choice(metaclass=_ChoiceType):
        """The base of an enumeration (see the module docstring)."""

        __slots__ = ("name", "value")

        def __setattr__(self, name: str, value: object) -> None:
            raise AttributeError(f"cannot assign to {type(self).__name__} members")

        def __repr__(self) -> str:
            return f"<{type(self).__name__}.{self.name}: {self.value!r}>"  # type: ignore[attr-defined]

        def __reduce__(self) -> tuple[object, ...]:
            return (type(self), (self.value,))  # type: ignore[attr-defined]


__all__ = ["Choice", "field", "record", "replace"]
