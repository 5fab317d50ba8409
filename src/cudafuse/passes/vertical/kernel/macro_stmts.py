"""Statements a macro writes together: text the emitter cannot rewrite one at a time.

Inside a macro's expansion libclang gives every node the span of the macro's use, so when
one use expands to several statements (`#define IDX int i = ...; if (i >= n) return;`)
those statements' spans overlap in the file. Code generation rewrites the index
statements and the guard as text, statement by statement: an edit meant for one would
land on the bytes of the others (the whole macro use). Such a kernel is refused before
emit, with the macro's name and line, and its text is left as written.
"""

from __future__ import annotations

import re

from cudafuse.ir import nodes as n
from cudafuse.ir.program import TranslationUnit
from cudafuse.passes.vertical.kernel.view import KernelView

_NAME = re.compile(rb"[A-Za-z_]\w*")


def shared_text_reason(unit: TranslationUnit, view: KernelView) -> str | None:
    """Why `view`'s guard or index statements cannot be rewritten in place: they share their
    text with another statement of the same block (one macro expands to them), or None."""
    fn = view.fn
    if fn.body is None:
        return None
    edited = {id(s) for s in view.coord_stmts}
    if view.guard is not None:
        edited.add(id(view.guard))
    if not edited:
        return None
    for block in fn.body.walk():
        if not isinstance(block, n.Compound):
            continue
        stmts = block.body
        for a, b in zip(stmts, stmts[1:], strict=False):
            if a.span.end > b.span.start and (id(a) in edited or id(b) in edited):
                return _describe(unit, a if id(a) in edited else b)
    return None


def _describe(unit: TranslationUnit, stmt: n.Stmt) -> str:
    data = unit.source_of(stmt.span.file).data
    m = _NAME.match(data, stmt.span.start)
    name = m.group().decode("utf-8", "replace") if m else ""
    at = re.search(rb"^[ \t]*#[ \t]*define[ \t]+" + re.escape(name.encode()) + rb"\b",
                   data, re.M) if name else None
    where = f" (line {_line_of(data, at.start())})" if at else ""
    what = f"macro '{name}'{where}" if name else "one macro"
    return (f"its statements come from {what} (used at line {stmt.span.line}), which "
            "cudafuse cannot rewrite in part")


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1
