"""A program's command-line macros kept away from the emulator's forced headers.

g++ reads every `-D` before the first `-include`, so a program built with `-D N=37` (PolyBench
does) had its N replace the N of `template <auto F, long long N>` in cudafuse_emu_launch.h:
the build failed in the emulator's own code. NVIDIA's headers name their internals with
reserved identifiers; the emulator's forced headers (cudafuse_emu.h, what it includes, and the
Thrust prelude read before it) name hundreds of them plainly. So a `-D` whose name one of those
headers uses as an identifier of its own code is defined right after them instead (in a small
header `-include`d next), before the first line of the program and its own forced includes:
the program sees every macro it asked for, the emulator's code none that it never tests. Any
other `-D` (NDEBUG, THRUST_*, _GNU_SOURCE: names the headers do not spell) stays on the command
line, where the C and C++ library headers the emulator includes see it as nvcc's would.
Headers a program includes itself (stand-ins) and the text the rewrite splices into the program
see every macro: they use reserved or public names (tests/emu/test_emu_header_names.py,
tests/emu/test_emu_command_line_macros.py).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import tempfile
from pathlib import Path

from cudafuse.emu import include_dir

# Code tokens: comments, string and character literals are matched whole so that the words in
# them are not taken for identifiers.
_TOKEN = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|'
                    rb"[A-Za-z_]\w*|\d[\w.']*", re.S)
_INCLUDE_LINE = re.compile(rb"^[ \t]*#[ \t]*include\b[^\n]*", re.M)
_QUOTED_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
# The headers read before the program's text: the emulator's and Thrust's prelude (emu/cccl.py).
_ROOTS = ("cudafuse_emu.h", "cudafuse_emu_cccl.h", "cudafuse_emu_cccl_end.h")


def forced_headers() -> list[Path]:
    """The headers a build reads before the program's first line: the roots and what they
    include with #include "...", transitively."""
    return quoted_closure([include_dir() / r for r in _ROOTS])


def quoted_closure(roots: list[Path]) -> list[Path]:
    """`roots` and the files they include with #include "...", transitively (the front end's
    shim too: frontend/defines.py)."""
    seen: dict[Path, None] = {}
    todo = list(roots)
    while todo:
        p = todo.pop().resolve()
        if p in seen or not p.is_file():
            continue
        seen[p] = None
        todo += [p.parent / m.group(1).decode() for m in _QUOTED_INCLUDE.finditer(p.read_bytes())]
    return list(seen)


def code_identifiers(text: bytes) -> set[str]:
    """The identifiers of `text`'s code: not in comments, literals or #include lines (a header
    name is not macro-expanded)."""
    text = _INCLUDE_LINE.sub(b"", text)
    return {t.decode() for t in (m.group(0) for m in _TOKEN.finditer(text))
            if t[:1].isalpha() or t[:1] == b"_"}


@functools.cache
def _own_identifiers(blob_key: str) -> frozenset[str]:
    names: set[str] = set()
    for p in forced_headers():
        names |= code_identifiers(p.read_bytes())
    return frozenset(names)


def own_identifiers() -> frozenset[str]:
    """Every identifier the forced headers' code spells (cached by their content)."""
    h = hashlib.sha256()
    for p in forced_headers():
        h.update(p.read_bytes())
    return _own_identifiers(h.hexdigest())


def _name(define: str) -> str:
    return re.split(r"[=(]", define, maxsplit=1)[0].strip()


def _directive(define: str) -> str:
    """`-D NAME=VALUE` as a #define line (as g++ reads it: NAME alone is 1, NAME(a)=body is a
    function-like macro)."""
    head, eq, value = define.partition("=")
    return f"#define {head.strip()} {value if eq else '1'}\n"


def split(defines: tuple[str, ...], search: tuple[str, ...], cache: Path
          ) -> tuple[list[str], list[str]]:
    """`defines` (NAME or NAME=VALUE) as the -D flags left on the command line and the flags
    that -include the rest after the emulator's header. A name also given to -U (in `search`,
    the build's flag/value pairs) keeps the command line's order: its -D stay there."""
    own = own_identifiers()
    undefined = {v for f, v in zip(search[::2], search[1::2], strict=True) if f == "-U"}
    moved = [d for d in defines if _name(d) in own and _name(d) not in undefined]
    if not moved:
        return [f"-D{d}" for d in defines], []
    kept = [f"-D{d}" for d in defines if d not in moved]
    text = ("// the program's -D macros whose names the emulator's headers use "
            "(cudafuse/emu/defines.py)\n" + "".join(_directive(d) for d in moved)).encode()
    path = cache / f"emu-defines-{hashlib.sha256(text).hexdigest()[:24]}.h"
    if not path.is_file():
        fd, tmp = tempfile.mkstemp(dir=cache, suffix=".h")
        with os.fdopen(fd, "wb") as f:
            f.write(text)
        os.replace(tmp, path)
    return kept, ["-include", str(path)]


