"""A `__syncthreads()` written through an object-like macro (OpenMM's common compute
dialect: `#define SYNC_THREADS __syncthreads();` in its kernels/common.cu, then `SYNC_THREADS;`
in every reduction): in thread mode each part's barrier becomes its own named barrier, an
edit of the call's text, and a call inside a macro expansion has no text of its own. When
the invocation is a bare macro name whose every definition the parse read is exactly
`__syncthreads()`, optionally followed by `;`, the invocation itself is what the barrier is:
it is replaced by the part's barrier and, when the definition ends with one, a `;`. Any other
macro (arguments, other tokens, two definitions that differ) is still refused.

The front end keeps no macro table in the unit, so the definitions are read from the text of
every file the parse read (the unit's includes), comments and (in the main file) skipped
branches blanked: what clang reads.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from cudafuse.ir.code_text import blank_comments
from cudafuse.ir.nodes import Call
from cudafuse.ir.program import TranslationUnit

PLAIN = re.compile(r"^__syncthreads\s*\(\s*\)$")
_NAME = re.compile(r"^[A-Za-z_]\w*$")
_BODY = re.compile(r"^__syncthreads\s*\(\s*\)\s*(;?)$")


@functools.lru_cache(maxsize=512)
def _read(path: str) -> bytes:
    try:
        return blank_comments(Path(path).read_bytes())
    except OSError:
        return b""


def _definitions(unit: TranslationUnit, name: str) -> set[str]:
    """The replacement texts of every `#define name` (object-like) in the files the parse
    read; a function-like one gives '(' (no match)."""
    pattern = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+" + re.escape(name.encode()) +
                         rb"(\(?)([^\n]*(?:\\\n[^\n]*)*)", re.M)
    found: set[str] = set()
    for path in dict.fromkeys([unit.path, *unit.includes]):
        text = unit.code if path == unit.path else _read(path)
        if name.encode() not in text:
            continue
        for m in pattern.finditer(text):
            body = m.group(2).replace(b"\\\n", b" ").decode("utf-8", "replace").strip()
            found.add("(" if m.group(1) else body)
    return found


def barrier_suffix(unit: TranslationUnit, call: Call) -> str | None:
    """'' when the call is written out (`__syncthreads()`: its text is replaced), the text
    that must follow the part's barrier when it comes from a bare macro defined as exactly a
    barrier ('' or ';'), else None (it cannot be rewritten)."""
    text = unit.code_text(call.span).strip() if unit.owns(call.span) else ""
    if PLAIN.match(text):
        return ""
    if not _NAME.match(text) or call.args:
        return None
    bodies = {m.group(1) if (m := _BODY.match(b)) else None for b in _definitions(unit, text)}
    if len(bodies) != 1 or None in bodies:
        return None
    return bodies.pop()
