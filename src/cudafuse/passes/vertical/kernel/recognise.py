"""Which view a kernel gets: a grid-stride loop's (gridstride.py) when its body is one,
else the plain shape's (view.py). Kept apart so that gridstride.py can build on view.py's
pieces without the two importing each other."""

from __future__ import annotations

import dataclasses

from cudafuse.ir.program import Function
from cudafuse.passes.vertical.kernel.gridstride import grid_stride_view, row_loop_view
from cudafuse.passes.vertical.kernel.view import ImpliedGuard, KernelView, plain_view


def build_view(fn: Function) -> KernelView:
    assert fn.body is not None
    last = fn.body.body[-1] if fn.body.body else None
    if isinstance(last, ImpliedGuard) and any(e == "loop.x" for _, e in last.extents):
        rows = row_loop_view(fn, last)
        if rows is not None:
            return rows
    view = grid_stride_view(fn) or plain_view(fn)
    if isinstance(view.guard, ImpliedGuard):
        return _launch_shaped(view, view.guard)
    return view


def _launch_shaped(view: KernelView, guard: ImpliedGuard) -> KernelView:
    """The view of a kernel read with its launches' shape (launchshape.py): each coordinate
    bounded by exactly a launch extent, which coverage checks per launch."""
    extents = dict(guard.extents)
    if any(c.decl not in extents for c in view.coords):
        return dataclasses.replace(view, producer_reason=view.producer_reason or (
            "its coordinates are not those its launches' shape gives"))
    return dataclasses.replace(
        view, launch_extents=tuple(extents[c.decl] for c in view.coords),
        grid_dims=(0, 0) if view.dims == 2 else view.grid_dims)
