"""Host functions the main file calls that are defined in the user's own headers.

The error-check helpers between launches (`checkCudaErrors(...)` expanding to a `check`
template, cuda-samples' `getLastCudaError(msg)` expanding to `__getLastCudaError`, a
project's `utils.h`) are usually defined in a header next to the program. Only the main
file's functions are lowered, so the launch-sequence splitter (passes/vertical/host/hoststmts.py)
could not see what such a helper does. Here the definitions of those callees (and of what
they call in turn, a few levels deep) are lowered too, and so are the `__device__` helpers
the file's kernels call from such headers (`__device__ float sq(float)` in a `utils.h`), so
that the kernel evaluator (analysis/evaluate.py) sees through them as through the file's own
helpers. They are kept in `TranslationUnit.header_functions`, apart from `functions`, so
nothing else treats them as part of the file. System headers and cudafuse's own stand-ins
are left out (their functions
are known by name).
"""

from __future__ import annotations

import dataclasses

import clang.cindex as ci

from cudafuse.frontend.clang_diags import in_bundled_headers
from cudafuse.frontend.lower import K, Lowerer, LoweringError
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit

MAX_FUNCTIONS = 40  # lowered header functions per file, at most
_FUNCTIONS = (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD)


def _calls(fn: Function) -> list[str]:
    if fn.body is None:
        return []
    # (nodes_of: the body's walk grouped by class once, kept for the analyses' own asks)
    return [x.callee_decl for x in fn.body.nodes_of(n.Call) if x.callee_decl]


def _definition(tu: ci.TranslationUnit, decl: str, include_root: str) -> ci.Cursor | None:
    """The definition a `name@file:offset` declaration id names, if it lies in a user header."""
    _, _, where = decl.partition("@")
    fname, _, offset = where.rpartition(":")
    if not fname or not offset.isdigit() or in_bundled_headers(fname, include_root):
        return None
    try:
        f = ci.File.from_name(tu, fname)
        loc = ci.SourceLocation.from_offset(tu, f, int(offset))
        cursor = ci.Cursor.from_location(tu, loc)
    except Exception:  # noqa: BLE001 - libclang raises plain exceptions for unknown files
        return None
    if cursor is None or cursor.kind not in _FUNCTIONS:
        cursor = cursor.referenced if cursor is not None else None
    if cursor is None or cursor.kind not in _FUNCTIONS:
        return None
    if cursor.location.is_in_system_header:
        return None
    definition = cursor.get_definition()
    if definition is None or definition.kind not in _FUNCTIONS:
        return None
    if definition.location.is_in_system_header or definition.location.file is None or \
            in_bundled_headers(definition.location.file.name, include_root):
        return None
    return definition


def header_callees(tu: ci.TranslationUnit, unit: TranslationUnit, lowerer: Lowerer,
                   include_root: str) -> list[Function]:
    """Lower the user-header definitions the main file's host functions call (transitively,
    at most MAX_FUNCTIONS of them)."""
    known = {f.decl for f in (*unit.functions, *unit.methods)}
    todo = [d for f in unit.functions for d in _calls(f)]
    seen: set[str] = set()
    out: list[Function] = []
    while todo and len(out) < MAX_FUNCTIONS:
        decl = todo.pop(0)
        if decl in seen or decl in known:
            continue
        seen.add(decl)
        _, _, where = decl.partition("@")
        if where.rpartition(":")[0] == unit.path:
            continue
        cursor = _definition(tu, decl, include_root)
        if cursor is None:
            continue
        try:
            fn = lowerer.function(cursor)
        except (LoweringError, ValueError, AttributeError, RecursionError):
            continue
        if fn.body is None or cursor.kind == K.CXX_METHOD and fn.space != "host":
            continue  # (a host method: a timer's `Start()`, read for what it touches)
        if fn.decl != decl:  # named by the call's declaration, as lookups expect
            fn = dataclasses.replace(fn, decl=decl)
        out.append(fn)
        todo.extend(_calls(fn))
    return out
