"""Reads of device memory that nothing wrote, found by running a program twice.

The emulator fills fresh cudaMalloc memory with one byte (CUDAFUSE_EMU_FILL); a program whose
outputs differ between a run with 0x00 and one with 0xff read memory that nothing stored,
memset or copied: on a GPU its result depends on what the memory held before (what
compute-sanitizer's initcheck reports). With CUDAFUSE_EMU_UNWRITTEN each run lists, for each
allocation that still holds fill bytes when freed or at exit, its cudaMalloc's place and the
ranges of those bytes. A byte that holds the fill in both runs was never written, or was
written in both runs from memory nothing wrote (a 0x00 read gives 0x00 there, a 0xff read a
NaN of 0xff bytes): the report cannot tell the two apart, so a note says "holds the fill in
both runs", not "never written".
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# The two fills: every byte differs, and 0xff is a NaN as float or double, -1 as an integer.
FILLS = (0x00, 0xFF)

Ranges = list[tuple[int, int]]  # (start, end) byte offsets, sorted, disjoint


@dataclass(frozen=True)
class Unwritten:
    """An allocation with bytes nothing wrote: its cudaMalloc's place, its size, how many of
    its bytes (at least: the emulator lists the first 64 ranges) and the first of them."""

    file: str
    line: int
    size: int
    count: int
    first: int
    kernel: str = ""  # the first kernel launched with it while it held fill bytes
    launch_file: str = ""
    launch_line: int = 0


@dataclass(frozen=True)
class Report:
    """One allocation of a run's report: its fill-byte ranges and the first kernel launched
    with a pointer into it while it held fill bytes (kernel, file, line; empty if none)."""

    ranges: Ranges
    kernel: tuple[str, str, int] = ("", "", 0)


def read(path: str | Path) -> dict[tuple[str, int, int], list[Report]]:
    """One run's report: for each allocation place and size, one Report per allocation made
    there. Empty when the program left none or the file is missing."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return {}
    out: dict[tuple[str, int, int], list[Report]] = {}
    for row in text.splitlines():
        parts = row.split("\t")
        if len(parts) not in (4, 7) or not parts[1].isdigit() or not parts[2].isdigit():
            continue
        ranges = []
        for item in parts[3].split(","):
            start, plus, length = item.partition("+")
            if plus and start.isdigit() and length.isdigit():
                ranges.append((int(start), int(start) + int(length)))
        kernel = (parts[4], parts[5], int(parts[6])) if len(parts) == 7 and \
            parts[6].isdigit() else ("", "", 0)
        out.setdefault((parts[0], int(parts[1]), int(parts[2])), []).append(
            Report(ranges, kernel))
    return out


def _overlap(a: Ranges, b: Ranges) -> Ranges:
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def in_both(first: dict[tuple[str, int, int], list[Report]],
            second: dict[tuple[str, int, int], list[Report]]) -> list[Unwritten]:
    """The allocations whose bytes held the fill in both runs (the n-th allocation of a place
    in one run against the n-th in the other), in the order of the second report.

    An allocation no kernel was given (in either run) while it held fill bytes is left out
    when another one was given to a kernel: the report does not record copies or pointers
    stored in other buffers, so it is kept, as the only lead, when no kernel took any."""
    out = []
    for key, allocations in second.items():
        for a, b in zip(first.get(key, []), allocations, strict=False):
            both = _overlap(a.ranges, b.ranges)
            if both:
                out.append(Unwritten(key[0], key[1], key[2], sum(e - s for s, e in both),
                                     both[0][0], *(b.kernel if b.kernel[0] else a.kernel)))
                break  # one note per place
    if any(u.kernel for u in out):
        out = [u for u in out if u.kernel]
    return out
