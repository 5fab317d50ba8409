"""The splice rewriter: edits replace byte ranges of the original text and nothing else.

Keeping the user's bytes everywhere a pass did not touch preserves comments, macros and
formatting, and makes output deterministic: the result depends only on the input and the
edits, applied in offset order whatever order passes added them in.
"""

from __future__ import annotations

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
        for other in self.edits:
            if _overlap(edit, other):
                raise OverlappingEdits(
                    f"edit [{edit.start}, {edit.end}) ({edit.reason or 'no reason'}) overlaps "
                    f"[{other.start}, {other.end}) ({other.reason or 'no reason'})")
        self.edits.append(edit)

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
