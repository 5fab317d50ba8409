"""Per-pointer verdicts from the shapes of its accesses: point, stencil or other (with a reason).

The verdicts are deliberately conservative: a pointer is `point` or `stencil` only when every
access through it has a shape (see access.py), all shapes share one layout with one
coordinate contiguous (x, or y where x walks the rows), every dimension the kernel's threads
are spread over is used, and nothing lets a thread see another thread's data (atomics,
writes to the same buffer at other offsets, values exchanged through shared memory or warp
shuffles).
"""

from __future__ import annotations

from dataclasses import dataclass

from cudafuse.analysis.access import Shape, guarded_by, shape_of
from cudafuse.analysis.evaluate import Access
from cudafuse.analysis.symbolic import Poly


@dataclass(frozen=True)
class LoadClass:
    pointer: str
    kind: str  # point, stencil, gather, other
    reason: str = ""
    dims: tuple[str, ...] = ()
    window: tuple[tuple[int, ...], ...] = ()
    extent: tuple[tuple[int, int], ...] = ()  # (min, max) offset per dim
    border: tuple[str, ...] = ()  # per dim
    bounds: tuple[str, ...] = ()  # per dim: the extent the border refers to, "" if none
    layout: tuple[str, ...] = ()  # per dim stride
    lines: tuple[int, ...] = ()


@dataclass(frozen=True)
class StoreClass:
    pointer: str
    point: bool
    reason: str = ""
    layout: tuple[str, ...] = ()
    lines: tuple[int, ...] = ()


ESCAPE = ("pointer escapes where it cannot be followed (a function it cannot see into, "
          "inline asm, stored to memory, chosen at run time, or a struct access)")


def _check_layout(shape: Shape, dims: set[str]) -> str:
    have = {d.dim for d in shape.dims}
    if have != dims:
        missing = sorted(dims - have)
        if missing:
            return f"index does not depend on {', '.join(missing)} (broadcast)"
        return f"index uses coordinate(s) {', '.join(sorted(have - dims))} the stores do not"
    strides = {d.dim: d.stride for d in shape.dims}
    unit = [d for d, s in strides.items() if s == "1"]
    if len(unit) > 1:
        return "two coordinates with unit stride (overlapping layout)"
    if not unit:
        return f"x is not contiguous (stride {strides.get('x')})"
    # Usually x has unit stride; a kernel whose x walks the rows (`in[x * cols + y]`) has
    # it on y. Offsets and borders are per coordinate either way; which coordinate is the
    # row's is the layout's (and the view's) business.
    return ""


def _shapes(accesses: list[Access], dims: set[str], width: Poly | None = None
            ) -> list[Shape] | str:
    out: list[Shape] = []
    for a in accesses:
        if a.note:
            return a.note
        s = shape_of(a.index, a.path, width)
        if isinstance(s, str):
            return s
        bad = _check_layout(s, dims)
        if bad:
            return bad
        out.append(s)
    if len({s.layout for s in out}) > 1:
        return "accesses use different layouts"
    return out


def classify_store(pointer: str, accesses: list[Access], dims: set[str],
                   width: Poly | None = None) -> StoreClass:
    lines = tuple(sorted({a.span.line for a in accesses}))
    if any(a.mode == "escape" for a in accesses):
        return StoreClass(pointer, False, ESCAPE, lines=lines)
    if any(a.mode == "atomic" for a in accesses):
        return StoreClass(pointer, False, "atomic updates", lines=lines)
    shapes = _shapes([a for a in accesses if a.mode == "store"], dims, width)
    if isinstance(shapes, str):
        return StoreClass(pointer, False, shapes, lines=lines)
    for s in shapes:
        if any(d.spread for d in s.dims):
            return StoreClass(pointer, False, "writes at run-time offsets", lines=lines)
        if any(s.offsets):
            offs = ", ".join(f"d{d.dim}={d.offset}" for d in s.dims if d.offset)
            return StoreClass(pointer, False, f"writes at an offset ({offs})", lines=lines)
    layout = tuple(d.stride for d in shapes[0].dims) if shapes else ()
    return StoreClass(pointer, True, "", layout, lines)


def classify_load(pointer: str, accesses: list[Access], dims: set[str], writes: bool,
                  hazard: str, stores: list[Access] | None = None,
                  width: Poly | None = None) -> LoadClass:
    """The verdict for the loads through one pointer (accesses: its loads/atomics/escapes).

    `stores` are the kernel's stores: when every one of them is made only where an offset read
    is in range, the kernel computes the interior only and the border is `interior`.
    """
    lines = tuple(sorted({a.span.line for a in accesses}))
    if any(a.mode == "escape" for a in accesses):
        return LoadClass(pointer, "other", ESCAPE, lines=lines)
    if any(a.mode == "atomic" for a in accesses):
        return LoadClass(pointer, "other", "atomic updates", lines=lines)
    if not dims:
        for a in accesses:
            s = a.note or shape_of(a.index, a.path, width)
            if isinstance(s, str):
                return LoadClass(pointer, "other", s, lines=lines)
        return LoadClass(pointer, "other", "no thread-to-data mapping recognised", lines=lines)
    shapes = _shapes(accesses, dims, width)
    if isinstance(shapes, str):
        return LoadClass(pointer, "other", shapes, lines=lines)
    if hazard:
        return LoadClass(pointer, "other", hazard, lines=lines)
    window = tuple(sorted({s.offsets for s in shapes}, key=lambda o: (o[::-1])))
    gather = any(d.spread for s in shapes for d in s.dims)
    if writes and (gather or any(any(o) for o in window)):
        return LoadClass(pointer, "other", "reads neighbours of a buffer it also writes",
                         lines=lines)
    names = tuple(d.dim for d in shapes[0].dims)
    if gather and any(len({s.dims[i].bound for s in shapes if s.dims[i].border != "none"}) > 1
                      for i in range(len(names))):
        return LoadClass(pointer, "other", "reads clamped to different bounds", lines=lines)
    extent = tuple((min(o[i] for o in window), max(o[i] for o in window))
                   for i in range(len(names)))
    borders, bounds = [], []
    for i in range(len(names)):
        modes = sorted({s.dims[i].border for s in shapes if s.dims[i].border != "none"})
        mode = modes[0] if len(modes) == 1 else "mixed(" + ",".join(modes) + ")" \
            if modes else "none"
        if "unguarded" in modes:
            mode = "unguarded"  # some offset is read with no handling at all
        if mode == "constant" and stores and all(
                guarded_by(names[i], o[i], st.path, width) for st in stores for o in window):
            mode = "interior"
        borders.append(mode)
        bounds.append(next((s.dims[i].bound for s in shapes if s.dims[i].bound), ""))
    # A gather reads elements it cannot name (clamped into the image, see access.py):
    # its window and extent are only those of its constant-offset reads.
    kind = "gather" if gather else "point" if window == (tuple(0 for _ in names),) \
        else "stencil"
    layout = tuple(d.stride for d in shapes[0].dims)
    return LoadClass(pointer, kind, "", names, window, extent, tuple(borders), tuple(bounds),
                     layout, lines)
