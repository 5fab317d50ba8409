"""Source files and byte spans: every IR node points back at the text it came from."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import NamedTuple


class Span(NamedTuple):
    """A half-open byte range [start, end) of `file`, with the 1-based line/col of `start`.

    Inside a macro expansion libclang reports the expansion site, so a span there covers the
    macro invocation: good enough to blame and to splice whole statements around.

    A named tuple rather than a frozen dataclass: the front end makes one per IR node, and a
    tuple is built several times faster (ordering and equality are the same: by field).
    """

    file: str
    start: int
    end: int
    line: int = 0
    col: int = 0

    def where(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def contains(self, other: Span) -> bool:
        return self.file == other.file and self.start <= other.start and other.end <= self.end


NO_SPAN = Span("", 0, 0)


@dataclass
class SourceFile:
    """The bytes of one input file; slicing is by byte offset, as libclang reports them."""

    path: str
    data: bytes
    _line_starts: list[int] = field(default_factory=list, repr=False)
    # The user's bytes when `data` is a respelling of them of the same length (the front
    # end's respell.clang_spelling: split launch chevrons joined...): output keeps these wherever
    # nothing was edited. None: `data` is the file as written.
    original: bytes | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        starts = [0]
        pos = self.data.find(b"\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = self.data.find(b"\n", pos + 1)
        self._line_starts = starts

    def text(self, span: Span) -> str:
        return self.data[span.start:span.end].decode("utf-8", errors="replace")

    def line_col(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self._line_starts, offset) - 1
        return i + 1, offset - self._line_starts[i] + 1

    def line_text(self, line: int) -> str:
        if not 1 <= line <= len(self._line_starts):
            return ""
        start = self._line_starts[line - 1]
        end = self.data.find(b"\n", start)
        return self.data[start:end if end != -1 else len(self.data)].decode("utf-8", "replace")

    def span(self, start: int, end: int) -> Span:
        line, col = self.line_col(start)
        return Span(self.path, start, end, line, col)
