"""Which view a kernel gets: a grid-stride loop's (gridstride.py) when its body is one,
else the plain shape's (view.py). Kept apart so that gridstride.py can build on view.py's
pieces without the two importing each other."""

from __future__ import annotations

from cudafuse.ir.program import Function
from cudafuse.passes.vertical.kernel.gridstride import grid_stride_view
from cudafuse.passes.vertical.kernel.view import KernelView, plain_view


def build_view(fn: Function) -> KernelView:
    assert fn.body is not None
    return grid_stride_view(fn) or plain_view(fn)
