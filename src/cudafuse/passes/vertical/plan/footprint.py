"""Sets of (dx, dy) offsets as the cost model composes them through a fused chain.

A producer feeding a chain of stencils is evaluated at the Minkowski sum of their windows:
k 3x3 stencils give a (2k+1)^2 square. Kept as explicit points, composing a long chain
costs O(k^3) set operations per group, and the partition search scores thousands of
groups; so a footprint that is a full rectangle (every window the samples and most
filters read) is kept as its bounds, and only other shapes as points.
"""

from __future__ import annotations

from collections.abc import Iterable

Offset = tuple[int, int]
Rect = tuple[int, int, int, int]  # x0, x1, y0, y1 (inclusive)


class Footprint:
    __slots__ = ("rect", "points")

    def __init__(self, rect: Rect | None, points: frozenset[Offset] = frozenset()):
        self.rect = rect  # when set, the footprint is every offset of this rectangle
        self.points = points

    @classmethod
    def of(cls, offsets: Iterable[Offset]) -> Footprint:
        pts = frozenset(offsets)
        if not pts:
            return cls(None, pts)
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        rect = (min(xs), max(xs), min(ys), max(ys))
        if len(pts) == (rect[1] - rect[0] + 1) * (rect[3] - rect[2] + 1):
            return cls(rect)
        return cls(None, pts)

    def __len__(self) -> int:
        if self.rect is not None:
            x0, x1, y0, y1 = self.rect
            return (x1 - x0 + 1) * (y1 - y0 + 1)
        return len(self.points)

    def offsets(self) -> frozenset[Offset]:
        if self.rect is None:
            return self.points
        x0, x1, y0, y1 = self.rect
        return frozenset((x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1))

    def extent(self) -> tuple[int, int]:
        """The largest |dx| and |dy|: the halo a tile needs."""
        if self.rect is not None:
            x0, x1, y0, y1 = self.rect
            return max(abs(x0), abs(x1)), max(abs(y0), abs(y1))
        return (max((abs(dx) for dx, _ in self.points), default=0),
                max((abs(dy) for _, dy in self.points), default=0))

    def _contains(self, other: Footprint) -> bool:
        if self.rect is None or other.rect is None:
            return False
        a, b = self.rect, other.rect
        return a[0] <= b[0] and b[1] <= a[1] and a[2] <= b[2] and b[3] <= a[3]

    def union(self, other: Footprint) -> Footprint:
        if not len(other) or self._contains(other):
            return self
        if not len(self) or other._contains(self):
            return other
        return Footprint.of(self.offsets() | other.offsets())

    def plus(self, other: Footprint) -> Footprint:
        """The Minkowski sum: every a + b."""
        if self.rect is not None and other.rect is not None:
            a, b = self.rect, other.rect
            return Footprint((a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]))
        return Footprint.of((p[0] + q[0], p[1] + q[1])
                            for p in self.offsets() for q in other.offsets())


ORIGIN = Footprint((0, 0, 0, 0))
EMPTY = Footprint(None)
