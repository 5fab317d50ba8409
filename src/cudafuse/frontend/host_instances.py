"""Explicit specialisations of the host function templates whose launches may fuse (issue 25).

Caffe's `template <typename Dtype> void Forward_gpu(...) { k1<Dtype><<<...>>>(...);
k2<Dtype><<<...>>>(...); }` names no concrete kernel until it is instantiated. For each
instantiation the file uses (a call, `Forward_gpu(a, t, o, n)` or `Forward_gpu<float>(...)`,
or an explicit instantiation, `template void Forward_gpu<float>(...);`), a concrete copy of
the function is written as an explicit specialisation, `template <> void
Forward_gpu<float>(...) {...}`, right after the template's closing brace, on its last line
(so every later line keeps its number): every reference the template makes to one of its
own parameters becomes the argument (as frontend/instantiate.py does for kernels), its
comments blanked and its lines joined. The specialisation is an ordinary host function
whose launches name instantiations of kernel templates, so the vertical pass fuses it as
written by hand; a specialisation in which nothing fuses is dropped from the output
(passes/vertical/driver.py), and the template stays as written for every other use.

No copy is made (the template keeps its note) for a member function, a template whose body
has a preprocessor directive or a line continuation, an `extern` specifier (`static` and
default arguments are dropped: an explicit specialisation may not repeat them, takes its
template's linkage, and a call leaving an argument out finds the default on the template),
a template argument instantiate.py cannot write, or a call in the body to a name the file declares
again after the template: the instantiation, made where it is used, might call that later
declaration, where the copy, standing at the template, could not. The parse with the copies
must have no more errors than the one without.
"""

from __future__ import annotations

import bisect
import contextlib
import re
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

import clang.cindex as ci

from cudafuse.frontend.instantiate import (
    _PARAM_KINDS,
    _arguments,
    _template_cursor,
    _value_text,
    parameter_edits,
)
from cudafuse.frontend.lower import K
from cudafuse.ir import nodes as n
from cudafuse.ir.code_text import blank_comments
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.source import SourceFile


def _launch_count(fn: Function) -> int:
    return sum(isinstance(x, n.KernelLaunch) for x in fn.body.walk()) if fn.body else 0


def host_templates(unit: TranslationUnit) -> list[Function]:
    """The main file's host function templates with two or more launches."""
    return [f for f in unit.functions if f.is_template and f.space != "global" and
            f.body is not None and f.span.file == unit.path and not f.parent and
            _launch_count(f) > 1]


def _uses(tu: ci.TranslationUnit, path: str, tcur: ci.Cursor) -> list[ci.Cursor]:
    """The implicit instantiations of template `tcur` the main file names (calls, explicit
    instantiations), in source order, one per argument list."""
    loc = tcur.location
    out: list[ci.Cursor] = []

    def instance(c: ci.Cursor | None) -> bool:
        if c is None or c.kind != K.FUNCTION_DECL:
            return False
        t = ci.conf.lib.clang_getSpecializedCursorTemplate(c)
        # (an explicit specialisation stands elsewhere: it is the user's own)
        return t is not None and t == tcur and c.location.offset == loc.offset
    for c in tu.cursor.walk_preorder():
        f = c.location.file
        if f is None or f.name != path:
            continue
        if c.kind == K.FUNCTION_DECL and instance(c):
            out.append(c)  # an explicit instantiation (at the pattern's place)
        elif c.kind in (K.CALL_EXPR, K.DECL_REF_EXPR) and instance(c.referenced):
            out.append(c.referenced)
    return out


# Set while the file with the copies is parsed: its copies' calls name instantiations of
# other host templates (a launcher calling a launcher), which are not copied in turn.
WRITING: ContextVar[bool] = ContextVar("cudafuse_host_instances", default=False)
# Set by parse_for_fusion for its last parse only: the respelling rounds before it rewrite
# the file's text (kernels change length), which would move the copies' byte ranges.
ENABLED: ContextVar[bool] = ContextVar("cudafuse_host_instances_enabled", default=False)


@contextlib.contextmanager
def copies_written() -> Iterator[None]:
    """Parses inside write the copies (frontend/parse.py: ParseOptions.instantiate too)."""
    token = ENABLED.set(True)
    try:
        yield
    finally:
        ENABLED.reset(token)


# A piece of a copy and where its text comes from: (start, end) in the copy, the offset of
# the template's text it was copied from, and whether it is the template's text (else a
# replacement, all of it shown at that offset).
_Piece = tuple[int, int, int, bool]


@dataclass
class CopiedSource(SourceFile):
    """The file with the copies written in: an offset inside a copy has the line and column
    of the template text it was copied from, so every note about a copy's code points where
    the user wrote it."""

    pieces: list[_Piece] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.pieces.sort()
        self._starts = [p[0] for p in self.pieces]

    def line_col(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self._starts, offset) - 1
        if i >= 0:
            start, end, target, same = self.pieces[i]
            if offset < end:
                offset = target + (offset - start if same else 0)
        return super().line_col(offset)


def _copy(unit: TranslationUnit, tcur: ci.Cursor, fn: Function,
          args: list[str | int]) -> tuple[bytes, list[_Piece]] | str:
    """The explicit specialisation `template <> R name<args>(...) {...}` on one line, with
    where its pieces come from (offsets in the copy), or why none is written."""
    data = unit.source.data
    start, end = fn.span.start, fn.span.end
    text = data[start:end]
    if re.search(rb"^[ \t]*#", text, re.M) or b"\\\n" in text:
        return "its body has a preprocessor directive or a line continuation"
    params = [c for c in tcur.get_children() if c.kind in (*_PARAM_KINDS,
                                                           K.TEMPLATE_TEMPLATE_PARAMETER)]
    if len(params) != len(args) or any(c.kind == K.TEMPLATE_TEMPLATE_PARAMETER
                                       for c in params):
        return "it has a parameter pack or a template template parameter"
    defaults: list[tuple[int, int]] = []
    for c in tcur.get_children():
        value = [k for k in c.get_children() if k.kind.is_expression()] \
            if c.kind == K.PARM_DECL else []
        if value:
            # (a specialisation may not repeat a default argument; a call that leaves it
            # out still finds it on the template)
            eq = data.rfind(b"=", c.extent.start.offset, value[0].extent.start.offset)
            if eq < 0:
                return f"its parameter '{c.spelling}' has a default argument not written " \
                    "with '='"
            defaults.append((eq, c.extent.end.offset))
    close = data.find(b">", max(c.extent.end.offset for c in params) if params else start)
    if close < 0 or close >= fn.name_span.start:
        return "its template head is not found"
    head = data[close + 1:fn.name_span.start]
    if re.search(rb"\bextern\b", head):
        return "it is declared extern"
    bound = {c.hash: a if isinstance(a, str) else _value_text(c, a)
             for c, a in zip(params, args, strict=True)}
    edits = parameter_edits(tcur, data, close, bound)
    if isinstance(edits, str):
        return edits
    shown = ", ".join(bound[c.hash] for c in params)
    edits[fn.name_span.start] = (fn.name_span.end, f"{fn.name}<{shown}>")
    for s, e in defaults:
        for at in [at for at in edits if s <= at < e]:
            del edits[at]  # (a parameter named in the default goes with it)
        edits[s] = (e, "")
    # (a specialisation takes its template's linkage and may not repeat `static`)
    for m in re.finditer(rb"\bstatic\b", head):
        edits[close + 1 + m.start()] = (close + 1 + m.end(), "")
    out = bytearray(b"template <>")
    pieces: list[_Piece] = [(0, len(out), start, False)]
    pos = close + 1
    for s in sorted(edits):
        e, new = edits[s]
        pieces.append((len(out), len(out) + s - pos, pos, True))
        out += data[pos:s]
        pieces.append((len(out), len(out) + len(new.encode()), s, False))
        out += new.encode()
        pos = e
    pieces.append((len(out), len(out) + end - pos, pos, True))
    out += data[pos:end]
    # (lines joined, nothing else: a string literal keeps its spaces)
    text = blank_comments(bytes(out)).replace(b"\r", b" ").replace(b"\n", b" ")
    return text, pieces


def _later_names(unit: TranslationUnit, fn: Function) -> str:
    """A name the template's body calls that the file declares again after the template."""
    called = {x.callee.rsplit("::", 1)[-1] for x in fn.body.walk()
              if isinstance(x, n.Call) and x.callee} if fn.body else set()
    later = [f.name for f in (*unit.functions, *unit.methods)
             if f.span.file == unit.path and f.span.start > fn.span.end and f.name in called]
    return later[0] if later else ""


def specialised(tu: ci.TranslationUnit, unit: TranslationUnit
                ) -> tuple[CopiedSource | None, dict[int, list[tuple[int, int]] | str]] | None:
    """The main file's text with an explicit specialisation after each host template for
    each instantiation it uses (None: none written), and by template (where it starts in
    that text) the byte ranges written, or why none was; None when there is no such
    template."""
    templates = host_templates(unit)
    if not templates:
        return None
    data = unit.source.data
    inserts: list[tuple[int, int, list[tuple[bytes, list[_Piece]]]]] = []
    why: dict[int, list[tuple[int, int]] | str] = {}
    for fn in templates:
        tcur = _template_cursor(tu.cursor, unit.path, fn.span.start)
        if tcur is None:
            why[fn.span.start] = "its template declaration is not found"
            continue
        later = _later_names(unit, fn)
        if later:
            why[fn.span.start] = (f"it calls '{later}', which the file declares again after it "
                            "(an instantiation may call that declaration, a copy at the "
                            "template could not)")
            continue
        copies: list[tuple[bytes, list[_Piece]]] = []
        seen: set[tuple[str | int, ...]] = set()
        for spec in _uses(tu, unit.path, tcur):
            args = _arguments(spec)
            if isinstance(args, str):
                why[fn.span.start] = args
                break
            if tuple(args) in seen:
                continue
            seen.add(tuple(args))
            copy = _copy(unit, tcur, fn, args)
            if isinstance(copy, str):
                why[fn.span.start] = copy
                break
            copies.append(copy)
        else:
            if copies:
                inserts.append((fn.span.end, fn.span.start, copies))
            else:
                why[fn.span.start] = "no instantiation of it is used in the file"
    if not inserts:
        return None, why
    out = bytearray()
    pos = 0
    made: dict[int, list[tuple[int, int]]] = {}
    pieces: list[_Piece] = []
    for at, start, copies in sorted(inserts):
        out += data[pos:at]
        shift = len(out) - at  # (of this template's text: the copies before it)
        ranges = made[start] = []
        for copy, where in copies:  # (its leading space included: the output drops it whole)
            ranges.append((len(out), len(out) + 1 + len(copy)))
            out += b" "
            pieces += [(len(out) + s, len(out) + e, t + shift, same) for s, e, t, same in where]
            out += copy
        pos = at
    out += data[pos:]
    # (a template after a copy starts later in the new text by the copies before it)
    starts = sorted({*why, *made})
    moved = {s: s + sum(1 + len(c) for at, _, cs in inserts if at <= s for c, _ in cs)
             for s in starts}
    return CopiedSource(unit.path, bytes(out), pieces=pieces), \
        {moved[s]: made.get(s, why.get(s, "")) for s in starts}
