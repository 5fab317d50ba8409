"""Pausing Python's cyclic garbage collector while a large IR is built or analysed.

The lowering and the analyses allocate hundreds of thousands of objects that all stay alive
until the command ends; the collector's passes over them (a young generation every 20,000
allocations, a middle one over up to a million objects) reclaim nothing and cost 15-20% of
`analyze` on a 20,000-line file (docs/benchmarks.md, "Cost against input size"). Paused, not
disabled: the collector runs again as it was once the outermost pause ends, and reclaims
then whatever cycles died meanwhile, so a library caller's process keeps its settings.

When a block made many objects (LARGE: a file of some thousand lines), they are handed to
the oldest generation as the pause ends (gc.freeze then gc.unfreeze: two list splices, no
pass over the objects). Left young, the first collection after the pause walked all of them,
and the next ones again as they aged: 0.24 CPU-s after an analysis of a 20,000-line file,
for nothing. In the oldest generation they are visited by full collections only, where any
cycles among them are reclaimed. Smaller blocks leave theirs young, as before: a process
that parses many small files (the test suite) reclaims their cycles promptly (moved, 60
parses of a corpus file left 20,000 dead objects until a full collection).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

# Objects (net, tracked) a pause must have made for them to go straight to the oldest
# generation: an analysis of a 5,000-line file makes about 90,000, a corpus program 3,000.
LARGE = 50_000


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
            # (the young generation's count: what the block made, net; a caller's own
            # frozen objects stay frozen)
            if gc.get_count()[0] >= LARGE and not gc.get_freeze_count():
                gc.freeze()  # every tracked object to the permanent generation,
                gc.unfreeze()  # and from there to the oldest
            gc.enable()
