"""A 2-D image walked by a 1-D grid, read as the 2-D accesses it makes.

Third-party kernels often take one thread per pixel of a 2-D image from a 1-D grid:

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w * h) return;
    int x = i % w, y = i / w;
    out[i] = in[y * w + max(x - 1, 0)] + in[i] + in[y * w + min(x + 1, w - 1)];

The evaluator sees the thread's linear coordinate X, `mod(X, w)` and `div(X, w)`. With x' =
X % w and y' = X / w, X is exactly y' * w + x' (C's truncating division and remainder satisfy
this for any w != 0), so every index and path condition is rewritten over x' and y', the
coordinates of a 2-D image of width w: the read above is x: -1..+1 clamped, y: 0, stride w,
which access.py classifies like any 2-D stencil. Only a kernel with no y coordinate of its
own and one width over all its accesses is rewritten (kernel_width), every access alike.
x' < w is added to the path when w is a positive constant (for a parameter, the sign is not
known: reads must then be checked by the code itself).
"""

from __future__ import annotations

from cudafuse.analysis.symbolic import ONE, Atom, Poly, Pred, coord, coord_dims


def kernel_width(items: list[tuple[Poly, tuple[Pred, ...]]]) -> Poly | None:
    """The one width w by which a kernel takes both `X % w` and `X / w` of its linear
    coordinate, over all its accesses' (index, path) in coordinates; None when it takes
    none, only one of them, several widths, or has a y coordinate of its own."""
    x = Poly.atom(coord("x"))
    widths: dict[str, set[Poly]] = {"mod": set(), "div": set()}
    for index, path in items:
        if "y" in coord_dims(index) or any("y" in coord_dims(p) for p in path):
            return None
        for a in _all_atoms(index, path):
            if a.kind in ("mod", "div") and len(a.args) == 2 and a.args[0] == x and \
                    not coord_dims(a.args[1]):
                widths[a.kind].add(a.args[1])
    # Both, by one width: the column and the row of an image (`x / 2` alone, an upsampling
    # read, walks no image of width 2).
    if len(widths["mod"]) == 1 and widths["mod"] == widths["div"]:
        return widths["mod"].pop()
    return None


def delinearise(index: Poly, path: tuple[Pred, ...], width: Poly
                ) -> tuple[Poly, tuple[Pred, ...]]:
    """`index` and `path` (in coordinates, see symbolic.to_coords) over x' = X % width and
    y' = X / width."""
    x = Poly.atom(coord("x"))
    y = Poly.atom(coord("y"))
    sub = _Substitution(x, width, y)
    new_index = sub.poly(index)
    new_path = tuple(sub.pred(p) for p in path)
    w = width.const_value
    if w is not None and w > 0:
        new_path += (Pred("ge", width - x - ONE),)
    return new_index, new_path


def _all_atoms(index: Poly, path: tuple[Pred, ...]):
    yield from index.atoms()
    for p in path:
        yield from p.atoms()


class _Substitution:
    """mod(X, w) -> x', div(X, w) -> y', X -> y' * w + x', simultaneously, everywhere."""

    def __init__(self, x: Poly, width: Poly, y: Poly):
        self.x, self.width, self.y = x, width, y
        self.linear = y * width + x
        self._memo: dict[Atom, Poly] = {}

    def atom(self, a: Atom) -> Poly:
        if a in self._memo:
            return self._memo[a]
        x = self.x
        if a.kind == "coord" and Poly.atom(a) == x:
            out = self.linear
        elif a.kind in ("mod", "div") and len(a.args) == 2 and a.args[0] == x and \
                a.args[1] == self.width:
            out = x if a.kind == "mod" else self.y
        elif a.args or a.pred is not None:
            args = tuple(self.poly(p) for p in a.args)
            pred = self.pred(a.pred) if a.pred is not None else None
            out = Poly.atom(Atom(a.kind, a.name, args, pred))
        else:
            out = Poly.atom(a)
        self._memo[a] = out
        return out

    def poly(self, p: Poly) -> Poly:
        out = Poly()
        for m, c in p.terms:
            term = Poly.const(c)
            for a in m:
                term = term * self.atom(a)
            out = out + term
        return out

    def pred(self, p: Pred) -> Pred:
        poly = self.poly(p.poly) if p.poly is not None else None
        return Pred(p.op, poly, tuple(self.pred(q) for q in p.parts))
