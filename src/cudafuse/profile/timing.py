"""The measurement loop: CUDA event pairs around each iteration, with the L2 cache flushed
before each one. GPU only; PyCUDA is imported when `measure` runs, not before.

Each iteration is:  memset(scratch) ; record(start) ; launch() ; record(end) ; wait(end).
All on the legacy default stream, which the memset and the events use: the start event
fires after the flush completes, and the end event after all work `launch` queued there.
Work on other streams must be joined back to the legacy stream before `launch` returns:
the 'streams' launcher does that with an event its caller's stream waits for (its side
stream is non-blocking, so nothing else orders it), and programs must not be built with
--default-stream per-thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from cudafuse.profile.device import load_driver


@dataclass(frozen=True)
class TimingPlan:
    # Untimed iterations first: the first launch loads the module and the clocks of an idle
    # GPU ramp up over tens of milliseconds (HFuse runs a dummy kernel for ~500 ms first).
    warmup_iterations: int = 3
    warmup_ms: float = 100.0
    # Timed iterations: at least min_iterations, and more until they add up to
    # min_total_ms, so that short kernels get enough samples for a stable median.
    min_iterations: int = 20
    min_total_ms: float = 250.0
    max_iterations: int = 2000
    # The flush writes this many times the L2 size: writing more than L2 holds evicts
    # whatever the previous iteration left there, so every iteration starts cold, as a
    # kernel in a pipeline whose inputs were written long before would.
    flush_factor: float = 2.0

    def __post_init__(self) -> None:
        if not 1 <= self.min_iterations <= self.max_iterations:
            raise ValueError("need 1 <= min_iterations <= max_iterations")
        if self.warmup_iterations < 0 or self.warmup_ms < 0 or self.min_total_ms < 0 or \
                self.flush_factor < 0:
            raise ValueError("warm-up, total time and flush factor must not be negative")

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def flush_bytes(l2_bytes: int, factor: float) -> int:
    """The scratch buffer's size, rounded up to whole MiB (0: no flush)."""
    if l2_bytes <= 0 or factor <= 0:
        return 0
    mib = 1 << 20
    return -(-int(l2_bytes * factor) // mib) * mib


def measure(launch: Callable[[], object], plan: TimingPlan | None = None, *,
            l2_bytes: int | None = None, driver: Any = None) -> list[float]:
    """Per-iteration milliseconds of `launch()`, which must queue the work to time (the
    fused kernel, or both native kernels) and return without synchronising. Needs a
    current context. `l2_bytes` defaults to the device's L2_CACHE_SIZE; `driver` is
    pycuda.driver unless a test passes a stand-in."""
    plan = plan or TimingPlan()
    drv = driver if driver is not None else load_driver()
    if l2_bytes is None:
        l2_bytes = drv.Context.get_device().get_attribute(drv.device_attribute.L2_CACHE_SIZE)
    size = flush_bytes(int(l2_bytes), plan.flush_factor)
    scratch = drv.mem_alloc(size) if size else None
    start, end = drv.Event(), drv.Event()

    def once(i: int) -> float:
        if scratch is not None:
            drv.memset_d8(scratch, i & 0xFF, size)
        start.record()
        launch()
        end.record()
        end.synchronize()
        return float(start.time_till(end))

    try:
        warm, i = 0.0, 0
        while i < plan.warmup_iterations or warm < plan.warmup_ms:
            warm += once(i)
            i += 1
            if i >= plan.max_iterations:  # a kernel too short to fill warmup_ms: enough
                break
        times: list[float] = []
        while len(times) < plan.max_iterations and (
                len(times) < plan.min_iterations or sum(times) < plan.min_total_ms):
            times.append(once(len(times)))
        return times
    finally:
        if scratch is not None:
            scratch.free()
