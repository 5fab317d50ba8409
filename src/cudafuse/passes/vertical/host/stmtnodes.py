"""Reading host statements node by node: which nodes a statement holds (and which of them
a `throw` builds), which variable a node assigns, which pointer a memory access goes
through, and which unmodelled expressions compute nothing. Shared by the launch-sequence
splitter (hoststmts.py) and the helper-effect reader (effects.py), which import this and
not each other."""

from __future__ import annotations

from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts as _strip
from cudafuse.passes.vertical.host.hostexprs import is_assign_operator

# Expression kinds the IR leaves unmodelled that compute nothing: sizeof/alignof, a default
# argument (an UNEXPOSED_EXPR without children or text), nullptr, a type named in a template
# (`sizeof(T)`).
_QUIET = frozenset({"CXX_UNARY_EXPR", "CXX_NULL_PTR_LITERAL_EXPR", "GNU_NULL_EXPR",
                    "STRING_LITERAL", "CHARACTER_LITERAL", "CXX_THIS_EXPR", "TYPE_REF"})


def _quiet(node: n.OtherExpr) -> bool:
    return node.kind in _QUIET or (node.kind == "UNEXPOSED_EXPR" and not node.items)


def _nodes(root: n.Node) -> list[tuple[n.Node, bool]]:
    """Every node under `root` (itself included), and whether it is part of a `throw`.
    A throw runs only on its error path and leaves the function: the exception object it
    builds (`std::runtime_error(std::string("...") + cudaGetErrorString(e))`) is judged as
    printing an error is, while what it reads and writes is judged as anywhere else."""
    out: list[tuple[n.Node, bool]] = []
    todo: list[tuple[n.Node, bool]] = [(root, False)]
    while todo:
        node, thrown = todo.pop()
        thrown = thrown or isinstance(node, n.OtherExpr) and node.kind == "CXX_THROW_EXPR"
        out.append((node, thrown))
        todo.extend((c, thrown) for c in reversed(node.children()) if c is not None)
    return out


def _root(e: n.Expr) -> n.Ref | None:
    e = _strip(e)
    while isinstance(e, n.Binary) and e.op in ("+", "-"):  # p + offset
        e = _strip(e.lhs)
    return e if isinstance(e, n.Ref) and e.kind in ("local", "param", "global") else None


def _deref_base(node: n.Node) -> n.Expr | None:
    """The pointer or array a memory access goes through, if the node is one."""
    if isinstance(node, n.Index):
        return _root(node.base) or _strip(node.base)
    if isinstance(node, n.Unary) and node.op == "*":
        return _root(node.operand) or _strip(node.operand)
    if isinstance(node, n.Member) and node.arrow:
        return _root(node.base) or _strip(node.base)
    return None


def _assigned(node: n.Node) -> list[n.Ref]:
    """Variables the node itself writes (`x = `, `x.f += `, `++x`, `&x`), not memory written
    through a pointer (the dereference is judged on its own)."""
    target = None
    if isinstance(node, n.Binary) and node.is_assignment:
        target = node.lhs
    elif isinstance(node, n.Unary) and node.op in ("++", "--", "&"):
        target = node.operand
    elif isinstance(node, n.Call) and is_assign_operator(node):
        target = node.args[0]
    else:
        return []
    while True:
        target = _strip(target)
        if isinstance(target, n.Member) and not target.arrow:
            target = target.base
        elif isinstance(target, n.Index) and isinstance(_strip(target.base), n.Ref) and \
                "[" in (_strip(target.base).type or ""):  # type: ignore[union-attr]
            target = target.base  # an element of an array variable
        else:
            break
    return [target] if isinstance(target, n.Ref) else []
