"""Code in a host function that the IR does not hold.

When a header is missing or a name is unknown, clang's error recovery may drop a statement
from the function's body without a word (after a fatal error, such as a second header not
found, it reports nothing more): `thrust::fill(d_t.begin(), d_t.end(), 0.f);` between two
launches is then simply absent, and fusion would move the first launch's work past a write
it never saw. Here the text between the statements of a block, which holds nothing but
blanks, `;`, comments and preprocessor lines when every statement was read, is checked:
anything else is a statement the analysis cannot judge, and the launch sequence splits
there (hostview.py).
"""

from __future__ import annotations

import re

from cudafuse.ir import nodes as n
from cudafuse.ir.program import TranslationUnit

_NAME = re.compile(r"[A-Za-z_]\w*")


def _first_code(text: str) -> int | None:
    """Where the first code in the text between two statements is (None: none). Blanks,
    `;`, preprocessor lines and a lone name (`polybench_stop_instruments;`: a macro that
    expands to nothing; a variable's name alone would do nothing either) are no code."""
    at = 0
    for line in text.splitlines(keepends=True):
        if not line.strip().startswith("#"):  # (a directive: `#pragma`, an active `#if`)
            start = 0
            for piece in line.split(";"):
                if piece.strip() and not _NAME.fullmatch(piece.strip()):
                    return at + start + len(piece) - len(piece.lstrip())
                start += len(piece) + 1
        at += len(line)
    return None


def _gap_line(unit: TranslationUnit, start: int, end: int, file: str) -> int | None:
    """The offset of code between two offsets of `file`, if any."""
    if end <= start or file != unit.path:
        return None
    i = _first_code(unit.code[start:end].decode("latin-1"))
    return None if i is None else start + i


def line_of(unit: TranslationUnit, offset: int) -> int:
    return unit.source.data.count(b"\n", 0, offset) + 1


def unread_between(unit: TranslationUnit, prev: n.Stmt, stmt: n.Stmt) -> int | None:
    """The offset of code between two consecutive statements of a block that the IR does
    not hold, if any."""
    a, b = prev.span, stmt.span
    if a.file != b.file:
        return None
    return _gap_line(unit, a.end, b.start, a.file)


def unread_inside(unit: TranslationUnit, stmt: n.Stmt) -> int | None:
    """The offset of code inside a statement's blocks that the IR does not hold, if any."""
    for node in stmt.walk():
        if not isinstance(node, n.Compound) or node.span.file != unit.path:
            continue
        body = node.body
        if not body:
            line = _gap_line(unit, node.span.start + 1, node.span.end - 1, node.span.file)
        else:
            line = _gap_line(unit, node.span.start + 1, body[0].span.start,
                             node.span.file) or next(
                (x for p, s in zip(body, body[1:], strict=False)
                 if (x := unread_between(unit, p, s)) is not None), None) or _gap_line(
                unit, body[-1].span.end, node.span.end - 1, node.span.file)
        if line is not None:
            return line
    return None


def unread_inits(unit: TranslationUnit, body: n.Stmt) -> dict[str, int]:
    """Locals declared with an initialiser the IR does not hold (`float *mid =
    thrust::raw_pointer_cast(d_t.data());` with Thrust unknown: clang keeps the variable,
    drops its value): decl -> the line. What such a pointer names is not known."""
    out: dict[str, int] = {}
    for d in body.walk():
        if not isinstance(d, n.VarDecl) or d.init is not None or d.span.file != unit.path:
            continue
        # The declarator's name in the declaration's own text; right after it (clang's
        # extent of such a declaration may stop before its `=`), an initialiser.
        own = unit.code[d.span.start:d.span.end].decode("latin-1")
        names = list(re.finditer(rf"\b{re.escape(d.name)}\b", own))
        if not names:
            continue
        at = d.span.start + names[-1].end()
        after = unit.code[at:at + 200].decode("latin-1")
        m = re.match(r"\s*(?:\[[^\]]*\]\s*)*([=({])", after)
        if m is not None:
            out[d.decl] = line_of(unit, at + m.start(1))
    return out
