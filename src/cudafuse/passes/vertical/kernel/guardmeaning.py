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
from collections.abc import Callable

from cudafuse.analysis.delinearise import delinearise, kernel_width
from cudafuse.analysis.evaluate import arith
from cudafuse.analysis.symbolic import ONE, Atom, Poly, Pred, compare, coord
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function
from cudafuse.ir.types import is_integral, is_unsigned
from cudafuse.passes.vertical.kernel.guard_flat import (
    flat_bounds,
    params_only,
    quotient_atoms,
)

_CMP = ("<", "<=", ">", ">=")


class _Unread(Exception):
    pass


Leaf = Callable[[n.Ref], Poly | None]


def _poly(e: n.Expr, leaf: Leaf, divide: bool = False) -> Poly:
    """`e` as a polynomial: literals, constants, + - * (and / % with `divide`, as the
    evaluator's div and mod atoms, constants folded with C semantics); a name is what `leaf`
    makes of it. _Unread for anything else."""
    while isinstance(e, n.Cast):
        if e.explicit and not _integral(e.type):
            raise _Unread
        e = e.operand
    if isinstance(e, n.IntLit):
        return Poly.const(e.value)
    if isinstance(e, n.Ref):
        if isinstance(e.const_value, int) and not isinstance(e.const_value, bool):
            return Poly.const(e.const_value)
        got = leaf(e)
        if got is None:
            raise _Unread
        return got
    if isinstance(e, n.Unary) and e.op == "-":
        return -_poly(e.operand, leaf, divide)
    if isinstance(e, n.Binary) and e.op in (("+", "-", "*", "/", "%") if divide else
                                            ("+", "-", "*")):
        if e.op in ("/", "%") and is_unsigned(e.type):
            raise _Unread
        return arith(e.op, _poly(e.lhs, leaf, divide), _poly(e.rhs, leaf, divide))
    raise _Unread


def _integral(t: str) -> bool:
    return is_integral(t) and "bool" not in t and "&" not in t


def _pred(e: n.Expr, leaf: Leaf, divide: bool = False) -> Pred:
    while isinstance(e, n.Cast):
        e = e.operand
    if isinstance(e, n.Unary) and e.op == "!":
        return _pred(e.operand, leaf, divide).negate()
    if isinstance(e, n.Binary) and e.op in ("&&", "||"):
        parts = (_pred(e.lhs, leaf, divide), _pred(e.rhs, leaf, divide))
        return Pred("and" if e.op == "&&" else "or", parts=parts)
    if isinstance(e, n.Binary) and e.op in _CMP:
        if not (_integral(e.lhs.type or "int") and _integral(e.rhs.type or "int")):
            raise _Unread
        if is_unsigned(e.lhs.type) or is_unsigned(e.rhs.type):
            raise _Unread  # (unsigned wrap-around is not integer arithmetic)
        return compare(e.op, _poly(e.lhs, leaf, divide), _poly(e.rhs, leaf, divide))
    raise _Unread


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


def guard_bounds(fn: Function, cond: n.Expr, coords: list[n.VarDecl], in_range: bool,
                 locals_: dict[str, n.Expr] | None = None) -> tuple[n.Expr, ...] | None:
    """The exclusive upper bound of each coordinate (x first) that `cond` means (`in_range`:
    the condition holds inside the image, else outside), as IR over the kernel's parameters;
    None when the condition means anything else, cannot be read, or its bounds may exceed
    the elements it lets through (guard_reading's `loose`)."""
    found = guard_reading(fn, cond, coords, in_range, locals_)
    return found[0] if found is not None and not found[1] else None


def guard_reading(fn: Function, cond: n.Expr, coords: list[n.VarDecl], in_range: bool,
                  locals_: dict[str, n.Expr] | None = None
                  ) -> tuple[tuple[n.Expr, ...], bool] | None:
    """guard_bounds' bounds, and whether they are loose: an upper envelope of the elements
    the condition lets through, equal to them only for some parameter values (a flat index
    over a parameter divisor n, guard_flat.py: Q * n, where n < 0 lets none through). A
    kernel with loose bounds writes part of its elements as far as fusion knows (as one
    with a lower bound does: its value keeps its guard). `locals_`: locals declared before
    the guard and never written, read as the values they were declared with (a flat
    index's row and column, `int r = i / w, c = i % w;`)."""
    ids = {c.decl: k for k, c in enumerate(coords)}
    params = {p.decl: p.name for p in fn.params if not p.is_pointer}
    known = locals_ or {}

    def leaf(r: n.Ref, depth: int = 8) -> Poly | None:
        if r.decl in ids:
            return Poly.atom(Atom("coord", f"c{ids[r.decl]}"))
        if r.kind == "param" and r.decl in params and _integral(r.type):
            return Poly.atom(Atom("param", r.decl))
        if r.decl in known and depth > 0 and _integral(r.type):
            return _poly(known[r.decl], lambda q: leaf(q, depth - 1), divide=True)
        return None

    try:
        pred = _pred(cond, leaf, divide=True)
    except _Unread:
        return None
    parts = _conjuncts(pred if in_range else pred.negate())
    if parts is None:
        return None
    types = {p.decl: p.type for p in fn.params}
    if any(quotient_atoms(part.poly) for part in parts):
        flat = flat_bounds(parts, len(coords))
        if flat is None:
            return None
        return tuple(_expr(flat[k].quotient * flat[k].divisor, params, types)
                     for k in range(len(coords))), any(b.loose for b in flat.values())
    bounds: dict[int, Poly] = {}
    for part in parts:
        assert part.poly is not None
        found = _one_coordinate(part.poly, len(coords))
        if found is None:
            return None
        k, coef, rest = found
        if not params_only(rest):
            return None
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
    return tuple(_expr(bounds[k], params, types) for k in range(len(coords))), False


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
    def leaf(r: n.Ref, depth: int = 8) -> Poly | None:
        if r.decl == coord_decl.decl:
            return Poly.atom(coord("x"))
        if r.decl in locals_ and depth > 0:  # a local's initialiser, a few levels deep
            return _poly(locals_[r.decl], lambda q: leaf(q, depth - 1), divide=True)
        if r.kind == "param" and _integral(r.type):
            return Poly.atom(Atom("param", r.decl))
        return None

    try:
        poly = _poly(index, leaf, divide=True)
    except _Unread:
        return False
    x = Poly.atom(coord("x"))
    width = kernel_width([(poly, ())])
    if width is None:
        return poly == x
    return delinearise(poly, (), width)[0] == delinearise(x, (), width)[0]


def own_row_stride(index: n.Expr, coords: list[n.VarDecl], locals_: dict[str, n.Expr]
                   ) -> n.Expr | None:
    """The row stride S when a 2-D kernel's store index evaluates to its own element y * S
    + x (S an expression of integral parameters), whatever locals spell it: `int r = y, c =
    x; out[r * w + c]`, `out[(y * w + x)]`, `out[x + w * y]`. `locals_` are the locals
    declared once and never written (their initialisers are followed a few levels deep);
    None when the index means anything else or cannot be read."""
    ids = {c.decl: k for k, c in enumerate(coords)}
    params: dict[str, tuple[str, str]] = {}

    def leaf(r: n.Ref, depth: int = 8) -> Poly | None:
        if r.decl in ids:
            return Poly.atom(Atom("coord", f"c{ids[r.decl]}"))
        if r.decl in locals_ and depth > 0:
            return _poly(locals_[r.decl], lambda q: leaf(q, depth - 1), divide=True)
        if r.kind == "param" and _integral(r.type) and "*" not in r.type:
            params[r.decl] = (r.name, r.type)
            return Poly.atom(Atom("param", r.decl))
        return None

    try:
        poly = _poly(index, leaf, divide=True)
    except _Unread:
        return None
    x, y = Atom("coord", "c0"), Atom("coord", "c1")
    stride: dict[tuple[Atom, ...], int] = {}
    for m, c in poly.terms:
        if m == (x,) and c == 1:
            continue
        if m.count(y) != 1 or x in m or any(a.kind != "param" for a in m if a != y):
            return None
        stride[tuple(a for a in m if a != y)] = c
    # (a stride with a negative term, `out[x - w * y]`, walks rows backwards, and a constant
    # one, `out[x + y]`, is no row of an image of run-time width (threads of neighbouring
    # rows store one element): neither is the layout y * S + x the other kernels assume)
    if ((x,), 1) not in poly.terms or not any(stride) or any(c < 0 for c in stride.values()):
        return None
    return _expr(Poly._make(stride), {d: name for d, (name, _) in params.items()},
                 {d: t for d, (_, t) in params.items()})
