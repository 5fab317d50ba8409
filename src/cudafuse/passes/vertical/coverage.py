"""Does a launch's grid cover its kernel's iteration space?

A producer is recomputed at every element its consumers read; that equals the original only if
the original launch computed (and stored) every element of the iteration space. With a guard
`if (x >= w) return;` that holds when gridDim.x * blockDim.x >= w, which the usual
`(w + b - 1) / b` grid expresses. The check is symbolic over the host function's
never-reassigned locals, so `dim3 block(32, 8); dim3 grid((w + block.x - 1) / block.x, ...)`
and `(w + 31) / 32` are both understood.
"""

from __future__ import annotations

from cudafuse.ir import nodes as n
from cudafuse.passes.vertical.hostview import _shape

Linear = tuple[tuple[tuple[str, int], ...], int]  # ((atom, coeff) sorted, constant)


def _strip(e: n.Expr) -> n.Expr:
    while isinstance(e, n.Cast):
        e = e.operand
    return e


class Resolver:
    def __init__(self, host_locals: dict[str, n.VarDecl],
                 params: dict[str, n.Expr] | None = None):
        self.locals = host_locals
        self.params = params or {}  # kernel parameter decl -> host argument

    def with_params(self, params: dict[str, n.Expr]) -> Resolver:
        return Resolver(self.locals, params)

    def dim3(self, e: n.Expr) -> list[n.Expr] | None:
        """The x, y, z components of a dim3-valued (or integer) host expression."""
        e = _strip(e)
        if isinstance(e, n.Ref) and e.decl in self.locals:
            d = self.locals[e.decl]
            if d.init is None:
                return None
            if d.var_type.replace("const ", "").strip() != "dim3":
                return [e]
            return self.dim3(d.init)
        if isinstance(e, n.Call) and e.callee == "dim3":
            comps = list(e.args)
        elif isinstance(e, n.InitList):
            comps = list(e.items)
        elif e.type.replace("const ", "").strip() == "dim3":
            return None
        else:
            comps = [e]
        # An omitted dim3 argument shows up as a default-argument expression with no text.
        comps = [n.IntLit(1) if isinstance(c, n.OtherExpr) and not c.items and
                 c.span.end == c.span.start else c for c in comps]
        return comps + [n.IntLit(1)] * (3 - len(comps))

    def linear(self, e: n.Expr, depth: int = 0) -> Linear | None:
        e = _strip(e)
        if depth > 20:
            return None
        if isinstance(e, n.IntLit):
            return ((), e.value)
        if isinstance(e, n.Ref) and e.kind == "param" and e.decl in self.params:
            return Resolver(self.locals).linear(self.params[e.decl], depth + 1)
        if isinstance(e, n.Ref):
            if e.const_value is not None and isinstance(e.const_value, int):
                return ((), e.const_value)
            d = self.locals.get(e.decl)
            if d is not None and d.init is not None and \
                    d.var_type.replace("const ", "").strip() != "dim3":
                return self.linear(d.init, depth + 1)
            return (((e.decl or e.name, 1),), 0)
        if isinstance(e, n.Member) and e.field_name in ("x", "y", "z"):
            comps = self.dim3(e.base)
            if comps is not None:
                return self.linear(comps["xyz".index(e.field_name)], depth + 1)
        if isinstance(e, n.Binary) and e.op in ("+", "-"):
            a, b = self.linear(e.lhs, depth + 1), self.linear(e.rhs, depth + 1)
            if a is None or b is None:
                return None
            return _add(a, b, 1 if e.op == "+" else -1)
        if isinstance(e, n.Binary) and e.op == "*":
            a, b = self.linear(e.lhs, depth + 1), self.linear(e.rhs, depth + 1)
            if a is None or b is None:
                return None
            if not a[0]:
                return _scale(b, a[1])
            if not b[0]:
                return _scale(a, b[1])
            # A product of two resolved forms (`w * h` in two kernels, or `h * w`): one
            # opaque term named by both factors, in either order; not by the kernel's text,
            # whose parameters differ from kernel to kernel.
            return (((repr(sorted((a, b))), 1),), 0)
        return (((_shape(e), 1),), 0)


def _add(a: Linear, b: Linear, sign: int) -> Linear:
    acc = dict(a[0])
    for k, c in b[0]:
        acc[k] = acc.get(k, 0) + sign * c
    return tuple(sorted((k, c) for k, c in acc.items() if c)), a[1] + sign * b[1]


def _scale(a: Linear, s: int) -> Linear:
    return tuple(sorted((k, c * s) for k, c in a[0] if c * s)), a[1] * s


def covers(resolver: Resolver, grid: n.Expr, block: n.Expr, bounds: list[n.Expr]
           ) -> str | None:
    """None when grid * block >= bound in every dimension, else the reason it is not shown."""
    g, b = resolver.dim3(grid), resolver.dim3(block)
    if g is None or b is None:
        return "its grid or block size is not a dim3 built in the host function"
    for i, bound in enumerate(bounds):
        dim = "xyz"[i]
        gi = _strip(g[i])
        bl = resolver.linear(b[i])
        bnd = resolver.linear(bound)
        if bl is None or bnd is None:
            return f"its {dim} block size or bound is not a simple expression"
        if not (isinstance(gi, n.Binary) and gi.op == "/"):
            return f"its grid's {dim} size is not a rounded-up division (w + b - 1) / b"
        num, den = resolver.linear(gi.lhs), resolver.linear(gi.rhs)
        if num is None or den is None or den != bl:
            return f"its grid's {dim} size does not divide by its block's {dim} size"
        slack = _add(num, bnd, -1)  # num - bound must be >= block - 1
        extra = _add(slack, bl, -1)
        if extra[0] or extra[1] < -1:
            return f"its grid does not provably cover the iteration space in {dim}"
    return None
