"""Reading an AddressSanitizer report of an emulated run: which argument, which element,
which function and line.

Under `load(sanitize=True)` the worker puts each array argument in a malloc'ed block of
exactly its size and writes the blocks' addresses to a table (worker.ExactBuffers), so a
report's "N bytes to the right of M-byte region [start, end)" names the argument whose
block starts at `start`.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cudafuse.emu import include_dir

_ERROR = re.compile(r"ERROR: AddressSanitizer: ([\w-]+) on (?:unknown )?address (0x[0-9a-f]+)")
_ACCESS = re.compile(r"^(READ|WRITE) of size (\d+) at (0x[0-9a-f]+)")
# A frame as library.load's stack_trace_format writes it: the module and offset at the end
# let llvm-symbolizer add the column that gcc's own symbolizer leaves out.
_FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ in (.+?) (\S+?):(\d+)(?::(\d+))?"
                    r"(?: <(\S+)\+(0x[0-9a-f]+)>)?$")
STACK_FORMAT = '"    #%n %p %F %L <%m+%o>"'  # the default format plus <module+offset>
_REGION = re.compile(r"is located (\d+) bytes (?:to the (right|left) of|inside of) (\d+)-byte "
                     r"region \[(0x[0-9a-f]+),(0x[0-9a-f]+)\)")


@dataclass(frozen=True)
class Access:
    """One bad access as the report gives it; `param` is the argument's position in the
    call (None: memory that is no argument, e.g. the program's own cudaMalloc)."""

    kind: str  # heap-buffer-overflow, heap-use-after-free, ...
    access: str  # "read" or "write" ("" when the report does not say)
    size: int
    address: int
    function: str  # the innermost function of the user's program, without parameters
    file: str
    line: int
    col: int
    param: int | None = None
    offset: int = 0  # bytes from the start of the argument's block (negative: before it)
    nbytes: int = 0  # the block's size
    detail: str = ""  # e.g. the block and thread that made the access
    at_launch: bool = False  # file:line is the kernel's launch, not the access
    # The device allocation (cudaMalloc & co.) in whose guard zones the access lies: its
    # size (-1: none; then `offset` is from its start) and the call's place ("", 0: unknown,
    # as for cudaMallocPitch).
    alloc_size: int = -1
    alloc_file: str = ""
    alloc_line: int = 0


_ALLOC = re.compile(r"^alloc_(start|size|line|file) ?(.*)$")


def allocation(text: str, address: int) -> dict[str, object]:
    """The Access fields of the device allocation the emulator's runtime names in `text` (a
    fault record or an AddressSanitizer report: lines `alloc_start 0x..`, `alloc_size N`,
    `alloc_line N`, `alloc_file PATH`), with `offset` from its start; {} when none."""
    found = dict(m.groups() for m in map(_ALLOC.match, text.splitlines()) if m)
    try:
        start, size = int(found["start"], 16), int(found["size"])
        line = int(found.get("line") or 0)
    except (KeyError, ValueError):
        return {}
    return {"param": None, "offset": address - start, "nbytes": size, "alloc_size": size,
            "alloc_file": found.get("file", "").strip(), "alloc_line": line}


def _user_frame(lines: list[str]) -> tuple[str, str, int, int]:
    """The first stack frame in the program's own text (not the emulator's header, not the
    generated trampolines, not the C library)."""
    header = str(include_dir())
    for ln in lines:
        m = _FRAME.match(ln)
        if not m:
            continue
        func, file = m.group(1), m.group(2)
        if file.startswith(header) or "<cudafuse" in file or not Path(file).is_file():
            continue
        if file.startswith(("/usr/", "/lib")) or "/Python-" in file:
            continue
        name = func.split("(")[0].split("<")[0].strip()
        line, col = int(m.group(3)), int(m.group(4) or 0)
        if not col and m.group(5):
            col = _column(m.group(5), m.group(6), file, line)
        return name, file, line, col
    return "", "", 0, 0


def _column(module: str, offset: str, file: str, line: int) -> int:
    """The column of `file:line` among the (inlined) source positions of module+offset, from
    llvm-symbolizer when there is one; 0 when not known."""
    tool = shutil.which("llvm-symbolizer")
    if not tool:
        return 0
    try:
        done = subprocess.run([tool, "--inlining", f"--obj={module}", offset],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return 0
    for text in done.stdout.splitlines():
        m = re.match(r"^(.*):(\d+):(\d+)$", text.strip())
        if m and int(m.group(2)) == line and Path(m.group(1)).name == Path(file).name:
            return int(m.group(3))
    return 0


def parse(report: str, table: str = "") -> Access | None:
    """The first bad access of an ASan report; `table` is the worker's buffer table."""
    lines = report.splitlines()
    head = next((m for m in map(_ERROR.search, lines) if m), None)
    if head is None:
        return None
    access = next((m for m in map(_ACCESS.match, lines) if m), None)
    func, file, line, col = _user_frame(lines)
    result = Access(head.group(1), access.group(1).lower() if access else "",
                    int(access.group(2)) if access else 0, int(head.group(2), 16),
                    func, file, line, col)
    named = allocation(report, result.address)
    if named:
        return dataclasses.replace(result, **named)  # type: ignore[arg-type]
    region = next((m for m in map(_REGION.search, lines) if m), None)
    if region is None:
        return result
    start = int(region.group(4), 16)
    for row in table.splitlines():
        index, addr, nbytes = (int(x) for x in row.split())
        if addr == start:
            return Access(result.kind, result.access, result.size, result.address, func,
                          file, line, col, index, result.address - start, nbytes)
    return result
