"""A program's command-line macros kept away from the front end's shim (issue 27).

clang reads every `-D` before the first `-include`, so `cudafuse analyze prog.cu -D c=1` had
its c replace the parameter c of a declaration in the shim or the runtime API's declarations
it includes (cuda_api/): the parse stopped in cudafuse's own text. As emu/defines.py does for
the emulator's forced headers, a `-D` whose name the shim's code spells (an identifier of its
own: not reserved, `_X` or `__x`) is defined right after the shim instead, in a header read
before the program's own -include files and its first line: the program sees every macro it
asked for, the shim none it never tests. Reserved names (__CUDA_ARCH__) and the names the shim
does not spell (NDEBUG, which <assert.h> tests) stay on the command line, where the shim and
the C library headers it includes see them as before. A name also given to -U keeps the
command line's order: its -D stays there.

The header is not written to disk: it is handed to libclang as an unsaved file under the
front end's include directory, so that diagnostics and the unit's include list count it among
cudafuse's own headers.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

from cudafuse.emu.defines import code_identifiers, quoted_closure

# Virtual: never on disk (parse.py passes its text as an unsaved file).
HEADER_NAME = "cudafuse_command_line_defines.h"


def forced_headers(shim: Path) -> list[Path]:
    """`shim` and what it includes with #include "...", transitively: the front end's text
    read before the program's."""
    return quoted_closure([shim])


def _reserved(name: str) -> bool:
    return name.startswith("__") or (name[:1] == "_" and name[1:2].isupper())


@functools.cache
def _own_identifiers(shim: Path, key: str) -> frozenset[str]:
    names: set[str] = set()
    for p in forced_headers(shim):
        names |= code_identifiers(p.read_bytes())
    return frozenset(n for n in names if not _reserved(n))


def own_identifiers(shim: Path) -> frozenset[str]:
    """Every unreserved identifier the shim's code spells (cached by the headers' content)."""
    h = hashlib.sha256()
    for p in forced_headers(shim):
        h.update(p.read_bytes())
    return _own_identifiers(shim, h.hexdigest())


def _name(define: str) -> str:
    return re.split(r"[=(]", define, maxsplit=1)[0].strip()


def _directive(define: str) -> str:
    """`-D NAME=VALUE` as clang reads it: NAME alone is 1, NAME(a)=body function-like."""
    head, eq, value = define.partition("=")
    return f"#define {head.strip()} {value if eq else '1'}\n"


def split(defines: tuple[str, ...], extra_args: tuple[str, ...], shim: Path
          ) -> tuple[list[str], str | None]:
    """`defines` (NAME or NAME=VALUE) as the -D flags left on the command line and the text
    of the header that defines the rest after the shim (None: nothing moved)."""
    if not defines:
        return [], None
    own = own_identifiers(shim)
    undefined = {_undefined(a, extra_args[i + 1:i + 2]) for i, a in enumerate(extra_args)
                 if a.startswith("-U")}
    moved = [d for d in defines if _name(d) in own and _name(d) not in undefined]
    kept = [f"-D{d}" for d in defines if d not in moved]
    if not moved:
        return kept, None
    return kept, ("// the program's -D macros whose names the front end's shim uses "
                  "(cudafuse/frontend/defines.py)\n" + "".join(map(_directive, moved)))


def _undefined(flag: str, following: tuple[str, ...]) -> str:
    return (flag[2:] or (following[0] if following else "")).strip()
