"""Where a producer writes, and what a view yields where it does not.

A producer whose guard covers only part of its rows (`x >= 1 && x < w - 1`), whose bounds
differ from a reader's, or whose stores (or a channel's: channels.Channels.partial) sit under
an if/else does not write every element a consumer may read. The original program leaves
such an element as it was, so the fused code must too: its value-at-element function keeps
the producer's guard and, where the guard (or every store) is not taken, returns the
element loaded from memory (for a channel, that channel of the element). That is exact for any
prior contents, provided nothing in the fused kernel writes the element first (legality
checks it). Producers that write every element a reader reads keep the original, guard-free
functions.
"""

from __future__ import annotations

from cudafuse.analysis.classify import LoadClass
from cudafuse.codegen.exprprint import Unprintable, to_c
from cudafuse.ir import nodes as n
from cudafuse.passes.vertical.kernel.channels import classify, frame
from cudafuse.passes.vertical.kernel.view import KernelView


def _text(e: n.Expr | None) -> str:
    if e is None:
        return ""
    try:
        return to_c(e)
    except Unprintable:
        return f"<{e.span.file}:{e.span.start}>"


def keeps_guard(producer: KernelView, readers: list[KernelView]) -> bool:
    """Whether the producer's value-at-element function must keep its guard and fall back to
    memory. Decided on the text, so that both legality and code generation see the same
    answer; legality then checks the relaxed conditions (the same row stride) with host
    values. A grid-stride producer never does (its loop is its guard, and legality asks its
    rows to be as wide as its x bound); a grid-stride reader does not change the answer."""
    if producer.grid_stride:
        return False
    if producer.lower_bounded or producer.all_stores or producer.early_returns or any(
            ch.partial for ch in producer.channels.values()):
        return True
    if producer.channels and any(_reads_elsewhere(r) for r in readers):
        return True  # (a channel read at another element: channels.channel_reads_reason)
    if producer.dims == 2 and _text(producer.stride) != _text(producer.bounds[0]):
        return True
    own = [_text(b) for b in producer.bounds]
    return any(r.lower_bounded or [_text(b) for b in r.bounds] != own for r in readers)


def _reads_elsewhere(reader: KernelView) -> bool:
    """Whether a reader subscripts any buffer other than at its own element or a constant
    channel of it: a producer of channels it may read there keeps its guard, so that each
    channel's function is exact at any element (memory where the producer stores nothing),
    as a plain producer read by a gather is."""
    if reader.fn.body is None or not reader.coords:
        return True
    fr = frame(reader.fn.body, reader.coords, reader.bounds)
    return fr is None or any(classify(x.index, fr) is None
                             for reads in reader.reads.values() for x in reads)


def reads_own_output(view: KernelView, out: str) -> bool:
    """Whether the producer reads the buffer it writes (at its own element, `a[i] += b[i]`,
    `e[i] = e[i] - d`: the view requires that)."""
    if out in view.accumulators and out not in view.loaded:
        return False  # its reads are of the thread's own local (accumulate.py)
    stores = view.all_stores.get(out) or ((view.stores[out],) if out in view.stores else ())
    return out in view.reads or any(s.op != "=" for s in stores)


def gather_reason(reader: KernelView, load: LoadClass) -> str | None:
    """Why a gather (run-time offsets clamped into [0, B), analysis/access.py) may read
    an element outside the reader's own image, where a producer over the same iteration
    space wrote nothing: each clamp's B must be the reader's bound in that dimension, and
    the row stride its own stores' (None when it is both)."""
    bounds = [_text(b) for b in reader.bounds]
    if list(load.dims) != ["x", "y"][:len(bounds)]:
        return "at run-time offsets in dimensions other than its own coordinates"
    for k, dim in enumerate(load.dims):
        if load.border[k] == "none":
            continue  # read at the thread's own coordinate in this dimension
        if _flat(load.bounds[k]) != _flat(bounds[k]):
            return (f"at run-time offsets clamped to {dim} < {load.bounds[k]}, not provably "
                    f"inside its image ({dim} < {bounds[k]})")
    if len(bounds) == 2 and _flat(load.layout[1]) != _flat(_text(reader.stride)):
        return (f"at run-time offsets with row stride {load.layout[1]}, not that of its own "
                f"stores ({_text(reader.stride)})")
    return None


def _flat(text: str) -> str:
    return "".join(text.split()).strip("()")
