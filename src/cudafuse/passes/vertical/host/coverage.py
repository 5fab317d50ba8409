"""Does a launch's grid cover its kernel's iteration space?

A producer is recomputed at every element its consumers read; that equals the original only if
the original launch computed (and stored) every element of the iteration space. With a guard
`if (x >= w) return;` that holds when gridDim.x * blockDim.x >= w. The check is symbolic over
the host function's never-reassigned locals, so `dim3 block(32, 8); dim3 grid((w + block.x -
1) / block.x, ...)` and `(w + 31) / 32` are both understood; gridsize.py reads the grid's
other usual spellings (`(w - 1) / b + 1`, `w / b + (w % b != 0)`, `ceil((float)w / b)`,
helpers such as `iDivUp`) as lower bounds on grid * block, one per remainder case.

A kernel with no bounds guard, read with its launches' block and grid (kernel/
launchshape.py), writes exactly its launch's extent: its bounds come as LaunchExtents, and
the launch covers them when its block and grid are 1-D and their x sizes equal the bounds
(as host values, the kernel's parameters replaced by the launch's arguments): no more
threads (they would store past the image), no fewer.
"""

from __future__ import annotations

from cudafuse.ir import nodes as n
from cudafuse.passes.vertical.host.gridsize import GridBound, NotShown, text
from cudafuse.passes.vertical.host.linear import add as _add
from cudafuse.passes.vertical.host.resolver import Resolver
from cudafuse.passes.vertical.kernel.view import LaunchExtent


def covers(resolver: Resolver, grid: n.Expr, block: n.Expr, bounds: list[n.Expr]
           ) -> str | None:
    """None when grid * block >= bound in every dimension, else the reason it is not shown."""
    g, b = resolver.dim3(grid), resolver.dim3(block)
    if g is None or b is None:
        return "its grid or block size is not a dim3 built in the host function"
    if any(isinstance(x, LaunchExtent) for x in bounds):
        return _exactly(resolver, g, b, bounds)
    for i, bound in enumerate(bounds):
        why = _covers_dim(resolver, g[i], b[i], bound, "xyz"[i])
        if why:
            return why
    return None


def _shown(e: n.Expr, resolver: Resolver) -> n.Expr:
    """The grid size as the note shows it: a local's initialiser rather than its name."""
    seen = 0
    while seen < 8:
        seen += 1
        inner = e
        while isinstance(inner, n.Cast) and not inner.explicit:
            inner = inner.operand
        if isinstance(inner, n.Ref) and inner.decl in resolver.locals and \
                resolver.locals[inner.decl].init is not None:
            e = resolver.locals[inner.decl].init  # type: ignore[assignment]
            continue
        break
    return e


def _source(resolver: Resolver, e: n.Expr) -> str:
    """The expression's text in the file, when it can be read there."""
    unit = resolver.unit
    if unit is not None and unit.owns(e.span) and e.span.end > e.span.start:
        try:
            return " ".join(unit.text(e.span).split())
        except (IndexError, ValueError):
            pass
    return text(e)


def _covers_dim(resolver: Resolver, gi: n.Expr, bi: n.Expr, bound: n.Expr, dim: str
                ) -> str | None:
    bl = resolver.linear(bi)
    bnd = resolver.linear(bound)
    if bl is None or bnd is None:
        return f"its {dim} block size or bound is not a simple expression"
    shown = text(_shown(gi, resolver))
    try:
        cases = GridBound(resolver, bl).cases(gi)
    except NotShown as e:
        return (f"its grid's {dim} size {shown} is not a rounded-up division (w + b - 1) / b "
                f"by its block's {dim} size: {e}")
    for case in cases:
        extra = _add(case.low, bnd, -1)  # grid * block - bound >= extra
        if not extra[0] and extra[1] >= 0:
            continue
        for num, num_text, den_text, div_text in case.floors:
            if _add(num, bnd, -1) == ((), 0):
                return (f"its grid does not cover the iteration space in {dim}: its {dim} size "
                        f"{div_text} rounds down, leaving out the last {num_text} % {den_text} "
                        "elements whenever that is not 0")
        if not extra[0]:
            return (f"its grid does not cover the iteration space in {dim}: grid * block can "
                    f"fall {-extra[1]} short of the bound")
        if not case.low[0] and bnd[0]:
            return (f"its grid does not provably cover the iteration space in {dim}: its {dim} "
                    f"size {shown} covers {case.low[1]} elements, a constant, and its bound "
                    f"{_source(resolver, bound)} is not one")
        return f"its grid does not provably cover the iteration space in {dim}"
    for case in cases:
        for num in case.nonneg:
            # The bound matters only when >= 1; a numerator >= bound - 1 is then >= 0.
            low = _add(num, bnd, -1)
            if low[0] or low[1] < -1:
                return (f"its grid's {dim} size {shown} covers only where its numerator is "
                        "not negative, which cudafuse cannot show")
        for num, bits, int_bits, expr in case.exact:
            if (not num[0] and abs(num[1]) <= 2 ** bits) or (num[0] and int_bits <= bits):
                continue
            kind = {24: "float", 53: "double"}.get(bits, f"a {bits}-bit significand")
            return (f"its grid's {dim} size {shown} rounds a quotient in {kind}: it covers "
                    f"{text(expr)} only while {text(expr)} <= {2 ** bits} (2^{bits}), which "
                    "cudafuse cannot show")
    return None


def _exactly(resolver: Resolver, g: list[n.Expr], b: list[n.Expr], bounds: list[n.Expr]
             ) -> str | None:
    """None when a guard-free kernel's launch is exactly its bounds (LaunchExtents)."""
    for what, comps in (("grid", g), ("block", b)):
        for k in (1, 2):
            if resolver.linear(comps[k]) != ((), 1):
                return (f"it has no bounds guard and is read with a 1-D {what}, but its "
                        f"launch's {what} {'yz'[k - 1]} size is {text(comps[k])}")
    extents = {"block.x": b[0], "grid.x": g[0],
               "grid.x*block.x": n.Binary("*", g[0], b[0], type="unsigned int")}
    for x in bounds:
        if not isinstance(x, LaunchExtent) or x.extent not in extents:
            return "its bounds are not all its launch's extents"
        have, want = resolver.linear(extents[x.extent]), resolver.linear(x.bound)
        if have is None or want is None or have != want:
            words = {"block.x": "block's x size", "grid.x": "grid's x size",
                     "grid.x*block.x": "grid's x size times its block's"}[x.extent]
            return (f"it has no bounds guard, so it writes exactly its launch's extent, and "
                    f"its launch's {words} ({text(extents[x.extent])}) is not shown to equal "
                    f"{text(x.bound)}")
    return None
