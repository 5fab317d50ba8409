"""Several stores per thread: one buffer holding several "channels" of a producer's element.

Today this module only recognises such producers, so that their refusal names the layout
(`several_stores_reason`); fusing them is the design below, not done yet.

A kernel may store more than one value per element into one buffer, at constant offsets of
its element: planar channels (`p[c * w * h + i]`, c = 0, 1, 2: an RGB-to-planar kernel) or
interleaved ones (`q[(y * w + x) * 3 + c]`). Each store is then its own output channel: the
producer's value at element i for channel c is the body with that store turned into
`return` (and the others into nothing), and a consumer's read `p[c * w * h + i]` or
`q[i * 3 + c]` is channel c at element i.

Indices are compared as integer polynomials over the kernel's variables (parameters,
coordinates, and locals declared once and never written, replaced by their initialisers):
`(y * w + x) * 3 + 2`, `3 * i + 2` and `2 + i * 3` are one polynomial. The planar plane is
the iteration space's size (the product of the guard's bounds, the row stride being the
width), so channels never overlap; the interleaved factor is a constant K > 1 with every
channel in 0..K-1. A consumer's read maps to a channel only at its own element, with a
constant channel the producer stores; anything else is refused with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from cudafuse.ir import nodes as n

Poly = dict[tuple[str, ...], int]  # monomial (sorted declaration ids) -> coefficient


def _add(a: Poly, b: Poly, sign: int = 1) -> Poly:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + sign * c
        if out[m] == 0:
            del out[m]
    return out


def _mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(sorted(ma + mb))
            out[m] = out.get(m, 0) + ca * cb
            if out[m] == 0:
                del out[m]
    return out


def poly(e: n.Expr | None, locals_: dict[str, n.Expr], depth: int = 0) -> Poly | None:
    """`e` as an integer polynomial, or None (division, calls, floats, members...)."""
    if e is None or depth > 16:
        return None
    while isinstance(e, n.Cast) or (isinstance(e, n.OtherExpr) and e.kind == "PAREN_EXPR"
                                     and len(e.items) == 1):
        e = e.operand if isinstance(e, n.Cast) else e.items[0]  # type: ignore[assignment]
    if isinstance(e, n.IntLit):
        return {(): e.value} if e.value else {}
    if isinstance(e, n.Ref):
        if isinstance(e.const_value, int):
            return {(): e.const_value} if e.const_value else {}
        if e.decl in locals_:
            return poly(locals_[e.decl], locals_, depth + 1)
        if e.kind in ("param", "local") and e.decl:
            return {(e.decl,): 1}
        return None
    if isinstance(e, n.Unary) and e.op in ("-", "+"):
        inner = poly(e.operand, locals_, depth + 1)
        return None if inner is None else (inner if e.op == "+" else _add({}, inner, -1))
    if isinstance(e, n.Binary) and e.op in ("+", "-", "*"):
        a, b = poly(e.lhs, locals_, depth + 1), poly(e.rhs, locals_, depth + 1)
        if a is None or b is None:
            return None
        return _mul(a, b) if e.op == "*" else _add(a, b, 1 if e.op == "+" else -1)
    return None


@dataclass(frozen=True)
class Layout:
    kind: str  # "planar" or "interleaved"
    factor: int = 0  # interleaved: K of `i * K + c`

    def describe(self) -> str:
        return "planar (c * plane + i)" if self.kind == "planar" else \
            f"interleaved (i * {self.factor} + c)"


def _multiple(r: Poly, base: Poly) -> int | None:
    """k with r == k * base (k may be 0), else None."""
    if not r:
        return 0
    if not base:
        return None
    m = next(iter(base))
    if m not in r or r[m] % base[m]:
        return None
    k = r[m] // base[m]
    return k if _add(r, {mm: k * c for mm, c in base.items()}, -1) == {} else None


def decompose(q: Poly, own: Poly, plane: Poly) -> tuple[Layout, int] | None:
    """(layout, channel) of an index polynomial `q` that is `c * plane + own` (planar) or
    `own * K + c` (interleaved, 0 <= c < K, K > 1); None for anything else (the own element
    itself included: that is a plain store)."""
    if () in own or () in plane:
        return None
    c = _multiple(_add(q, own, -1), plane)
    if c is not None and c > 0:
        return Layout("planar"), c
    c0 = q.get((), 0)
    k = _multiple(_add(q, {(): c0}, -1), own)
    if k is not None and k > 1 and 0 <= c0 < k:
        return Layout("interleaved", k), c0
    return None


def _locals(fn: n.Node) -> dict[str, n.Expr]:
    """Locals declared with an initialiser and never assigned again."""
    written = set()
    decls: dict[str, n.Expr] = {}
    for x in fn.walk():
        if isinstance(x, n.VarDecl) and x.init is not None:
            decls[x.decl] = x.init
        target = x.lhs if isinstance(x, n.Binary) and x.is_assignment else \
            x.operand if isinstance(x, n.Unary) and x.op in ("++", "--") else None
        if isinstance(target, n.Ref):
            written.add(target.decl)
    return {d: e for d, e in decls.items() if d not in written}


def several_stores_reason(body: n.Node, coords: tuple[n.VarDecl, ...],
                          bounds: tuple[n.Expr, ...], pointers: dict[str, str]) -> str | None:
    """Why a kernel that stores one buffer at several offsets of its element (channels) is
    not a producer yet, naming the layout found; None when it has no such store."""
    locals_ = _locals(body)
    for c in coords:
        locals_.pop(c.decl, None)
    own: Poly | None = {(coords[0].decl,): 1} if coords else None
    plane = poly(bounds[0], locals_) if bounds else None
    if own is not None and len(coords) == 2 and len(bounds) == 2:
        b1 = poly(bounds[1], locals_)
        own = None if plane is None else _add(own, _mul({(coords[1].decl,): 1}, plane))
        plane = None if plane is None or b1 is None else _mul(plane, b1)
    found: dict[str, list[tuple[Layout, int] | None]] = {}
    plain: set[str] = set()
    for x in body.walk():
        if not (isinstance(x, n.Binary) and x.op == "=" and isinstance(x.lhs, n.Index)):
            continue
        base = x.lhs.base
        while isinstance(base, n.Cast):
            base = base.operand
        if not (isinstance(base, n.Ref) and base.decl in pointers):
            continue
        q = poly(x.lhs.index, locals_)
        if q is None or own is None or plane is None:
            found.setdefault(base.name, []).append(None)
        elif q == own:
            plain.add(base.name)
        else:
            found.setdefault(base.name, []).append(decompose(q, own, plane))
    for name, stores in sorted(found.items()):
        layouts = {w[0] for w in stores if w is not None}
        if len(layouts) != 1 or None in stores:
            continue
        layout = next(iter(layouts))
        chans = sorted({w[1] for w in stores if w is not None} | (
            {0} if name in plain and layout.kind == "planar" else set()))
        return (f"it stores '{name}' at several offsets of its element ({layout.describe()} "
                f"channels, c = {', '.join(map(str, chans))}); several stores per element "
                "are not fused yet")
    return None
