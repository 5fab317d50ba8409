"""The emulator's header precompiled (g++'s .gch) for emu builds.

Every emu build starts with `-include cudafuse_emu.h`, which pulls in the whole emulator and
a good part of the C++ standard library: about 1.2 s of the 4-5 s g++ spends on a small
program at -O2. A precompiled copy loads in a fraction of that. g++ uses `X.h.gch` for an
`-include X.h` when it finds one beside it, and uses it only when the build's options allow
(same macros, same code-generation options): otherwise it reads X.h, so a precompiled header
can only ever cost speed. Here X.h is a one-line wrapper that includes the real header, in a
directory of the cache named by every option that can change how the header compiles (the
program's own -iquote directory and the link options excepted).

A precompiled header is some 80 MB and takes longer to make than one build saves, so it is
made the second time its options are asked for: a one-off set of options (a program's own
-D) never pays for one. Builds with Thrust (whose prelude comes before the emulator's
header) are compiled as they are. CUDAFUSE_EMU_PCH=0 turns it off.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from cudafuse.emu import header_path, headers_blob
from cudafuse.runtime.build_record import exclusive

VERSION = "1"


def _header_flags(flags: list[str]) -> list[str]:
    """The options of `flags` that can change how the emulator's header compiles: all but
    -iquote directories, -include files (the header itself, the user's after it), the
    language (-x), the link options and -pipe."""
    kept: list[str] = []
    skip = False
    for i, f in enumerate(flags):
        if skip:
            skip = False
            continue
        if f in ("-iquote", "-include", "-x") and i + 1 < len(flags):
            skip = True
            continue
        if f in ("-shared", "-pipe") or f.startswith(("-Wl,", "-fuse-ld=")):
            continue
        kept.append(f)
    return kept


def with_pch(flags: list[str], tool: str, cache: Path) -> list[str]:
    """`flags` with the emulator header's `-include` pointing at its precompiled wrapper
    (made now when these options are asked for the second time), or `flags` as they are."""
    if os.environ.get("CUDAFUSE_EMU_PCH", "1") == "0" or "-include" not in flags:
        return flags
    at = flags.index("-include")
    header = header_path()
    if at + 1 >= len(flags) or flags[at + 1] != str(header):
        return flags  # Thrust's prelude first: the header is not the first thing compiled
    own = _header_flags(flags)
    h = hashlib.sha256()
    for part in (VERSION, tool, str(header), *own):
        h.update(part.encode() + b"\0")
    h.update(headers_blob())
    where = cache / f"emu-pch-{h.hexdigest()[:24]}"
    wrapper, gch = where / header.name, where / f"{header.name}.gch"
    if not gch.is_file():
        wanted = where.with_suffix(".wanted")
        if not wanted.exists():  # the first time: only noted
            wanted.touch()
            return flags
        with exclusive(where.with_suffix(".lock")):  # one process makes it, others wait
            if not gch.is_file() and (where.with_suffix(".failed").exists()
                                      or not _make(tool, own, header, where)):
                return flags
    return [*flags[:at + 1], str(wrapper), *flags[at + 2:]]


def _make(tool: str, own: list[str], header: Path, where: Path) -> bool:
    """Precompile the wrapper of `header` into `where` (renamed into place whole: another
    process sees the directory complete or not at all); False when g++ fails (noted in a
    `.failed` file, not retried)."""
    where.parent.mkdir(parents=True, exist_ok=True)
    tmp = where.with_name(f"{where.name}.{os.getpid()}.tmp")
    tmp.mkdir(exist_ok=True)
    wrapper = tmp / header.name
    wrapper.write_text(f'#include "{header}"\n')
    proc = subprocess.run([tool, *own, "-x", "c++-header", str(wrapper), "-o",
                           str(tmp / f"{header.name}.gch")], capture_output=True, text=True)
    if proc.returncode != 0:
        where.with_suffix(".failed").write_text(proc.stderr[-4000:])
        _remove(tmp)
        return False
    try:
        os.replace(tmp, where)
    except OSError:  # another process made it first
        _remove(tmp)
    return (where / f"{header.name}.gch").is_file()


def _remove(path: Path) -> None:
    for f in path.iterdir():
        f.unlink()
    path.rmdir()
