"""Tables of buffers set once: a local array of pointers or a `std::vector<T *>` initialised
from a list of buffer variables (`float *bufs[2] = {t, out};`, `std::vector<float *> bufs =
{t, out};`) and afterwards only read at constant positions (`bufs[0]`). Such an element is
the variable it was initialised from, as a stable alias is (pointsto.py), when that variable
is not written after the table is declared (nor in a loop around it): at every launch
`bufs[0]` names exactly `t`'s buffer.

Any other use of the table (an element assigned or its address taken, a position known at
run time only, the table passed to a function, iterated, resized, copied) leaves its
elements unfollowed: hostview then splits the launch sequence at a launch given one.
"""

from __future__ import annotations

from collections.abc import Callable

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function


def _strip(e: n.Expr | None) -> n.Expr | None:
    while isinstance(e, n.Cast):
        e = e.operand
    return e


def _pointer(t: str) -> bool:
    return "*" in t


def _vector_of_pointers(t: str) -> bool:
    t = t.replace("const ", "").strip()
    return (t.startswith("std::vector<") or t.startswith("vector<")) and \
        t.endswith("*>")


def _read_at(node: n.Node) -> tuple[n.Ref, int] | None:
    """`bufs[k]` with k a constant: the table's variable and k (an array's subscript, or a
    vector's `operator[]`)."""
    if isinstance(node, n.Index):
        base, index = _strip(node.base), _strip(node.index)
    elif isinstance(node, n.Call) and node.callee == "operator[]" and len(node.args) == 2:
        base, index = _strip(node.args[0]), _strip(node.args[1])
    else:
        return None
    if isinstance(base, n.Ref) and isinstance(index, n.IntLit):
        return base, index.value
    return None


def _elements(d: n.VarDecl) -> list[n.Ref] | None:
    """The buffer variables a table's initialiser lists, in order (None: not such a list)."""
    init = _strip(d.init)
    if d.array_dims and _pointer(d.var_type):
        pass
    elif not d.array_dims and _vector_of_pointers(d.var_type) and \
            isinstance(init, n.Call) and init.callee == "vector" and init.args:
        init = _strip(init.args[0])  # std::vector<float *> v = {t, u}: its list
    else:
        return None
    if not isinstance(init, n.InitList):
        return None
    out = []
    for e in init.children():
        r = _strip(e)  # type: ignore[arg-type]
        if not (isinstance(r, n.Ref) and r.kind in ("param", "local", "global") and
                _pointer(r.type)):
            return None
        out.append(r)
    return out


# Calls known to take their pointer arguments by value.
_BY_VALUE = ("cuda", "memset", "memcpy", "free", "printf", "fprintf")


def _as_value(read: n.Node, parents: dict[int, n.Node]) -> bool:
    """Whether an element read is used only as a value (its pointer copied)."""
    node: n.Node = read
    parent = parents.get(id(node))
    while isinstance(parent, n.Cast):
        node, parent = parent, parents.get(id(parent))
    if isinstance(parent, n.Binary) and parent.is_assignment and parent.lhs is node:
        return False
    if isinstance(parent, n.Unary) and parent.op in ("&", "++", "--"):
        return False
    if isinstance(parent, n.VarDecl) and "&" in parent.var_type:
        return False
    if isinstance(parent, n.Call) and not isinstance(parent, n.KernelLaunch):
        return parent.callee.startswith(_BY_VALUE)
    return True


class PointerTables:
    """The tables of one host function whose elements are followed."""

    def __init__(self, host: Function, stable_after: Callable[[n.Ref, n.VarDecl], bool]):
        """`stable_after(v, d)`: whether variable v keeps its value after declaration d
        (not written after it, nor in a loop holding it)."""
        assert host.body is not None
        body = host.body
        found: dict[str, list[n.Ref]] = {}
        for d in body.walk():
            if isinstance(d, n.VarDecl) and (elems := _elements(d)) is not None and \
                    all(stable_after(r, d) for r in elems):
                found[d.decl] = elems
        # Every use of a table must be a read at a constant position inside it, as a value:
        # not written, its address not taken, not bound to a reference, not handed to a
        # function that might take it by reference.
        parents: dict[int, n.Node] = {}
        for node in body.walk():
            for c in node.children():
                if c is not None:
                    parents[id(c)] = node
        reads: set[int] = set()
        for node in body.walk():
            at = _read_at(node)
            if at is not None and at[0].decl in found:
                if 0 <= at[1] < len(found[at[0].decl]) and _as_value(node, parents):
                    reads.add(id(at[0]))
                else:
                    found.pop(at[0].decl)
        for node in body.walk():
            if isinstance(node, n.Ref) and node.decl in found and id(node) not in reads:
                found.pop(node.decl)
        self.tables = found

    def element(self, e: n.Expr | None) -> n.Ref | None:
        """The buffer variable `e` names when it is a followed table's element."""
        e = _strip(e)
        at = _read_at(e) if e is not None else None
        if at is None or at[0].decl not in self.tables:
            return None
        return self.tables[at[0].decl][at[1]]
