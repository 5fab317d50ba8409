"""Kernels defined in the user's own files that the main file #includes.

Rodinia, Parboil and cuda-samples keep their kernels in a file the host code includes
(`#include "srad_kernel.cu"`, `#include "x_kernel.cuh"`). For analyze, plan and fuse
(ParseOptions.included_kernels) the kernels and device code of such files are lowered as the
main file's: each with a Lowerer of its own file, so that their spans index that file's text
(TranslationUnit.sources holds it; `unit.text(span)` reads from it). Code generation reads
their bodies from there and emits fused kernels in the main file only: an included file is
never modified.

A user file is one below the main file's directory or an -I directory, not a system header
and not one of cudafuse's stand-ins, named .cu/.cuh/.h/.hpp/.inl. Left out, each with a note
at the kernel: a kernel whose text comes from a macro expansion (its spans would name the
macro's invocation, not its text), a kernel template, and the kernels of a file entered more
than once (with other macros its text need not mean what one parse saw). Host functions of
such files are not lowered: launch sequences are the main file's.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import clang.cindex as ci

from cudafuse.diagnostics import Diagnostic, Severity
from cudafuse.frontend.clang_api import MACRO_BIT, Locations
from cudafuse.frontend.clang_diags import in_bundled_headers, is_error
from cudafuse.frontend.lower import K, Lowerer, LoweringError
from cudafuse.ir.program import TranslationUnit
from cudafuse.ir.source import SourceFile

SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".inl")
_SCOPES = (K.LINKAGE_SPEC, K.NAMESPACE, K.UNEXPOSED_DECL)
_DEVICE_ATTRS = frozenset({K.CUDAGLOBAL_ATTR, K.CUDADEVICE_ATTR})
_VAR_ATTRS = frozenset({K.CUDADEVICE_ATTR, K.CUDACONSTANT_ATTR, K.CUDASHARED_ATTR})


def user_files(tu: ci.TranslationUnit, main: str, include_dirs: tuple[str, ...],
               include_root: str) -> tuple[list[str], Counter[str], dict[str, int]]:
    """The user files the unit includes (as clang names them), how often each was entered,
    and the offset in the main file of the #include that brings each in (directly or not)."""
    roots = [Path(main).resolve().parent, *(Path(d).resolve() for d in include_dirs)]
    entered: Counter[str] = Counter()
    files: dict[str, None] = {}
    parent: dict[str, tuple[str, int]] = {}
    for inc in tu.get_includes():
        name = inc.include.name
        entered[name] += 1
        if inc.source is not None:
            parent.setdefault(name, (inc.source.name, inc.location.offset))
        if name == main or in_bundled_headers(name, include_root) or \
                not name.endswith(SUFFIXES) or name in files:
            continue
        p = Path(os.path.normpath(name)).resolve()
        if any(p.is_relative_to(r) for r in roots):
            files.setdefault(name)
    at: dict[str, int] = {}
    for name in files:
        cur, hops = name, 0
        while cur in parent and hops < 64:
            src, off = parent[cur]
            if src == main:
                at[name] = off
                break
            cur, hops = src, hops + 1
    return list(files), entered, at


def _top(cursor: ci.Cursor) -> Iterator[ci.Cursor]:
    for c in cursor.get_children():
        if c.kind in _SCOPES:
            yield from _top(c)
        else:
            yield c


def _kinds(c: ci.Cursor) -> set[ci.CursorKind]:
    return {k.kind for k in c.get_children()}


def lower_included(tu: ci.TranslationUnit, unit: TranslationUnit,
                   include_dirs: tuple[str, ...], include_root: str) -> list[Diagnostic]:
    """Lower the kernels, device functions and device variables of the user files the unit
    includes into `unit` (before the main file's); notes for the kernels left out."""
    files, entered, at = user_files(tu, unit.path, include_dirs, include_root)
    files = [f for f in files if f in at]  # (one a -include forces in has no site)
    if not files:
        return []
    wanted = set(files)
    loc = Locations()
    by_file: dict[str, list[ci.Cursor]] = {f: [] for f in files}
    for c in _top(tu.cursor):
        if c.kind not in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.VAR_DECL):
            continue
        fname = loc(c.location)[0]
        if fname in wanted:
            by_file[fname].append(c)
    broken = _error_offsets(tu, wanted)
    notes: list[Diagnostic] = []
    functions, globals_ = [], []
    for fname in files:
        cursors = by_file[fname]
        if not any(c.kind != K.VAR_DECL and K.CUDAGLOBAL_ATTR in _kinds(c) for c in cursors):
            continue  # no kernel: nothing to lower for fusion
        try:
            source = SourceFile(fname, Path(fname).read_bytes())
        except OSError:
            continue
        lowerer = Lowerer(source, tu)
        seen: set[str] = set()
        lowered_any = False
        for c in cursors:
            kinds = _kinds(c)
            kernel = K.CUDAGLOBAL_ATTR in kinds
            line, col = c.location.line, c.location.column
            if c.kind == K.VAR_DECL:
                if kinds & _VAR_ATTRS and entered[fname] == 1 and _own_text(c):
                    globals_.append(lowerer.global_var(c))
                continue
            if not kinds & _DEVICE_ATTRS or not c.is_definition():
                continue
            why = ""
            if c.kind == K.FUNCTION_TEMPLATE:
                why = "it is a template"
            elif c.get_num_template_arguments() >= 0 or c.spelling in seen:
                continue  # an instantiation, or the second copy of a name
            elif entered[fname] > 1:
                why = f"{fname} is included {entered[fname]} times (it may mean something " \
                    "else each time)"
            elif not _own_text(c):
                why = "its text comes from a macro expansion"
            elif any(c.extent.start.offset <= off <= c.extent.end.offset
                     for off in broken.get(fname, ())):
                why = "clang reported an error in it"
            elif macro := redefined_later(source.data, c, unit.source.data, at[fname]):
                why = f"the macro '{macro}' it uses is defined or undefined again after it " \
                    "(its fused copy, in the main file, could mean something else)"
            if not why:
                try:
                    fn = lowerer.function(c)
                except (LoweringError, ValueError, AttributeError, RecursionError) as exc:
                    why = f"it cannot be lowered ({exc})"
            if why:
                if kernel:
                    notes.append(Diagnostic(
                        Severity.NOTE, f"kernel '{c.spelling}' of the included file {fname} "
                        f"is not analysed: {why}", fname, line, col, source.line_text(line)))
                continue
            seen.add(c.spelling)
            functions.append(fn)
            lowered_any = True
        if lowered_any:
            unit.sources[fname] = source
            unit.included_at[fname] = at[fname]
    unit.functions[:0] = functions
    unit.globals[:0] = globals_
    return notes


def _own_text(c: ci.Cursor) -> bool:
    """Whether the declaration's name and its body (if any) are text of its file, not of a
    macro's expansion (`__global__` itself is a macro: the extent may start in one)."""
    if c.location.int_data & MACRO_BIT or c.location.file is None:
        return False
    for k in c.get_children():
        if k.kind == K.COMPOUND_STMT:
            ext = k.extent
            return not (ext.start.int_data | ext.end.int_data) & MACRO_BIT
    return True


_IDENT = re.compile(rb"[A-Za-z_]\w*")
_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(?:define|undef)[ \t]+([A-Za-z_]\w*)", re.M)


def redefined_later(data: bytes, c: ci.Cursor, main: bytes, site: int) -> str:
    """A name the kernel's text uses that a #define or #undef changes after the kernel in
    its file, or in the main file after the #include: the fused code, placed later in the
    main file, would then expand it otherwise."""
    start, end = c.extent.start.offset, c.extent.end.offset
    used = set(_IDENT.findall(data[start:end]))
    later = [m.group(1) for m in _DIRECTIVE.finditer(data, end)]
    later += [m.group(1) for m in _DIRECTIVE.finditer(main, site)]
    return next((x.decode() for x in later if x in used), "")


def _error_offsets(tu: ci.TranslationUnit, files: set[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for d in tu.diagnostics:
        f = d.location.file
        if is_error(d) and f is not None and f.name in files:
            out.setdefault(f.name, []).append(d.location.offset)
    return out


def lowered_kernels(unit: TranslationUnit, fname: str) -> set[str]:
    """Names of the kernels lowered from the included file `fname` (any spelling of it)."""
    target = os.path.realpath(fname)
    return {f.name.rsplit("::", 1)[-1] for f in unit.functions
            if f.is_kernel and f.span.file in unit.sources and
            os.path.realpath(f.span.file) == target}
