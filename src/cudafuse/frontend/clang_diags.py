"""clang's diagnostics, mapped to cudafuse's gcc-style ones.

Users must never be pointed into the bundled shim or stand-in headers with a message they
cannot act on: an error located there is reported against the user's file, saying what most
likely caused it (a -D/-include option or a declaration clashing with CUDA's own names).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import clang.cindex as ci

from cudafuse import cuda_api
from cudafuse.diagnostics import Diagnostic, Severity
from cudafuse.ir.source import SourceFile

MISSING_HEADER = re.compile(r"'([^']+)' file not found")
CANNOT_OPEN = re.compile(r"cannot open file '([^']+)'")
_SEVERITY = {ci.Diagnostic.Warning: Severity.WARNING, ci.Diagnostic.Error: Severity.ERROR,
             ci.Diagnostic.Fatal: Severity.ERROR, ci.Diagnostic.Note: Severity.NOTE}


def is_error(d: ci.Diagnostic) -> bool:
    return d.severity >= ci.Diagnostic.Error and not host_compiler_folds(d)


# nvcc's front end and g++ fold the C library's ceiling (`constexpr int blocks =
# std::ceil(N / 256.0)`, std::ceil(double) being ::ceil); clang 18 refuses the constexpr.
# The builtins are folded for clang by cudafuse_constexpr_math.h; ::ceil cannot be made
# constexpr without redeclaring libm's function, so that one refusal is not an error (the
# AST is whole; the emulator's g++ build folds it). Any other failing part of the same
# initialiser is then unseen: nvcc would name it, and the output is the program's own text.
_NOT_FOLDED = re.compile(r"^non-constexpr function '(ceil|ceilf|ceill)' cannot be used in a "
                         "constant expression$")


def host_compiler_folds(d: ci.Diagnostic) -> bool:
    """A constexpr clang refuses only for a call of the C library's ceil, which nvcc folds."""
    if not d.spelling.startswith("constexpr variable ") or \
            "must be initialized by a constant expression" not in d.spelling:
        return False
    notes = [c.spelling for c in d.children if not c.spelling.startswith(
        ("declared here", "expanded from", "in file included from"))]
    return bool(notes) and all(_NOT_FOLDED.match(n) for n in notes)


def is_missing_header(d: ci.Diagnostic) -> bool:
    return is_error(d) and MISSING_HEADER.search(d.spelling) is not None


_API_ROOT = str(cuda_api.header_path().parent)


def in_bundled_headers(fname: str, include_root: str) -> bool:
    """The shim, its stand-ins, the runtime API's declarations or a stub of a missing header."""
    return fname.startswith((include_root, _API_ROOT)) or "cudafuse-stubs-" in fname


@functools.lru_cache(maxsize=64)
def _file_lines(path: str) -> tuple[str, ...]:
    try:
        return tuple(Path(path).read_text(encoding="utf-8", errors="replace").splitlines())
    except OSError:
        return ()


def line_of(path: str, line: int, source: SourceFile) -> str:
    """The text of `line` in `path`, for the caret display ('' when it cannot be read)."""
    if path == source.path:
        return source.line_text(line)
    lines = _file_lines(path)
    return lines[line - 1] if 0 < line <= len(lines) else ""


def to_diagnostic(d: ci.Diagnostic, source: SourceFile, include_root: str) -> Diagnostic:
    loc = d.location
    fname = loc.file.name if loc.file else ""
    sev = _SEVERITY.get(d.severity, Severity.NOTE)
    if not fname:
        return Diagnostic(sev, d.spelling, source.path)
    if in_bundled_headers(fname, include_root):
        return Diagnostic(sev, f"{d.spelling} (inside cudafuse's built-in CUDA declarations; "
                          "a -D/-include option or a macro defined before them may clash "
                          "with CUDA names)", source.path)
    return Diagnostic(sev, d.spelling, fname, loc.line, loc.column,
                      line_of(fname, loc.line, source))
