"""What an lvalue names: the variable a store through it writes into."""

from __future__ import annotations

from collections.abc import Iterator

from cudafuse.ir import nodes as n


def written_root(e: n.Expr) -> n.Ref | None:
    """The variable an lvalue names, through subscripts, members, casts and `*` (`s[i][j]`,
    `p->f`, `*(float *)q`); None when it is rooted in anything but a name."""
    while True:
        if isinstance(e, n.Cast):
            e = e.operand
        elif isinstance(e, (n.Index, n.Member)):
            e = e.base
        elif isinstance(e, n.Unary) and e.op == "*":
            e = e.operand
        else:
            return e if isinstance(e, n.Ref) else None


def write_targets(body: n.Node) -> Iterator[n.Expr]:
    """The lvalues `body` writes or lets be written: each assignment's (compound ones too)
    left side, each ++/--'s operand, each `&`'s operand (an address taken may be written
    through)."""
    for x in body.nodes_of((n.Binary, n.Unary)):
        if isinstance(x, n.Binary):
            if x.is_assignment:
                yield x.lhs
        elif isinstance(x, n.Unary) and x.op in ("++", "--", "&"):
            yield x.operand
