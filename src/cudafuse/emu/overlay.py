"""Rewritten copies of a program's own headers, for the emulator.

The front end analyses the main file only, so `rewrite` changes only its text. An
`extern __shared__ T s[];` in a header next to it (cuda-samples keep kernels and their
launchers in `*_kernel.cuh` files) would reach g++ as `extern static` ("conflicting
specifiers"), a launch there as a syntax error, and inline PTX as the host assembler's. Such
headers, found on the text, are copied with those declarations made pointers into the
block's dynamic shared buffer, the launches made emulator calls, the PTX the emulator
translates made calls into it (lines kept, `#line` naming the original) into an overlay
directory that the emu build searches before the program's directory.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from cudafuse.emu import inline_asm
from cudafuse.ir.code_text import code_bytes

# (the element type may carry an alignment, `extern __shared__ __align__(16) unsigned char
# s[];`, as cudafuse's own sibling kernels declare theirs)
_ELEM = rb"((?:[^;{}()\[\]]|__align__\s*\(\s*\d+\s*\))*?)"
_EXTERN_SHARED = re.compile(
    rb"\bextern\s+(?:__shared__\s+" + _ELEM + rb"|" + _ELEM + rb"\s+__shared__\s+)"
    rb"(\w+)\s*\[\s*\]((?:\s*\[[^\]]*\])*)\s*;")
_ALIGN = re.compile(r"__align__\s*\(\s*\d+\s*\)")


def _declaration(elem: str, name: str, rest: str) -> str:
    # (the buffer's alignment is the emulator's: a pointer into it carries none)
    elem = " ".join(_ALIGN.sub(" ", elem).split())
    # `static`: a constant pointer, the same for every block, at any scope.
    if rest:
        return (f"static {elem} (*const {name}){rest} = "
                f"reinterpret_cast<{elem} (*){rest}>(__cudafuse_dyn_smem());")
    return f"static {elem} *const {name} = static_cast<{elem} *>(__cudafuse_dyn_smem());"


def _callee_start(text: bytes, end: int) -> int:
    """Where the kernel expression before `<<<` at `end` starts: a possibly qualified name
    with template arguments (`ns::k<T, 4>`)."""
    i = end
    while i > 0 and text[i - 1:i].isspace():
        i -= 1
    if text[i - 1:i] == b">":  # template arguments
        depth = 0
        while i > 0:
            i -= 1
            c = text[i:i + 1]
            depth += c == b">"
            depth -= c == b"<"
            if depth == 0:
                break
        while i > 0 and text[i - 1:i].isspace():
            i -= 1
    while i > 0 and (text[i - 1:i].isalnum() or text[i - 1:i] in (b"_", b":")):
        i -= 1
    return i


def blank_comments(data: bytes) -> bytes:
    """`data` with comments and string and character literals made spaces (offsets kept):
    a `'"'` no longer opens a string that hides the rest of its line (a launch there)."""
    return code_bytes(data)


def launch_edits(blanked: bytes, data: bytes,
                 fibers: Callable[[str], bool] = lambda _: True,
                 nulls: bool = False) -> list[tuple[int, int, str]]:
    """`k<<<cfg>>>(` becomes the emulator's launch call, as `rewrite` does for the launches the
    front end saw; `fibers(callee)` says whether the kernel needs fibers (by default yes: it
    was not analysed); with `nulls`, literal 0 and NULL arguments become null constants
    (the text then needs cudafuse_emu_null.h)."""
    edits = []
    # A launch in a macro's definition (PyTorch's HANDLE_CASE) spans continued lines: they
    # are read as blanks, and the lines the edit keeps stay continued.
    blanked = blanked.replace(b"\\\n", b"  ")
    for m in re.finditer(rb"<<<", blanked):
        close = blanked.find(b">>>", m.end())
        if close < 0:
            continue
        paren = close + 3
        while paren < len(blanked) and blanked[paren:paren + 1].isspace():
            paren += 1
        start = _callee_start(blanked, m.start())
        callee = data[start:m.start()].replace(b"\\\n", b"").decode("utf-8",
                                                                      "replace").strip()
        if blanked[paren:paren + 1] != b"(" or not callee:
            continue
        after = paren + 1
        while after < len(blanked) and blanked[after:after + 1].isspace():
            after += 1
        sep = "" if blanked[after:after + 1] == b")" else ", "
        cfg = data[m.end():close].decode("utf-8", "replace")
        name = callee.replace('"', "")
        mode = str(fibers(callee)).lower()
        new = (f'::__cf_emu::__cf_launch("{name}", __FILE__, __LINE__, {mode})({cfg})'
               f".__cf_run([&](auto... __cf_arg_) {{ {callee}(__cf_arg_...); }}{sep}")
        lines = data[start:paren + 1].count(b"\n")
        new += ("\\\n" if lines and data[start:paren + 1].count(b"\\\n") == lines else
                "\n") * lines
        edits.append((start, paren + 1, new))
        if nulls:
            edits += null_arguments(blanked, data, paren + 1)
    return edits


_NULL_SPELLINGS = (b"0", b"NULL", b"0L", b"__null")


def null_arguments(blanked: bytes, data: bytes, at: int) -> list[tuple[int, int, str]]:
    """The launch's arguments from `at` to its closing parenthesis that are a literal 0 or
    NULL, made `::__cf_emu::__cf_null_constant{}` (cudafuse_emu_null.h): forwarded through
    the generic call, the literal would arrive as an integer that no longer converts to a
    pointer parameter. Without the front end's view of the header, the spelling is what
    tells a null pointer constant; one of any other spelling is left as written."""
    edits, depth, start = [], 0, at
    for i in range(at, len(blanked)):
        c = blanked[i:i + 1]
        if c in (b"(", b"[", b"{"):
            depth += 1
        elif c in (b")", b"]", b"}") and depth:
            depth -= 1
        elif c in (b",", b")") and depth == 0:
            if data[start:i].strip() in _NULL_SPELLINGS:
                lo = start + len(data[start:i]) - len(data[start:i].lstrip())
                hi = lo + len(data[start:i].strip())
                edits.append((lo, hi, "::__cf_emu::__cf_null_constant{}"))
            if c == b")":
                break
            start = i + 1
    return edits


def rewrite_header(data: bytes) -> bytes | None:
    """The header's text with its `extern __shared__` arrays, kernel launches and the inline
    PTX the emulator translates (inline_asm.py) rewritten, or None if it has none of them."""
    blanked = blank_comments(data)
    edits = launch_edits(blanked, data, nulls=True) + inline_asm.text_edits(blanked, data)
    for m in _EXTERN_SHARED.finditer(blanked):
        elem = (m.group(1) or m.group(2) or b"").decode("utf-8", "replace")
        name = m.group(3).decode()
        rest = re.sub(r"\s+", "", (m.group(4) or b"").decode("utf-8", "replace"))
        text = _declaration(elem, name, rest) + "\n" * data[m.start():m.end()].count(b"\n")
        edits.append((m.start(), m.end(), text))
    if not edits:
        return None
    out, pos = [], 0
    for start, end, text in sorted(edits):
        out += [data[pos:start], text.encode()]
        pos = end
    out.append(data[pos:])
    return b"".join(out)


# The overlay's folder for the headers of -I folders (the others are searched for "x.h" only,
# as the program's folder is).
INCLUDE_DIRS = "cf-include-dirs"


def overlay(src: Path, includes: list[str],
            include_dirs: tuple[str, ...] = ()) -> dict[str, bytes]:
    """Rewritten copies of the program's own headers that need one (those below its
    directory or one of its -I directories), by their path relative to its directory and,
    under INCLUDE_DIRS, to each -I directory holding them (the build searches the former
    first for `#include "x.h"`, the latter for `<x.h>` too: ccminer's files include their
    cuda_helper.h with brackets)."""
    roots = [src.resolve().parent, *(Path(d).resolve() for d in include_dirs)]
    rewritten: dict[Path, tuple[list[Path], bytes]] = {}
    for inc in includes:
        path = Path(inc).resolve()
        here = [r for r in roots if r in path.parents]
        if path == src.resolve() or not here or path in rewritten:
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if b"__shared__" not in data and b"<<<" not in data and b"asm" not in data:
            continue
        new = rewrite_header(data)
        if new is not None:
            rewritten[path] = (here, new)
    files: dict[str, bytes] = {}
    for path, (here, new) in rewritten.items():
        # A header beside it that has a copy too is left to the search, which finds the copy
        # (Rodinia's scan.cu, included by a wrapper, includes scanLargeArray_kernel.cu, whose
        # extern __shared__ the copy rewrites: the original's path broke the build).
        text = (f'#include "cudafuse_emu_null.h"\n#line 1 "{path}"\n'.encode()
                + _absolute_includes(new, path.parent, set(rewritten)))
        keys = [str(path.relative_to(roots[0]))] if here[0] == roots[0] else []
        # below -I folders: searched for <x.h> too (build.py), by its path from each
        keys += [f"{INCLUDE_DIRS}/{path.relative_to(r)}" for r in roots[1:] if r in path.parents]
        for key in keys:
            files.setdefault(key, text)  # two headers of one relative path: the first
    return files


_QUOTED_INCLUDE = re.compile(rb'^([ \t]*#[ \t]*include[ \t]*)"([^"\n]+)"', re.M)


def _absolute_includes(data: bytes, folder: Path, copied: set[Path]) -> bytes:
    """`#include "x.h"` naming a file beside the original header made absolute: the copy
    lies in another folder, where the compiler would look first. Not for a file that has a
    copy of its own (`copied`): the search must find that copy."""
    def absolute(m: re.Match[bytes]) -> bytes:
        beside = folder / m.group(2).decode("utf-8", "replace")
        return m.group(1) + b'"' + str(beside).encode() + b'"' \
            if beside.is_file() and beside.resolve() not in copied else m.group(0)
    return _QUOTED_INCLUDE.sub(absolute, data)
