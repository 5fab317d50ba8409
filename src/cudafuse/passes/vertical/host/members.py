"""Data members of `this` as launch arguments of a member function's host code.

A member (`tmp_`, `this->tmp_`) names a buffer or a value the way a local or a parameter
does, on two conditions. Between the launches of a sequence nothing may change it: the
sequence splitter already breaks at any statement that assigns one or calls a function
(another member function included), and launch arguments must be free of side effects.
And a pointer member must name memory of its own, as distinct pointer parameters are
assumed to (`pointer_alias_reason`): `member_alias_reason` refuses a member that the host
function assigns or hands out by address, or that any code of the file sets from another
pointer (`b_ = a_`, `s.tmp = out`); a constructor may set it from its parameters, as its
initialiser list does, and anyone may set it to a fresh allocation. Members are matched by
name: `this->a_` in another class's member function counts only when either class derives
from another (TranslationUnit.derived), `s.a_` and `p->a_` always.
"""

from __future__ import annotations

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit

ALLOCATORS = frozenset({"cudaMalloc", "cudaMallocManaged", "cudaMallocAsync", "cudaMallocPitch",
                        "cudaMallocHost", "cudaHostAlloc"})


def is_this(e: n.Node) -> bool:
    """`this`, written (an unmodelled CXX_THIS_EXPR) or implied by a member's name."""
    return (isinstance(e, n.OtherExpr) and e.kind == "CXX_THIS_EXPR") or (
        isinstance(e, n.Ref) and e.name == "this" and e.kind == "other" and not e.decl)


def this_member(e: n.Node) -> str | None:
    """The field a data member of `this` names (`tmp_`, `this->tmp_`), else None."""
    while isinstance(e, n.Cast):
        e = e.operand
    if isinstance(e, n.Member) and is_this(e.base):
        return e.field_name
    return None


def _field(e: n.Expr) -> str | None:
    """The field any member access names (`this->a_`, `s.tmp`, `p->buf`)."""
    while isinstance(e, n.Cast):
        e = e.operand
    return e.field_name if isinstance(e, n.Member) else None


def _fresh(e: n.Expr) -> bool:
    """nullptr, 0, or a call (an allocation, `new`): not a copy of another pointer."""
    while isinstance(e, n.Cast):
        e = e.operand
    return isinstance(e, (n.IntLit, n.Call)) or (
        isinstance(e, n.OtherExpr) and e.kind in ("CXX_NULL_PTR_LITERAL_EXPR", "GNU_NULL_EXPR",
                                                  "CXX_NEW_EXPR"))


def _from_params(fn: Function, e: n.Expr) -> bool:
    while isinstance(e, n.Cast):
        e = e.operand
    return isinstance(e, n.Ref) and e.kind == "param" and any(p.decl == e.decl
                                                               for p in fn.params)


def _bodies(unit: TranslationUnit) -> list[Function]:
    return [f for f in (*unit.functions, *unit.methods) if f.body is not None]


def member_alias_reason(unit: TranslationUnit, host: Function,
                        launch: n.KernelLaunch) -> str | None:
    """Why a pointer member passed to `launch` may not be taken as a buffer of its own,
    or None."""
    fields = {f for a in launch.args if (f := this_member(a)) is not None and
              ("*" in a.type or "[" in a.type)}
    if not fields or host.body is None:
        return None
    for node in host.body.walk():
        if isinstance(node, n.Binary) and node.is_assignment and \
                this_member(node.lhs) in fields:
            return f"pointer member '{this_member(node.lhs)}' is assigned in '{host.name}'"
        if isinstance(node, n.Unary) and node.op in ("++", "--") and \
                this_member(node.operand) in fields:
            return f"pointer member '{this_member(node.operand)}' is assigned in '{host.name}'"
        if isinstance(node, n.Call) and node.callee not in ALLOCATORS:
            for a in node.args:
                if isinstance(a, n.Unary) and a.op == "&" and this_member(a.operand) in fields:
                    return (f"the address of pointer member '{this_member(a.operand)}' is "
                            f"passed to '{node.callee}'")
    for fn in _bodies(unit):
        assert fn.body is not None
        ctor = bool(fn.parent) and fn.name == fn.parent
        # `this->a_` of a class unrelated to the host's is another a_
        other = fn.parent != host.parent and not {fn.parent, host.parent} & unit.derived
        for node in fn.body.walk():
            if not (isinstance(node, n.Binary) and node.is_assignment):
                continue
            name = _field(node.lhs)
            if other and this_member(node.lhs) is not None:
                continue
            if name not in fields or node.op == "=" and (
                    _fresh(node.rhs) or (ctor and _from_params(fn, node.rhs))):
                continue
            where = f"{fn.parent}::{fn.name}" if fn.parent else fn.name
            return f"pointer member '{name}' is set from another pointer in '{where}'"
    return None
