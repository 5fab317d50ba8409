"""Pausing Python's cyclic garbage collector while a large IR is built or analysed.

The lowering and the analyses allocate hundreds of thousands of objects that all stay alive
until the command ends; the collector's passes over them (a young generation every 20,000
allocations, a middle one over up to a million objects) reclaim nothing and cost 15-20% of
`analyze` on a 20,000-line file (docs/benchmarks.md, "Cost against input size"). Paused, not
disabled: the collector runs again as it was once the outermost pause ends, and reclaims
then whatever cycles died meanwhile, so a library caller's process keeps its settings.

What the block made is handed to the oldest generation as the pause ends (gc.freeze then
gc.unfreeze: two list splices, no pass over the objects). Left young, the first collection
after the pause walked all of it, and the next ones again as it aged: 0.24 CPU-s after an
analysis of a 20,000-line file, for nothing. In the oldest generation it is only visited by
a full collection, which the collector runs when the objects that aged since the last one
outnumber a quarter of those it found then (as for any long-lived data); cycles among it are
reclaimed there.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The collector off for the block (nested blocks: the outermost turns it back on, and
    moves what was made meanwhile to the oldest generation)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            if not gc.get_freeze_count():  # (a caller's own frozen objects stay frozen)
                gc.freeze()  # every tracked object to the permanent generation,
                gc.unfreeze()  # and from there to the oldest
            gc.enable()
