"""Which view a kernel gets: a grid-stride loop's (gridstride.py) when its body is one,
else the plain shape's (view.py). Kept apart so that gridstride.py can build on view.py's
pieces without the two importing each other."""

from __future__ import annotations

import dataclasses

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function
from cudafuse.passes.vertical.kernel.gridstride import grid_stride_view, row_loop_view
from cudafuse.passes.vertical.kernel.staged_copy import StagedCopy, staged_copy
from cudafuse.passes.vertical.kernel.staged_tile import staged_tile
from cudafuse.passes.vertical.kernel.tile_writers import staged_writers
from cudafuse.passes.vertical.kernel.view import ImpliedGuard, KernelView, plain_view

# Reasons that only say a kernel stages a tile, or that its spelling is unread (view.py,
# cooperation.py's SPELLING): a tile's own reason, when staged_tile.py gives one, says what
# stands in the way: any of its reasons instead of the first, only a race (a store at a
# clamped position) instead of the others (cooperation then says "it stages a tile").
_TILE_SYMPTOMS = ("work before its bounds guard", "threads exchange data through shared memory",
                  "thread-to-element mapping", "no recognisable bounds guard")
_RACE = "its store to '"
# Device-side output: a producer recomputed at each read would print once per evaluation.
_PRINTS = frozenset({"printf", "vprintf", "__assertfail"})


def build_view(fn: Function) -> KernelView:
    view = _build_view(fn)
    if view.producer_reason and fn.body is not None:
        copy = staged_copy(fn)
        if copy is None:
            tile = staged_tile(fn)
            if not isinstance(tile, StagedCopy):
                # (a tile staged by several stores: which thread stored each element read)
                written = staged_writers(fn)
                if isinstance(written, StagedCopy) or tile is None:
                    tile = written
            why = view.producer_reason or ""
            if isinstance(tile, StagedCopy) or tile and (
                    _TILE_SYMPTOMS[0] in why or
                    tile.startswith(_RACE) and any(s in why for s in _TILE_SYMPTOMS)):
                copy = tile  # (a tile's own reason replaces the view's symptom of it)
        if isinstance(copy, str):
            view = dataclasses.replace(view, producer_reason=copy)
        elif isinstance(copy, StagedCopy):
            view = _without_copy(view, copy)
    prints = next((x for x in fn.body.walk() if isinstance(x, n.Call) and
                   x.callee in _PRINTS), None) if fn.body is not None else None
    if prints is not None and (view.producer_reason is None or
                               "work before its bounds guard" in view.producer_reason):
        # (printing before the guard is such work, and no tile: say what it is)
        return dataclasses.replace(view, producer_reason=(
            f"it prints ('{prints.callee}', line {prints.span.line}): recomputed where it "
            "is read, it would print once per evaluation, not once per thread"))
    return view


def written_view(view: KernelView) -> KernelView:
    """The view of a kernel as written, for the last kernel of a group: one read through its
    tile's buffer (staged_tile.py) when recomputed keeps its tile there, its loads served by
    the producers' views (a tile element computed once per block, not once per read)."""
    copy = view.staged_copy
    if copy is None or copy.original is None:
        return view
    return _build_view(copy.original)


def _without_copy(view: KernelView, copy: StagedCopy) -> KernelView:
    """The view of a kernel read without its shared copy (staged_copy.py), when the thread
    that makes the copy reaches it whenever a reader does: the only return before the copy
    is the bounds guard, upper bounds on the usual coordinates, which thread 0 of a reader's
    block passes when the reader does."""
    plain = _build_view(copy.fn)
    if plain.producer_reason:
        return dataclasses.replace(view, producer_reason=plain.producer_reason)
    if copy.tile_block and tuple(plain.block_sizes[:len(copy.tile_block)]) != \
            copy.tile_block:
        return dataclasses.replace(view, producer_reason=(
            "its shared tile is read through its buffer only when its coordinates are "
            "blockIdx * K + threadIdx with the block's K threads in each dimension"))
    assert view.fn.body is not None
    early = [r for r in view.fn.body.walk()
             if isinstance(r, n.Return) and r.span.start < copy.copier_start]
    guard = plain.guard
    if early and (guard is None or plain.guard_kind != "return" or plain.lower_bounded or
                  plain.launch_extents or any(
                      not guard.span.start <= r.span.start < guard.span.end for r in early)):
        return dataclasses.replace(view, producer_reason=(
            "it returns before the thread that copies its shared memory makes the copy, other "
            "than at a bounds guard that thread passes whenever a reader does"))
    return dataclasses.replace(plain, staged_copy=copy)


def _build_view(fn: Function) -> KernelView:
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
