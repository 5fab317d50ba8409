"""A bounds guard read by what it means, when its spelling is not the plain one.

`if (tid * channels < w * h * channels)` with `channels` passed 3 at every launch
(constargs.py), `if (2 * x + 1 <= 2 * w - 1)`, `if (!(x >= w) && y - h < 0)`: each is
`x < B` per coordinate with B an expression of the parameters. The condition is evaluated
into integer linear constraints over the coordinates (analysis/symbolic.py); each
constraint `-k * c + R >= 0` (k > 0 a constant, every other coefficient of R a multiple of
k) is exactly `c < R / k + 1` with the constant term floored, so the guard is replaced by
bounds only when it means nothing else: one upper bound per coordinate, and any lower bound
trivial (`c >= 0` for a coordinate built from the unsigned built-ins). The bound comes back
as IR built from the kernel's own parameters, so legality compares it through the launch
arguments and code generation prints it, like a bound written out.
"""

from __future__ import annotations

import math

from cudafuse.analysis.delinearise import delinearise, kernel_width
from cudafuse.analysis.symbolic import ONE, Atom, Poly, Pred, compare, coord
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function

_CMP = ("<", "<=", ">", ">=")


class _Unread(Exception):
    pass


def _poly(e: n.Expr, coords: dict[str, int], params: dict[str, str]) -> Poly:
    while isinstance(e, n.Cast):
        if e.explicit and not _integral(e.type):
            raise _Unread
        e = e.operand
    if isinstance(e, n.IntLit):
        return Poly.const(e.value)
    if isinstance(e, n.Ref):
        if isinstance(e.const_value, int) and not isinstance(e.const_value, bool):
            return Poly.const(e.const_value)
        if e.decl in coords:
            return Poly.atom(Atom("coord", f"c{coords[e.decl]}"))
        if e.kind == "param" and e.decl in params and _integral(e.type):
            return Poly.atom(Atom("param", e.decl))
        raise _Unread
    if isinstance(e, n.Unary) and e.op == "-":
        return -_poly(e.operand, coords, params)
    if isinstance(e, n.Binary) and e.op in ("+", "-", "*"):
        a, b = _poly(e.lhs, coords, params), _poly(e.rhs, coords, params)
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    raise _Unread


def _integral(t: str) -> bool:
    t = t.replace("const", " ")
    return not any(w in t for w in ("float", "double", "*", "&", "bool", "half")) and \
        any(w in t for w in ("int", "long", "short", "size_t", "unsigned", "char"))


def _pred(e: n.Expr, coords: dict[str, int], params: dict[str, str]) -> Pred:
    while isinstance(e, n.Cast):
        e = e.operand
    if isinstance(e, n.Unary) and e.op == "!":
        return _pred(e.operand, coords, params).negate()
    if isinstance(e, n.Binary) and e.op in ("&&", "||"):
        parts = (_pred(e.lhs, coords, params), _pred(e.rhs, coords, params))
        return Pred("and" if e.op == "&&" else "or", parts=parts)
    if isinstance(e, n.Binary) and e.op in _CMP:
        if not (_integral(e.lhs.type or "int") and _integral(e.rhs.type or "int")):
            raise _Unread
        if _unsigned(e.lhs.type) or _unsigned(e.rhs.type):
            raise _Unread  # (unsigned wrap-around is not integer arithmetic)
        return compare(e.op, _poly(e.lhs, coords, params), _poly(e.rhs, coords, params))
    raise _Unread


def _unsigned(t: str) -> bool:
    return any(w in t for w in ("unsigned", "size_t", "uint"))


def _conjuncts(p: Pred) -> list[Pred] | None:
    if p.op == "and":
        out: list[Pred] = []
        for q in p.parts:
            got = _conjuncts(q)
            if got is None:
                return None
            out += got
        return out
    return [p] if p.op == "ge" else None


def guard_bounds(fn: Function, cond: n.Expr, coords: list[n.VarDecl], in_range: bool
                 ) -> tuple[n.Expr, ...] | None:
    """The exclusive upper bound of each coordinate (x first) that `cond` means (`in_range`:
    the condition holds inside the image, else outside), as IR over the kernel's parameters;
    None when the condition means anything else or cannot be read."""
    ids = {c.decl: k for k, c in enumerate(coords)}
    params = {p.decl: p.name for p in fn.params if not p.is_pointer}
    try:
        pred = _pred(cond, ids, params)
    except _Unread:
        return None
    parts = _conjuncts(pred if in_range else pred.negate())
    if parts is None:
        return None
    bounds: dict[int, Poly] = {}
    for part in parts:
        assert part.poly is not None
        found = _one_coordinate(part.poly, len(coords))
        if found is None:
            return None
        k, coef, rest = found
        if coef > 0:  # c >= -rest / coef: a lower bound, allowed only when trivial
            if rest.is_const and rest.constant_term >= 0:
                continue
            return None
        step = -coef
        if any(c % step for m, c in rest.terms if m):
            return None
        bound = Poly._make({m: c // step for m, c in rest.terms if m}) + \
            Poly.const(math.floor(rest.constant_term / step)) + ONE
        if k in bounds:
            return None
        bounds[k] = bound
    if sorted(bounds) != list(range(len(coords))):
        return None
    types = {p.decl: p.type for p in fn.params}
    return tuple(_expr(bounds[k], params, types) for k in range(len(coords)))


def _one_coordinate(p: Poly, dims: int) -> tuple[int, int, Poly] | None:
    """(coordinate, its coefficient, the rest) of a constraint linear in one coordinate."""
    found: tuple[int, int] | None = None
    rest: dict[tuple[Atom, ...], int] = {}
    for m, c in p.terms:
        cs = [a for a in m if a.kind == "coord"]
        if not cs:
            rest[m] = c
            continue
        if len(m) != 1 or found is not None:
            return None
        found = (int(cs[0].name[1:]), c)
    if found is None or not 0 <= found[0] < dims:
        return None
    return found[0], found[1], Poly._make(rest)


def _expr(p: Poly, params: dict[str, str], types: dict[str, str]) -> n.Expr:
    """`p` (over parameter atoms) as IR: a sum of products of parameter references."""
    def ref(a: Atom) -> n.Expr:
        return n.Ref(params[a.name], "param", a.name, type=types[a.name])

    terms: list[tuple[int, n.Expr | None]] = []
    for m, c in p.terms:
        node: n.Expr | None = None
        for a in m:
            node = ref(a) if node is None else n.Binary("*", node, ref(a), type="int")
        terms.append((c, node))
    out: n.Expr | None = None
    for c, node in terms:
        mag = abs(c)
        term: n.Expr = n.IntLit(mag, type="int") if node is None else node if mag == 1 else \
            n.Binary("*", n.IntLit(mag, type="int"), node, type="int")
        if out is None:
            out = n.Unary("-", term, type="int") if c < 0 else term
        else:
            out = n.Binary("-" if c < 0 else "+", out, term, type="int")
    return out if out is not None else n.IntLit(0, type="int")


def linear_own(index: n.Expr, coord_decl: n.VarDecl, locals_: dict[str, n.Expr]) -> bool:
    """Whether a 1-D kernel's store index is its own element spelled through the 2-D
    coordinates it derives from its linear one (`int x = i % w, y = i / w; out[y * w + x]`):
    with x = i % w and y = i / w, y * w + x is i (analysis/delinearise.py)."""
    try:
        poly = _linear_poly(index, coord_decl, locals_, 8)
    except _Unread:
        return False
    x = Poly.atom(coord("x"))
    width = kernel_width([(poly, ())])
    if width is None:
        return poly == x
    return delinearise(poly, (), width)[0] == delinearise(x, (), width)[0]


def _linear_poly(e: n.Expr, coord_decl: n.VarDecl, locals_: dict[str, n.Expr],
                 depth: int) -> Poly:
    while isinstance(e, n.Cast):
        if e.explicit and not _integral(e.type):
            raise _Unread
        e = e.operand
    if isinstance(e, n.IntLit):
        return Poly.const(e.value)
    if isinstance(e, n.Ref):
        if e.decl == coord_decl.decl:
            return Poly.atom(coord("x"))
        if isinstance(e.const_value, int) and not isinstance(e.const_value, bool):
            return Poly.const(e.const_value)
        if e.decl in locals_ and depth > 0:
            return _linear_poly(locals_[e.decl], coord_decl, locals_, depth - 1)
        if e.kind == "param" and _integral(e.type):
            return Poly.atom(Atom("param", e.decl))
        raise _Unread
    if isinstance(e, n.Binary) and e.op in ("+", "-", "*", "/", "%"):
        a = _linear_poly(e.lhs, coord_decl, locals_, depth)
        b = _linear_poly(e.rhs, coord_decl, locals_, depth)
        if e.op in ("/", "%"):
            if _unsigned(e.type):
                raise _Unread
            return Poly.atom(Atom("div" if e.op == "/" else "mod",
                                  "div" if e.op == "/" else "mod", (a, b)))
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    raise _Unread
