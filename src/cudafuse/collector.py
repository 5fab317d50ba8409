"""Pausing Python's cyclic garbage collector while a large IR is built or analysed.

The lowering and the analyses allocate hundreds of thousands of objects that all stay alive
until the command ends; the collector's passes over them (a young generation every 20,000
allocations, a middle one over up to a million objects) reclaim nothing and cost 15-20% of
`analyze` on a 20,000-line file (docs/benchmarks.md, "Cost against input size"). Paused, not
disabled: the collector runs again as it was once the outermost pause ends, and reclaims
then whatever cycles died meanwhile, so a library caller's process keeps its settings.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The collector off for the block (nested blocks: the outermost turns it back on)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
