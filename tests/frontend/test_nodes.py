"""IR nodes' shortcuts (ir/nodes.py): preorder and is_assignment give what they stand for."""

from __future__ import annotations

import pytest

from cudafuse.ir import nodes as n


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
