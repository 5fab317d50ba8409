"""The splice rewriter: edits replace byte ranges of the original text and nothing else.

Keeping the user's bytes everywhere a pass did not touch preserves comments, macros and
formatting, and makes output deterministic: the result depends only on the input and the
edits, applied in offset order whatever order passes added them in.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from dataclasses import dataclass, field

from cudafuse.ir.source import SourceFile, Span


class OverlappingEdits(ValueError):
    pass


@dataclass(frozen=True, order=True)
class Edit:
    start: int
    end: int
    text: str = field(compare=False)
    reason: str = field(default="", compare=False)  # for --explain and error messages


@dataclass
class Rewriter:
    source: SourceFile
    edits: list[Edit] = field(default_factory=list)
    _ranges: _Ranges | None = field(default=None, init=False, repr=False, compare=False)

    def replace(self, span: Span, text: str, reason: str = "") -> None:
        self._add(Edit(span.start, span.end, text, reason))

    def replace_range(self, start: int, end: int, text: str, reason: str = "") -> None:
        self._add(Edit(start, end, text, reason))

    def insert(self, offset: int, text: str, reason: str = "") -> None:
        self._add(Edit(offset, offset, text, reason))

    def remove(self, span: Span, reason: str = "") -> None:
        self._add(Edit(span.start, span.end, "", reason))

    def _add(self, edit: Edit) -> None:
        if not 0 <= edit.start <= edit.end <= len(self.source.data):
            raise ValueError(f"edit [{edit.start}, {edit.end}) is outside the file")
        index = self._index()
        if index.overlaps(edit):
            for other in self.edits:  # the first one added that it overlaps, named
                if _overlap(edit, other):
                    raise OverlappingEdits(
                        f"edit [{edit.start}, {edit.end}) ({edit.reason or 'no reason'}) "
                        f"overlaps [{other.start}, {other.end}) "
                        f"({other.reason or 'no reason'})")
        self.edits.append(edit)
        index.add(edit)

    def _index(self) -> _Ranges:
        """The ranges of `edits`, sorted for bisection (a scan of every edit per edit was
        quadratic: some 4,000 edits on a 1,000-launch chain). Callers roll a group back
        with `del edits[applied:]` and replace an edit by one of the same range: the index
        is made again whenever `edits` is not as long as it was, or ends in another edit."""
        if self._ranges is None or not self._ranges.follows(self.edits):
            self._ranges = _Ranges.of(self.edits)
        return self._ranges

    def apply(self, user_bytes: bool = True) -> bytes:
        """The edited text. Untouched bytes are the user's, even where the front end parsed
        a respelling of them (SourceFile.original), unless `user_bytes` is False (a text
        for g++, which rejects what clang does there too)."""
        out, pos = [], 0
        data = (self.source.original if user_bytes else None) or self.source.data
        # Stable order for inserts at one offset: the order they were added in.
        ordered = sorted(enumerate(self.edits), key=lambda ie: (ie[1].start, ie[1].end, ie[0]))
        for _, e in ordered:
            out.append(data[pos:e.start])
            out.append(e.text.encode("utf-8"))
            pos = e.end
        out.append(data[pos:])
        return b"".join(out)


class _Ranges:
    """The replacements (pairwise disjoint: overlapping ones are refused, so their ends
    rise with their starts) and the insertion points of a list of edits, sorted."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.points: list[int] = []
        self.count = 0  # edits indexed: the list's first `count`
        self.last: Edit | None = None  # the list's last edit
        self.disjoint = True

    @classmethod
    def of(cls, edits: list[Edit]) -> _Ranges:
        index = cls()
        for e in edits:
            if index.disjoint and index.overlaps(e):
                index.disjoint = False  # a list given whole that overlaps: scan it
            index.add(e)
        return index

    def follows(self, edits: list[Edit]) -> bool:
        return len(edits) == self.count and (not edits or edits[-1] is self.last)

    def add(self, e: Edit) -> None:
        self.count += 1
        self.last = e
        if e.start == e.end:
            insort(self.points, e.start)
        else:
            at = bisect_left(self.starts, e.start)
            self.starts.insert(at, e.start)
            self.ends.insert(at, e.end)

    def overlaps(self, edit: Edit) -> bool:
        """Whether `edit` overlaps one of the edits, as `_overlap` says of each."""
        if not self.disjoint:
            return True  # (the caller scans)
        s, e = edit.start, edit.end
        if s == e:  # an insertion: strictly inside a replacement
            at = bisect_left(self.starts, s) - 1  # the last replacement starting before it
            return at >= 0 and self.ends[at] > s
        at = bisect_left(self.starts, e) - 1  # the last replacement starting before `e`
        if at >= 0 and self.ends[at] > s:
            return True
        p = bisect_right(self.points, s)  # the first insertion after `s`
        return p < len(self.points) and self.points[p] < e


def _overlap(a: Edit, b: Edit) -> bool:
    """Two replacements overlap if they share a byte; an insertion strictly inside a
    replaced range overlaps it. Insertions at the same point are fine (kept in order)."""
    if a.start == a.end and b.start == b.end:
        return False
    if a.start == a.end:
        return b.start < a.start < b.end
    if b.start == b.end:
        return a.start < b.start < a.end
    return a.start < b.end and b.start < a.end
