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


def test_nodes_of_is_the_filtered_walk() -> None:
    """nodes_of (a block groups its walk by class once) lists the walk's instances of the
    classes asked for, in walk order: one class, several, a base class, and a subclass
    defined elsewhere (as the passes define theirs), on every function of a corpus file."""
    from pathlib import Path

    from cudafuse.frontend import ParseOptions, parse_file

    class Guard(n.If):  # a subclass the grouping never saw defined
        pass

    path = Path(__file__).resolve().parents[1] / "corpus" / "control_flow.cu"
    unit = parse_file(str(path), ParseOptions()).unit
    bodies: list[n.Node] = [f.body for f in unit.functions if f.body is not None]
    guard = Guard(n.Binary("<", n.Ref("i"), n.IntLit(3)),
                  n.ExprStmt(n.Unary("++", n.Ref("i"), True)))
    bodies.append(n.Compound((n.ExprStmt(n.Binary("=", n.Ref("i"), n.IntLit(0))), guard,
                              n.If(n.Ref("c"), n.Compound(())))))
    asked = [n.Call, n.Ref, (n.Binary, n.Unary), (n.VarDecl, n.Ref), n.Stmt, n.If, Guard,
             (n.OtherStmt, n.OtherExpr), (n.For, n.While)]
    found = 0
    for body in bodies:
        for classes in asked:
            want = [x for x in body.walk() if isinstance(x, classes)]
            for _ in range(2):  # grouped and answered, then the answer kept
                got = body.nodes_of(classes)
                assert len(got) == len(want) and all(a is b for a, b in
                                                     zip(got, want, strict=True))
            found += len(want)
    assert found > 100
    assert [type(x) for x in bodies[-1].nodes_of(n.If)] == [Guard, n.If]
    assert bodies[-1].nodes_of(Guard) == (guard,)
    expr = n.Binary("+", n.Ref("a"), n.Unary("-", n.Ref("b")))  # not a block: filtered walk
    assert [x.name for x in expr.nodes_of(n.Ref)] == ["a", "b"]
