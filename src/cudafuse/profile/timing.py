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

import math
import time
import weakref
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from cudafuse.profile.device import load_driver


@dataclass(frozen=True)
class TimingPlan:
    # Untimed iterations first: the first launch loads the module and the clocks of an idle
    # GPU ramp up over tens of milliseconds (HFuse runs a dummy kernel for ~500 ms first).
    # warmup_ms applies only when this process has not kept the GPU busy within the last
    # rewarm_after_s seconds: a profiling run times one program after another, and only
    # the first of them meets an idle GPU.
    warmup_iterations: int = 3
    warmup_ms: float = 100.0
    rewarm_after_s: float = 2.0
    # Timed iterations: at least min_iterations adding up to at least min_total_ms; then
    # more, up to max_total_ms (and max_iterations), until the median is known to within
    # `precision` of itself (its standard error estimated from the interquartile range,
    # see median_error); precision None: stop at the minimum.
    min_iterations: int = 20
    min_total_ms: float = 25.0
    max_iterations: int = 2000
    max_total_ms: float = 250.0
    precision: float | None = 0.0025
    # The flush writes this many times the L2 size: writing more than L2 holds evicts
    # whatever the previous iteration left there, so every iteration starts cold, as a
    # kernel in a pipeline whose inputs were written long before would.
    flush_factor: float = 2.0

    def __post_init__(self) -> None:
        if not 1 <= self.min_iterations <= self.max_iterations:
            raise ValueError("need 1 <= min_iterations <= max_iterations")
        if self.warmup_iterations < 0 or self.warmup_ms < 0 or self.min_total_ms < 0 or \
                self.max_total_ms < 0 or self.flush_factor < 0 or self.rewarm_after_s < 0:
            raise ValueError("warm-up, total times and flush factor must not be negative")
        if self.precision is not None and not 0 < self.precision < 1:
            raise ValueError("precision is a fraction of the median, above 0 and below 1")

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    def enough(self, times: list[float]) -> bool:
        """May the timed loop stop after these iterations?"""
        n, total = len(times), sum(times)
        if n >= self.max_iterations:
            return True
        if n < self.min_iterations or total < self.min_total_ms:
            return False
        if self.precision is None or total >= max(self.max_total_ms, self.min_total_ms):
            return True
        # Past 64 iterations, sorting them each time would cost more than a short kernel
        # runs: look every 8th.
        if n > 64 and n % 8:
            return False
        median, error = median_error(times)
        return error <= self.precision * median


def median_error(times: list[float]) -> tuple[float, float]:
    """The median of `times` and its standard error, estimated robustly: the standard
    deviation of a normal sample is its interquartile range / 1.349, and the median of n
    draws has a standard error of sqrt(pi / 2) = 1.2533 standard deviations / sqrt(n).
    GPU timings are not normal (outliers are slow ones), but the IQR ignores the tails,
    and the rule only decides when to stop, not what is faster (profile.stats does)."""
    ordered = sorted(times)
    n = len(ordered)

    def q(p: float) -> float:
        pos = p * (n - 1)
        low = int(pos)
        high = min(low + 1, n - 1)
        return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)

    return q(0.5), 1.2533 * (q(0.75) - q(0.25)) / 1.349 / math.sqrt(n)


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
        idle = time.monotonic() - _busy_until.get(drv, -math.inf)
        warm_ms = plan.warmup_ms if idle > plan.rewarm_after_s else 0.0
        while i < plan.warmup_iterations or warm < warm_ms:
            warm += once(i)
            i += 1
            if i >= plan.max_iterations:  # a kernel too short to fill warmup_ms: enough
                break
        times: list[float] = []
        while not times or not plan.enough(times):
            times.append(once(len(times)))
        return times
    finally:
        if scratch is not None:
            scratch.free()
        _busy_until[drv] = time.monotonic()


# When this process last had the GPU busy with timed work (time.monotonic()), by driver
# (pycuda.driver, or a test's stand-in).
_busy_until: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()
