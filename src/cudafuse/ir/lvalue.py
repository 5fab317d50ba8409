"""What an lvalue names: the variable a store through it writes into."""

from __future__ import annotations

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
