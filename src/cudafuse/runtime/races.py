"""Races between the blocks of a launch, told from the emulator's other nondeterminism.

The emulator runs the blocks of a kernel that cannot observe their order on several OS
threads (cudafuse_emu_parallel.h). A program whose blocks do observe it anyway (a kernel
that reads what other blocks of the same launch write: a convolution in place) then gives
results that vary from run to run, as on a GPU. verify runs an original twice; when the two
differ, execute.py runs it again with one thread (CUDAFUSE_EMU_THREADS=1: blocks in increasing
linear id) and, if that is deterministic, once per kernel that ran in parallel with that
kernel's blocks in decreasing order (CUDAFUSE_EMU_REVERSE): a kernel whose reversed order
changes the outputs races between its blocks. The emulator lists those kernels
(CUDAFUSE_EMU_PARALLEL_LOG, one line per launch site), read here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ParallelLaunch:
    """A launch site whose blocks may run in parallel: the kernel as launched, and where."""

    kernel: str
    file: str
    line: int


def read_log(path: str) -> list[ParallelLaunch]:
    """The launch sites the emulator listed, in the order they first ran; [] when the run
    listed none (or wrote no file)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return []
    out: list[ParallelLaunch] = []
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[2].isdigit():
            out.append(ParallelLaunch(parts[0], parts[1], int(parts[2])))
    return out


def kernels(launches: list[ParallelLaunch]) -> list[ParallelLaunch]:
    """One launch (the first) per kernel name: the emulator reverses a kernel by name."""
    seen: dict[str, ParallelLaunch] = {}
    for launch in launches:
        seen.setdefault(launch.kernel, launch)
    return list(seen.values())


@dataclass(frozen=True)
class Race:
    """Outputs that vary only when blocks run in parallel: `launch` is the kernel whose
    reversed block order changed them (None: no single kernel's reversal did)."""

    launch: ParallelLaunch | None
