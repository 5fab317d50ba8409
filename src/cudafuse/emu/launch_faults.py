"""Launches a GPU refuses, as the emulator lists them (cudafuse_emu.h, refuse_launch).

On a GPU a launch with an invalid configuration (an empty grid or block, a block over 1024
threads) does not run: it sets cudaErrorInvalidConfiguration and the program goes on. The
emulator does the same, and with CUDAFUSE_EMU_LAUNCH_FAULTS=PATH writes one line per launch
site and configuration to PATH, "file\\tline\\tkernel\\tmessage", so that `run` can show each
at its launch and `verify` can refuse to call a run with one a match.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class LaunchFault:
    file: str  # the launch's file as the build saw it (absolute), "" when not known
    line: int  # 0 for cudaLaunchKernel, whose caller's line the emulator does not know
    kernel: str
    message: str  # "launch of 'k' with an empty grid (0,1,1) ...: on a GPU it fails ..."


def read(path: str | Path) -> list[LaunchFault]:
    """The faults of one run, in the order the program made them; none if the file is
    missing (the run made none)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return []
    out = []
    for row in text.splitlines():
        parts = row.split("\t", 3)
        if len(parts) == 4 and parts[1].isdigit():
            out.append(LaunchFault(parts[0], int(parts[1]), parts[2], parts[3]))
    return out
