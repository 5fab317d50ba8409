"""The IR nodes' __init__ (nodes._fast_init, issue 27) against the dataclass's own.

Each node class of cudafuse.ir.nodes gets an __init__ that writes the instance's __dict__
instead of calling object.__setattr__ per field. It must take the same arguments with the
same defaults, and leave the same fields, as the __init__ @dataclass(frozen=True) writes:
compared here with a plain frozen dataclass subclass of each class (which gets the
dataclass's generated __init__ over the same fields).
"""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from cudafuse.ir import nodes as n
from cudafuse.ir.source import Span

CLASSES = sorted((c for c in vars(n).values() if isinstance(c, type) and
                  issubclass(c, n.Node) and c.__module__ == n.__name__),
                 key=lambda c: c.__name__)


def _reference(cls: type) -> type:
    return dataclasses.dataclass(frozen=True)(type(f"Ref{cls.__name__}", (cls,), {}))


def _values(cls: type, salt: int) -> tuple[list[object], dict[str, object]]:
    """Distinct values for every init field: required ones positional, the rest keyword."""
    args: list[object] = []
    kwargs: dict[str, object] = {}
    for i, f in enumerate(dataclasses.fields(cls)):
        if not f.init:
            continue
        value = Span("f.cu", i, i + salt, i, salt) if f.name.endswith("span") else \
            f"v{i}_{salt}"
        required = f.default is dataclasses.MISSING and \
            f.default_factory is dataclasses.MISSING
        if required and not f.kw_only:
            args.append(value)
        else:
            kwargs[f.name] = value
    return args, kwargs


def _params(cls: type) -> list[tuple[str, object, object]]:
    """The __init__'s parameters: name, kind, default (annotations aside)."""
    return [(p.name, p.kind, p.default)
            for p in inspect.signature(cls.__init__).parameters.values()]


def test_every_node_class_is_covered() -> None:
    names = {c.__name__ for c in CLASSES}
    assert {"Binary", "Ref", "IntLit", "Compound", "KernelLaunch", "VarDecl"} <= names
    assert all(c.__init__.__qualname__ == f"{c.__qualname__}.__init__" for c in CLASSES)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_init_matches_the_dataclass(cls: type) -> None:
    ref = _reference(cls)
    assert _params(cls) == _params(ref)
    args, kwargs = _values(cls, 7)
    for kw in (kwargs, {}):  # every field given; the defaults
        got, want = cls(*args, **kw), ref(*args, **kw)
        assert list(vars(got).items()) == list(vars(want).items())
        assert got == cls(*args, **kw) and hash(got) == hash(cls(*args, **kw))
        with pytest.raises(dataclasses.FrozenInstanceError):
            got.span = Span("g.cu", 0, 0)
    if args:
        with pytest.raises(TypeError):
            cls(*args[:-1])
    if dataclasses.fields(cls):
        changed = dataclasses.replace(cls(*args, **kwargs), span=Span("h.cu", 1, 2))
        assert changed.span == Span("h.cu", 1, 2)
