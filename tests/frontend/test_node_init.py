"""IR nodes' __init__ (ir/nodes._fast_init): the signature and the fields of dataclass's."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from cudafuse.ir import nodes as n
from cudafuse.ir.source import Span

CLASSES = [c for c in vars(n).values() if isinstance(c, type) and issubclass(c, n.Node)]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_same_signature_and_fields_as_dataclass(cls: type) -> None:
    original = cls._dataclass_init
    assert cls.__init__ is not original  # replaced, or the test would compare a thing to itself
    assert _parameters(cls.__init__) == _parameters(original)
    # Every field given a distinct value (positionally, then by keyword), and none given.
    fields = dataclasses.fields(cls)
    positional = [object() for f in fields if not f.kw_only]
    keywords = {f.name: object() for f in fields if f.kw_only}
    for args, kwargs in ((positional, keywords), ([], dict(zip(
            [f.name for f in fields if not f.kw_only], positional, strict=True), **keywords))):
        fast, slow = object.__new__(cls), object.__new__(cls)
        cls.__init__(fast, *args, **kwargs)
        original(slow, *args, **kwargs)
        assert vars(fast) == vars(slow)
    required = [f for f in fields if f.default is dataclasses.MISSING]
    if not required:
        assert vars(cls()) == vars(_by_dataclass(cls))


def _parameters(fn: object) -> list[tuple[str, object, object]]:
    """Names, kinds and defaults (annotations aside: the generated code has none)."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


def _by_dataclass(cls: type) -> object:
    node = object.__new__(cls)
    cls._dataclass_init(node)
    return node


def test_frozen_and_compared_as_before() -> None:
    sp = Span("f.cu", 1, 2, 1, 2)
    a = n.Binary("+", n.IntLit(1, span=sp), n.Ref("x", "param", "x@f.cu:0"), span=sp,
                 type="int")
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.op = "-"  # type: ignore[misc]
    b = dataclasses.replace(a, span=Span("g.cu", 5, 6, 2, 1))
    assert a == b and hash(a) == hash(b) and b.span.file == "g.cu"  # span is compare=False
    assert repr(n.Return()) == "Return(span=Span(file='', start=0, end=0, line=0, col=0), " \
        "value=None)"


def test_preorder_is_the_recursive_walk() -> None:
    """Node.preorder (iterative, absent children skipped) lists what a recursive pre-order
    walk lists, in its order, on every function of a corpus file with every statement kind."""
    from pathlib import Path

    from cudafuse.frontend import ParseOptions, parse_file

    def walk(node: n.Node) -> list[n.Node]:
        return [node, *(m for c in node.children() if c is not None for m in walk(c))]

    path = Path(__file__).resolve().parents[1] / "corpus" / "control_flow.cu"
    unit = parse_file(str(path), ParseOptions()).unit
    bodies = [f.body for f in unit.functions if f.body is not None]
    assert len(bodies) >= 3
    for body in bodies:
        got, want = body.preorder(), walk(body)
        assert len(got) == len(want) and all(a is b for a, b in zip(got, want, strict=True))
    empty = n.For(None, None, None, n.Compound(()))  # children() without the absent parts
    assert [type(x).__name__ for x in empty.preorder()] == ["For", "Compound"]
    assert [type(x).__name__ for x in n.VarDecl("v", "int", None, "v@f:0",
            array_dims=(None, n.IntLit(3))).preorder()] == ["VarDecl", "IntLit"]


@pytest.mark.parametrize("op", ["=", "+=", "<<=", ">>=", "^=", "==", "!=", "<=", ">=", "<",
                                "+", ",", "<=>", "&&"])
def test_is_assignment(op: str) -> None:
    want = op.endswith("=") and op not in ("==", "!=", "<=", ">=")
    for _ in range(2):  # computed, then cached
        assert n.Binary(op, n.IntLit(1), n.IntLit(2)).is_assignment is want
