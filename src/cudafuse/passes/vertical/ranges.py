"""Is a source offset inside any of many ranges (launch statements, function bodies)?

A file of a thousand launches asks it of thousands of offsets: a scan of every range per
offset made `fuse` quadratic in the launches. The ranges are merged once and bisected.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable


class Ranges:
    """The union of half-open ranges [a, b) of offsets: `at in ranges` is
    any(a <= at < b for a, b in the ranges given)."""

    __slots__ = ("_spans", "_starts")

    def __init__(self, spans: Iterable[tuple[int, int]]):
        out: list[tuple[int, int]] = []
        for a, b in sorted(x for x in spans if x[0] < x[1]):
            if out and a <= out[-1][1]:
                out[-1] = (out[-1][0], max(out[-1][1], b))
            else:
                out.append((a, b))
        self._spans = out
        self._starts = [a for a, _ in out]

    def __contains__(self, at: int) -> bool:
        k = bisect.bisect_right(self._starts, at) - 1
        return k >= 0 and at < self._spans[k][1]
