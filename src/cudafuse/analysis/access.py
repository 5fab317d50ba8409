"""Classifying memory accesses: which element each index reads relative to the thread's own.

`shape_of(index, path)` splits an index polynomial (already in thread coordinates X, Y, Z) into
one term per dimension, `stride * coordinate_term`, plus a remainder that must be a whole number
of strides: `(Y + dy) * w + X + dx` gives x: +dx (stride 1), y: +dy (stride w). A coordinate term
is either the bare coordinate or a recognised border expression around `D + k`:
clamp (min/max in any nesting order, or `t < 0 ? 0 : t` conditionals), mirror (`-t - 1`,
`2*w - t - 1`), mirror-101 (`-t`, `2*w - t - 2`) and wrap (`(t + w) % w`, `(t % w + w) % w`).
A bare offset read under a path condition that checks `0 <= D + k < B` has a constant border;
one read without any check is `unguarded`. Anything else is refused with a reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from cudafuse.analysis.delinearise import delinearise
from cudafuse.analysis.symbolic import (
    ONE,
    Atom,
    Poly,
    Pred,
    atom_dims,
    coord,
    coord_dims,
    pred_coords,
    to_coords,
)

_BAD_KINDS = {
    "load": "data-dependent index (the index is read from memory)",
    "bigloop": "loop too large to enumerate",
    "loopvar": "index depends on loop variable '{}' of a loop without constant bounds "
               "(reduction or loop-carried)",
    "var": "index depends on '{}', a variable assigned more than once",
    "ptrvar": "pointer arithmetic it cannot follow ('{}' is reassigned)",
    "call": "index depends on a call to '{}'",
    "float": "non-integer index",
    "opaque": "index it cannot follow ({})",
    "pred": "index depends on a comparison",
    "global": "index depends on global variable '{}'",
}


@dataclass(frozen=True)
class DimAccess:
    """One dimension of an access: offset from the thread's coordinate, border, stride."""

    dim: str
    offset: int
    border: str  # none, clamp, mirror, mirror101, wrap, constant, unguarded, staged (a
    # clamped read at a block-local element, as shared-memory staging makes: _staged_term)
    stride: str
    bound: str = ""  # the extent the border handling refers to (w), when known
    # A gather: the offset is not a constant (a loop with run-time bounds, a run-time
    # radius) but the coordinate is clamped into [0, bound) on both sides; `offset` is 0.
    spread: bool = False


@dataclass(frozen=True)
class Shape:
    dims: tuple[DimAccess, ...]

    @property
    def offsets(self) -> tuple[int, ...]:
        return tuple(d.offset for d in self.dims)

    @property
    def layout(self) -> tuple[tuple[str, str], ...]:
        return tuple((d.dim, d.stride) for d in self.dims)


@lru_cache(maxsize=1 << 16)
def bad_atom_reason(p: Poly | Pred) -> str | None:
    """Why an index cannot be classified, from the opaque atoms it contains (None if none)."""
    for a in p.atoms():
        if a.kind in _BAD_KINDS:
            return _BAD_KINDS[a.kind].format(a.name.split("#")[0])
        if a.kind == "builtin" and a.name.split(".")[0] in ("threadIdx", "blockIdx"):
            return f"index uses {a.name} outside a global coordinate (block-local or tiled)"
        if a.kind == "builtin" and "." not in a.name:
            return f"index uses {a.name}"
    return None


def _offset_of(p: Poly) -> tuple[str, int] | None:
    """(dim, k) when p is exactly `D + k`."""
    rest = p
    for dim in ("x", "y", "z"):
        c = coord(dim)
        if any(m == (c,) and k == 1 for m, k in p.terms):
            rest = p - Poly.atom(c)
            if rest.is_const:
                return dim, rest.constant_term
    return None


@dataclass(frozen=True)
class _Side:
    side: str  # lo, hi
    mode: str
    bound: Poly | None = None


def _peel(p: Poly) -> tuple[tuple[str, int], list[_Side]] | str:
    """Strip border layers off a coordinate term down to `D + k`; list the sides handled."""
    sides: list[_Side] = []
    cur = p
    for _ in range(8):
        inner = _offset_of(cur)
        if inner is not None:
            return inner, sides
        a = cur.single_atom()
        if a is None:
            return f"non-affine index term {cur}"
        step = _layer(a)
        if isinstance(step, str):
            return step
        cur, side = step
        sides.extend(side)
    return f"border expression too deep: {p}"


def _minmax(a: Atom) -> tuple[str, tuple[Poly, Poly]] | None:
    """(min|max, (u, v)) for a min/max atom, or for a conditional that computes one:
    `u >= v ? u : v` (also `u > v`, read as u - v - 1 >= 0) is max(u, v), and with the
    branches swapped min(u, v), whichever side of the comparison the operands stand on.
    Helpers written `a > b ? b : a` (a user's minVal) evaluate to these."""
    if a.kind in ("min", "max") and len(a.args) == 2:
        return a.kind, (a.args[0], a.args[1])
    if a.kind != "cond" or a.pred is None or len(a.args) != 2:
        return None
    pred, (then, other) = a.pred, a.args
    if pred.op != "ge" or pred.poly is None:
        return None
    diff = then - other
    if pred.poly in (diff, diff - ONE):  # then >= other ? then : other
        return "max", (then, other)
    if pred.poly in (-diff, -diff - ONE):  # other >= then ? then : other
        return "min", (then, other)
    return None


def _layer(a: Atom) -> tuple[Poly, list[_Side]] | str:
    mm = _minmax(a)
    if mm is not None:
        kind, (u, v) = mm
        free = [x for x in (u, v) if not coord_dims(x)]
        inner = [x for x in (u, v) if coord_dims(x)]
        if len(free) == 1 and len(inner) == 1:
            if kind == "min":
                return inner[0], [_Side("hi", "clamp", free[0] + ONE)]
            if free[0] == Poly.const(0):
                return inner[0], [_Side("lo", "clamp", None)]
            if a.kind == "max":
                return f"clamp to a lower bound other than 0: {a}"
        elif a.kind != "cond":
            return f"unrecognised {kind}: {a}"
    if a.kind == "mod" and len(a.args) == 2:
        num, den = a.args
        if coord_dims(den):
            return f"modulo by a coordinate: {a}"
        shifted = num - den
        sub = shifted.single_atom()
        if sub is not None and sub.kind == "mod" and sub.args[1] == den:
            return sub.args[0], [_Side("lo", "wrap", den), _Side("hi", "wrap", den)]
        if _offset_of(shifted) is not None:
            return shifted, [_Side("lo", "wrap", den), _Side("hi", "wrap", den)]
        return num, [_Side("hi", "wrap", den)]
    if a.kind == "cond" and a.pred is not None and len(a.args) == 2:
        return _cond_layer(a.pred, a.args[0], a.args[1])
    return f"unrecognised index term {a}"


def _cond_layer(pred: Pred, then: Poly, other: Poly) -> tuple[Poly, list[_Side]] | str:
    """`c ? e : rest` where c tests the innermost coordinate against a side and e fixes it."""
    for c, e, rest in ((pred, then, other), (pred.negate(), other, then)):
        if c.op != "ge" or c.poly is None:
            continue
        peeled = _peel(rest)
        if isinstance(peeled, str):
            continue
        (dim, k), _ = peeled
        t = Poly.atom(coord(dim)) + Poly.const(k)
        if c.poly == -t - ONE:  # t < 0
            if e == Poly.const(0):
                return rest, [_Side("lo", "clamp", None)]
            if e == -t - ONE:
                return rest, [_Side("lo", "mirror", None)]
            if e == -t:
                return rest, [_Side("lo", "mirror101", None)]
        bound = t - c.poly  # t >= B  is  t - B >= 0
        if not coord_dims(bound):
            if e == bound - ONE:
                return rest, [_Side("hi", "clamp", bound)]
            if e == bound.scale(2) - t - ONE:
                return rest, [_Side("hi", "mirror", bound)]
            if e == bound.scale(2) - t - Poly.const(2):
                return rest, [_Side("hi", "mirror101", bound)]
    return f"unrecognised conditional index {pred} ? {then} : {other}"


def _guarded(dim: str, k: int, path: tuple[Pred, ...]) -> tuple[bool, bool, Poly | None]:
    """Whether the path checks D + k >= 0 and D + k < B (returns lo, hi, B).

    One step from the edge is also checked by an inequality, as a zero border writes it
    (`if (x == 0 || x == w - 1) { out[i] = 0; return; }`): D >= 0 always, so D != 0 gives
    D - 1 >= 0; with D < B known, D != B - 1 gives D + 1 < B."""
    d = Poly.atom(coord(dim))
    t = d + Poly.const(k)
    lo = hi = False
    bound = None
    facts = [c for p in path for c in p.conjuncts() if c.poly is not None]
    for c in facts:
        if c.op != "ge":
            continue
        if c.poly == t:
            lo = True
        b = c.poly + t + ONE  # B - t - 1 >= 0 is t < B
        # An extent is a name (w) or a constant: `y < h` does not check y + 1 < h + 1.
        if not coord_dims(b) and (b.is_const or b.constant_term == 0):
            hi, bound = True, b
    unequal = [c.poly for c in facts if c.op == "ne"]
    if k == -1 and not lo and any(u == d or u == -d for u in unequal):
        lo = True
    if k == 1 and not hi:
        for c in facts:  # D < B, and D != B - 1
            b = c.poly + d + ONE if c.op == "ge" else None
            if b is not None and not coord_dims(b) and (b.is_const or b.constant_term == 0) \
                    and any(u == d - b + ONE or u == b - ONE - d for u in unequal):
                hi, bound = True, b
    return lo, hi, bound


@lru_cache(maxsize=1 << 14)
def shape_of(index: Poly, path: tuple[Pred, ...] = (), width: Poly | None = None
             ) -> Shape | str:
    """The per-dimension shape of an access, or the reason it has none. With `width`, the
    kernel walks a 2-D image of that width with a 1-D grid (delinearise.py): the access is
    read over x = X % width and y = X / width."""
    index = to_coords(index)
    path = tuple(pred_coords(p) for p in path)
    if width is not None:
        index, path = delinearise(index, path, width)
    reason = bad_atom_reason(index)
    if reason:
        return _spread_shape(index) or reason
    factors: dict[Atom, Poly] = {}
    rest = Poly()
    for m, c in index.terms:
        coords = [a for a in m if atom_dims(a)]
        if len(coords) > 1:
            return f"non-affine index (product of coordinates): {index}"
        if not coords:
            rest = rest + Poly(((m, c),))
            continue
        others = list(m)
        others.remove(coords[0])
        factors[coords[0]] = factors.get(coords[0], Poly()) + Poly(((tuple(others), c),))
    if not factors:
        return "index does not depend on the thread's coordinates"
    dims: dict[str, tuple[int, list[_Side], Poly]] = {}
    for atom, stride in factors.items():
        peeled = _peel(Poly.atom(atom))
        if isinstance(peeled, str):
            return peeled
        (dim, k), sides = peeled
        if dim in dims:
            return f"coordinate {dim} appears twice in the index: {index}"
        dims[dim] = (k, sides, stride)
    offsets = {d: 0 for d in dims}
    for d, (_, _, stride) in sorted(dims.items(), key=lambda kv: -len(kv[1][2].terms)):
        if stride.is_const:
            continue
        m, c = next((m, c) for m, c in stride.terms if m)
        r = dict(rest.terms).get(m, 0)
        if r % c:
            return f"offset {rest} is not a whole number of rows"
        offsets[d] += r // c
        rest = rest - stride.scale(r // c)
    unit = [d for d, (_, _, s) in dims.items() if s == ONE]
    consts = sorted(((s.const_value or 0, d) for d, (_, _, s) in dims.items()
                     if s.is_const and s != ONE), reverse=True)
    for s, d in consts:
        if s <= 0:
            return f"non-positive stride {s}"
        q = int(round(rest.constant_term / s)) if rest.is_const else 0
        offsets[d] += q
        rest = rest - Poly.const(q * s)
    if not rest.is_const:
        return f"index has terms it cannot attribute to a coordinate: {rest}"
    if rest.constant_term:
        if len(unit) != 1:
            return f"constant offset {rest.constant_term} with no unit-stride coordinate"
        offsets[unit[0]] += rest.constant_term
    out = []
    for d in sorted(dims):
        k, sides, stride = dims[d]
        if sides and offsets[d]:
            return f"offset applied outside the border handling of {d}"
        off = k + offsets[d]
        border, bound = _border(d, off, sides, path)
        out.append(DimAccess(d, off, border, str(stride), str(bound) if bound is not None else ""))
    return Shape(tuple(out))


def _border(dim: str, off: int, sides: list[_Side], path: tuple[Pred, ...]
            ) -> tuple[str, Poly | None]:
    if not sides:
        if off == 0:
            return "none", None
        lo, hi, bound = _guarded(dim, off, path)
        if (lo or off > 0) and (hi or off < 0):
            return "constant", bound
        return "unguarded", None
    modes = {s.mode for s in sides}
    have = {s.side for s in sides}
    bound = next((s.bound for s in sides if s.side == "hi" and s.bound is not None), None)
    if len(modes) > 1:
        return "mixed(" + ",".join(sorted(modes)) + ")", bound
    if (off < 0 and "lo" not in have) or (off > 0 and "hi" not in have):
        return "unguarded", bound
    return modes.pop(), bound


def coords_pred(p: Pred) -> Pred:
    """p with thread coordinates folded (see symbolic.to_coords)."""
    return pred_coords(p)


def guarded_by(dim: str, off: int, path: tuple[Pred, ...], width: Poly | None = None) -> bool:
    """Whether `path` (raw, as recorded) keeps D + off inside [0, B) on the side(s) it leaves
    (over x = X % width and y = X / width with `width`, see shape_of)."""
    path = tuple(pred_coords(p) for p in path)
    if width is not None:
        path = delinearise(Poly(), path, width)[1]
    lo, hi, _ = _guarded(dim, off, path)
    return (lo or off >= 0) and (hi or off <= 0)


def _spread_shape(index: Poly) -> Shape | None:
    """A gather whose every coordinate term is clamped into the image on both sides,
    `min(max(D + r, 0), B - 1) * stride` with any r free of coordinates (a loop variable of
    a loop with run-time bounds, a run-time radius): which element is read is unknown, but
    it is one of the image's. None for anything else (the caller's reason stands)."""
    dims: dict[str, DimAccess] = {}
    for m, c in index.terms:
        coords = [a for a in m if atom_dims(a)]
        if not coords:
            staged = _staged_term(m, c)
            if staged is None or staged.dim in dims:
                return None  # a term with no coordinate is an offset outside the clamps
            dims[staged.dim] = staged
            continue
        if len(coords) != 1:
            return None
        others = list(m)
        others.remove(coords[0])
        stride = Poly(((tuple(others), c),))
        if bad_atom_reason(stride):
            return None
        bare = next((d for d in ("x", "y", "z") if coords[0] == coord(d)), None)
        if bare is not None:  # this dimension is read at the thread's own coordinate
            if bare in dims:
                return None
            dims[bare] = DimAccess(bare, 0, "none", str(stride))
            continue
        clamped = _clamped(coords[0])
        if clamped is None or clamped[0] in dims:
            return None
        dim, bound = clamped
        dims[dim] = DimAccess(dim, 0, "clamp", str(stride), str(bound), spread=True)
    if not any(d.spread for d in dims.values()):
        return None
    return Shape(tuple(dims[d] for d in sorted(dims)))


def _staged_term(m: tuple[Atom, ...], c: int) -> DimAccess | None:
    """A term `stride * min(max(E, 0), B - 1)` whose E names no global coordinate (a tile's
    element from blockIdx, threadIdx and a loop, as shared-memory staging loads it): it is
    inside [0, B) whatever E is. Its dimension is told by its stride: 1 is x, any other
    (a row stride) y."""
    clamps = [a for a in m if _bounded(a) is not None]
    if len(clamps) != 1:
        return None
    others = list(m)
    others.remove(clamps[0])
    stride = Poly(((tuple(others), c),))
    if bad_atom_reason(stride) or coord_dims(stride):
        return None
    dim = "x" if stride == ONE else "y"
    if dim == "y" and stride.is_const:
        return None  # (a constant row stride is not told from a second unit-stride term)
    bound = _bounded(clamps[0])
    assert bound is not None
    return DimAccess(dim, 0, "staged", str(stride), str(bound), spread=True)


def _bounded(a: Atom) -> Poly | None:
    """B for min(max(E, 0), B - 1) or max(min(E, B - 1), 0) (operands in either order) with
    B free of coordinates and of what cannot be followed; E may be anything."""
    mm = _minmax(a)
    if mm is None:
        return None
    kind, args = mm
    for inner_atom_first in (0, 1):
        inner, free = args[inner_atom_first], args[1 - inner_atom_first]
        nested_atom = inner.single_atom()
        nested = _minmax(nested_atom) if nested_atom is not None else None
        if nested is None or nested[0] == kind:
            continue
        for k in (0, 1):
            nfree = nested[1][1 - k]
            hi, lo = (free, nfree) if kind == "min" else (nfree, free)
            if lo == Poly.const(0) and not coord_dims(hi) and not bad_atom_reason(hi):
                return hi + ONE
    return None


def _clamped(a: Atom) -> tuple[str, Poly] | None:
    """(dim, B) for min(max(D + r, 0), B - 1) or max(min(D + r, B - 1), 0), operands in
    either order, r and B free of coordinates."""
    lo, hi = False, None
    cur = Poly.atom(a)
    for _ in range(2):
        at = cur.single_atom()
        mm = _minmax(at) if at is not None else None
        if mm is None:
            return None
        kind, args = mm
        free = [x for x in args if not coord_dims(x)]
        inner = [x for x in args if coord_dims(x)]
        if len(free) != 1 or len(inner) != 1 or bad_atom_reason(free[0]):
            return None
        if kind == "max":
            if lo or free[0] != Poly.const(0):
                return None
            lo = True
        else:
            if hi is not None:
                return None
            hi = free[0] + ONE
        cur = inner[0]
    dims = coord_dims(cur)
    if not lo or hi is None or len(dims) != 1:
        return None
    dim = dims.pop()
    c = coord(dim)
    if not any(m == (c,) and k == 1 for m, k in cur.terms) or coord_dims(cur - Poly.atom(c)):
        return None
    return dim, hi
