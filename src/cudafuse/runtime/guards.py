"""Reading the fault record emu/guard.cpp writes when an access hits the guard region
after (or the guard page before) a spec array (placed by worker.GuardedBuffers) or a device
allocation of the program's own (cudaMalloc & co., placed by the runtime's rt_alloc).

The record names the kernel running and its launch site, not the faulting line (the
default build has no debug information); `--sanitize` gives the line.
"""

from __future__ import annotations

import shutil
import subprocess

from cudafuse.runtime.asan import Access, allocation


def _fields(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        out[key] = value.strip()
    return out


def _demangle(symbol: str) -> str:
    tool = shutil.which("c++filt")
    if not symbol or not tool:
        return symbol
    try:
        done = subprocess.run([tool, symbol], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return symbol
    return done.stdout.strip() or symbol


# siginfo's si_code for a fault the kernel raised itself: on x86-64 a general-protection
# fault (no address), which is what a 16-byte SSE load or store of a misaligned address
# gets (int4/float4 through an int* whose start the placement aligned only to 4).
SI_KERNEL = 128


def general_protection(record: str) -> bool:
    """Whether the fault record is a general-protection fault (see SI_KERNEL)."""
    return _fields(record).get("code") == str(SI_KERNEL)


def parse(record: str, table: str) -> Access | None:
    """The bad access, when the faulting address lies in an argument's reserved range but
    outside the argument itself; None for any other fault (a wild pointer, a stack
    overflow), which stays a plain crash."""
    f = _fields(record)
    try:
        address = int(f.get("addr", ""), 16)
    except ValueError:
        return None
    place: dict[str, object] = {}
    for row in table.splitlines():
        parts = [int(x) for x in row.split()]
        if len(parts) != 5:
            continue
        index, start, nbytes, low, high = parts
        if low <= address < high and not start <= address < start + nbytes:
            place = {"param": index, "offset": address - start, "nbytes": nbytes}
            break
    else:
        place = allocation(record, address)  # a device allocation's guard zone
        if not place:
            return None
    in_kernel = f.get("in_kernel") == "1"
    function = f.get("kernel", "") if in_kernel else \
        _demangle(f.get("symbol", "")).split("(")[0].split("<")[0]
    detail = ""
    if in_kernel:
        block, thread = f.get("block", "").split(), f.get("thread", "").split()
        detail = f"block ({','.join(block)}), thread ({','.join(thread)})"
    file = f.get("file", "") if in_kernel and not f.get("file", "").startswith("<") else ""
    line = int(f.get("line", "0") or 0) if file else 0
    return Access("out-of-bounds", "write" if f.get("write") == "1" else "read", 0, address,
                  function, file, line, 0, detail=detail, at_launch=bool(file),
                  **place)  # type: ignore[arg-type]
