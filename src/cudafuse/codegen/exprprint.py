"""Printing IR expressions back as C, fully parenthesised.

Used where the original text cannot be sliced: an expression that came out of a macro
expansion has only the macro invocation's span."""

from __future__ import annotations

from cudafuse.ir import nodes as n


class Unprintable(ValueError):
    pass


def to_c(e: n.Expr) -> str:
    if isinstance(e, n.IntLit):
        return str(e.value)
    if isinstance(e, n.FloatLit):
        text = repr(e.value)
        return text if e.is_double else text + "f"
    if isinstance(e, n.BoolLit):
        return "true" if e.value else "false"
    if isinstance(e, n.Ref):
        return e.name
    if isinstance(e, n.Member):
        base = e.base
        if (isinstance(base, n.Ref) and base.name == "this" and not base.decl) or (
                isinstance(base, n.OtherExpr) and base.kind == "CXX_THIS_EXPR"):
            return f"this->{e.field_name}"  # `tmp_` (implied `this`) or `this->tmp_`
        return f"{to_c(base)}{'->' if e.arrow else '.'}{e.field_name}"
    if isinstance(e, n.Binary):
        return f"({to_c(e.lhs)} {e.op} {to_c(e.rhs)})"
    if isinstance(e, n.Unary):
        inner = to_c(e.operand)
        return f"({inner}{e.op})" if e.postfix else f"({e.op}{inner})"
    if isinstance(e, n.Cast):
        return f"(({e.type})({to_c(e.operand)}))" if e.type else to_c(e.operand)
    if isinstance(e, n.Cond):
        return f"({to_c(e.cond)} ? {to_c(e.then)} : {to_c(e.else_)})"
    if isinstance(e, n.Index):
        return f"{to_c(e.base)}[{to_c(e.index)}]"
    if isinstance(e, n.Call) and e.callee and e.callee_expr is None:
        return f"{e.callee}({', '.join(to_c(a) for a in e.args)})"
    raise Unprintable(f"cannot print a {type(e).__name__} expression")
