"""A stand-in for the few pycuda.driver calls `timing.measure` makes, timing with the host's
clock: what `--profile --backend emu` measures with.

Under the emulator a run finishes before the call returns, so an "event" is the moment it
is recorded. The times are of the CPU emulation and say nothing about a GPU; they exist so
that the whole profiling run (compile, verify, time, select, report, cache) can run and be
tested on a machine without one. There is no cache to flush.
"""

from __future__ import annotations

import time


class _Event:
    def __init__(self) -> None:
        self.at = 0.0

    def record(self) -> None:
        self.at = time.perf_counter()

    def synchronize(self) -> None:
        pass

    def time_till(self, other: _Event) -> float:
        return (other.at - self.at) * 1000.0


class HostClock:
    """Passed as `driver=` to timing.measure (with l2_bytes=0)."""

    Event = _Event

    @staticmethod
    def mem_alloc(size: int) -> object:  # pragma: no cover - measure skips it at l2_bytes=0
        raise RuntimeError("the host clock has no device memory")

    @staticmethod
    def memset_d8(*_args: object) -> None:  # pragma: no cover
        raise RuntimeError("the host clock has no device memory")
