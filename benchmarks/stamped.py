"""A profiling command run with its error output (the profiler's phases: building,
verifying and timing, confirming) passed on as it comes, each line stamped with the seconds
since the start, so that a GPU session's log shows where a row's or a pair's time went."""

from __future__ import annotations

import subprocess
import sys
import time


def run_stamped(cmd: list[str], stdout: int | None = None) -> tuple[int, str]:
    """Run `cmd` (its standard output to `stdout`: inherited by default); (exit status,
    its error output)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, text=True,
                            errors="replace")
    assert proc.stderr is not None
    said = []
    for line in proc.stderr:
        sys.stderr.write(f"  [{time.perf_counter() - start:5.1f}s] {line}")
        sys.stderr.flush()
        said.append(line)
    return proc.wait(), "".join(said)
