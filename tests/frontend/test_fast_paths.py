"""The lowering's shortcuts around clang.cindex give cindex's answers on every cursor.

clang_api.children, referenced, spelling, arguments, canonical, Spans.span (raw-encoding
decoding of main-file locations, per-endpoint cache for macro locations) and
Spans.type_spelling (cached per type) exist only for speed; here they are checked against the
plain cindex calls on every cursor of every corpus file and sample, which use macros in index
expressions, templates, includes and every statement kind.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import clang.cindex as ci
import pytest

from cudafuse.frontend.clang_api import (
    Locations,
    Spans,
    arguments,
    canonical,
    children,
    main_file_base,
    referenced,
    spelling,
)
from cudafuse.frontend.parse import ParseOptions, _parse, _top_level
from cudafuse.ir.source import SourceFile

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted([*(ROOT / "tests" / "corpus").glob("*.cu"), *(ROOT / "samples").glob("*.cu")])


def _cursors(tu: ci.TranslationUnit, path: str) -> Iterator[ci.Cursor]:
    stack = list(_top_level(tu.cursor, path))
    while stack:
        c = stack.pop()
        yield c
        stack.extend(c.get_children())


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_fast_paths_agree_with_cindex(path: Path) -> None:
    tu = _parse(str(path), ParseOptions())
    source = SourceFile(str(path), path.read_bytes())
    base = main_file_base(tu, source.path)
    assert base is not None
    spans = Spans(Locations(), source.path, len(source.data), base, source.line_col)
    slow = Spans(Locations(), source.path, len(source.data), None, source.line_col)
    seen = refs = 0
    for c in _cursors(tu, str(path)):
        seen += 1
        assert [(k.kind, k.extent) for k in children(c)] == \
            [(k.kind, k.extent) for k in c.get_children()]
        ext = c.extent
        start, end = ext.start, ext.end
        fname = start.file.name if start.file else ""
        for sp in (spans.span(c), slow.span(c)):  # the raw-encoding path, the exact path
            got = (sp.file, sp.start, sp.end, sp.line, sp.col)
            if fname != source.path:
                assert got == (fname, 0, 0, start.line, start.column), c.kind
            elif end.file is None or end.file.name != fname:
                assert got[:2] + got[3:] == (fname, start.offset, start.line, start.column)
            else:
                assert got == (fname, start.offset, max(start.offset, end.offset), start.line,
                               start.column), c.kind
        assert spans.type_spelling(c) == c.type.spelling
        assert spelling(c) == c.spelling
        assert referenced(c) == c.referenced
        assert canonical(c) == c.canonical
        assert arguments(c) == list(c.get_arguments())
        refs += referenced(c) is not None
    assert seen > 20 and refs > 5
