"""Where does a pointer parameter go? Views must only ever be subscripted.

An intermediate buffer becomes a view object in the fused kernel. The consumer may subscript it
directly or hand it to one of the file's `__device__` helpers that subscripts it (or hands it
on): cudafuse then emits a template overload of each such helper that takes the view, with the
helper's body unchanged. Any other use (pointer arithmetic, dereference, storing the pointer,
calling a function whose body it cannot see) is a reason not to fuse.
"""

from __future__ import annotations

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit

Overloads = frozenset[tuple[str, int]]  # (helper name, parameter position)


def _strip(e: n.Expr) -> n.Expr:
    while isinstance(e, n.Cast) and not e.explicit:
        e = e.operand
    return e


def subscript_only(unit: TranslationUnit, fn: Function, pname: str, depth: int = 0
                   ) -> tuple[Overloads, str | None]:
    """(helpers that need a view overload, reason) for parameter `pname` of `fn`."""
    if fn.body is None:
        return frozenset(), f"'{fn.name}' has no body cudafuse can see"
    decl = next((p.decl for p in fn.params if p.name == pname), None)
    if decl is None:
        return frozenset(), None
    if depth > 8:
        return frozenset(), f"helpers nest too deeply below '{fn.name}'"
    subscripted: set[int] = set()
    passed: dict[int, tuple[str, int]] = {}
    written: set[int] = set()
    for node in fn.body.walk():
        if isinstance(node, n.Index):
            subscripted.add(id(_strip(node.base)))
        if isinstance(node, n.Call) and node.callee_expr is None:
            for pos, arg in enumerate(node.args):
                passed[id(_strip(arg))] = (node.callee, pos)
        if isinstance(node, n.Binary) and node.is_assignment:
            written.add(id(_strip(node.lhs.base)) if isinstance(node.lhs, n.Index) else 0)
        if isinstance(node, n.Unary) and node.op in ("++", "--", "&") and \
                isinstance(node.operand, n.Index):
            written.add(id(_strip(node.operand.base)))
    needed: set[tuple[str, int]] = set()
    for node in fn.body.walk():
        if not (isinstance(node, n.Ref) and node.decl == decl):
            continue
        if id(node) in written:
            return frozenset(), f"'{fn.name}' writes through '{pname}'"
        if id(node) in subscripted:
            continue
        if id(node) in passed:
            callee, pos = passed[id(node)]
            helper = unit.function(callee)
            if helper is None or helper.space not in ("device", "host_device") or \
                    helper.is_template or pos >= len(helper.params):
                return frozenset(), (f"'{fn.name}' passes '{pname}' to '{callee}', whose body "
                                     "cudafuse cannot adapt")
            inner, why = subscript_only(unit, helper, helper.params[pos].name, depth + 1)
            if why:
                return frozenset(), why
            needed |= {(callee, pos)} | inner
            continue
        return frozenset(), f"'{fn.name}' uses '{pname}' other than by subscripting (p[i])"
    return frozenset(needed), None


def overload_text(unit: TranslationUnit, fn: Function, positions: set[int], prefix: str) -> str:
    """A template overload of helper `fn` taking views at `positions`, body unchanged."""
    assert fn.body is not None
    tparams = ", ".join(f"class {prefix}V{i}" for i in sorted(positions))
    params = []
    for i, p in enumerate(fn.params):
        if i in positions:
            params.append(f"const {prefix}V{i} &{p.name}")
        else:
            params.append(f"{p.type} {p.name}" if not p.type.endswith("*")
                          else f"{p.type}{p.name}")
    return (f"template <{tparams}>\n__device__ __forceinline__ {fn.return_type} "
            f"{fn.name}({', '.join(params)}) {unit.text(fn.body.span)}\n")
