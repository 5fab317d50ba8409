"""The timing loop against a stand-in driver (its logic), without PyCUDA (the error), and
on a real GPU (marked gpu)."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from cudafuse.profile.device import DeviceInfo, GpuUnavailable, load_driver, query_device
from cudafuse.profile.timing import TimingPlan, flush_bytes, measure


class FakeDriver:
    """Just enough of pycuda.driver for measure(): events whose elapsed times come from a
    script, and a log of what ran in which order."""

    class device_attribute:  # noqa: N801 - mirrors pycuda's name
        L2_CACHE_SIZE = "L2_CACHE_SIZE"

    def __init__(self, times: list[float], l2: int = 50 * 10**6):
        self.times = list(times)
        self.log: list[str] = []
        self.events = 0
        fake = self

        class Event:
            def __init__(self) -> None:
                self.name = ("start", "end")[fake.events]
                fake.events += 1

            def record(self, stream: Any = None) -> None:
                fake.log.append(f"record {self.name}")

            def synchronize(self) -> None:
                fake.log.append(f"wait {self.name}")

            def time_till(self, other: Any) -> float:
                return fake.times.pop(0)

        class Device:
            def get_attribute(self, attr: str) -> int:
                assert attr == "L2_CACHE_SIZE"
                return l2

        class Context:
            @staticmethod
            def get_device() -> Device:
                return Device()

        class Buffer:
            def __init__(self, size: int) -> None:
                fake.log.append(f"alloc {size}")

            def free(self) -> None:
                fake.log.append("free")

        self.Event, self.Context, self.mem_alloc = Event, Context, Buffer

    def memset_d8(self, buf: Any, value: int, size: int) -> None:
        self.log.append(f"memset {value} {size}")


def test_flush_bytes() -> None:
    assert flush_bytes(50 * 2**20, 2.0) == 100 * 2**20
    # 80,000,000 B is 76.3 MiB: rounded up to 77 MiB.
    assert flush_bytes(40 * 10**6, 2.0) == 77 * 2**20
    assert flush_bytes(0, 2.0) == 0 and flush_bytes(2**20, 0) == 0


def test_iteration_order_and_stopping_rule() -> None:
    # Warm-up: 2 iterations (warmup_ms 0). Timed: 2 ms each, at least 3 and at least 9 ms:
    # the fifth brings the total to 10 ms.
    drv = FakeDriver([2.0] * 20)
    plan = TimingPlan(warmup_iterations=2, warmup_ms=0, min_iterations=3, min_total_ms=9)
    times = measure(lambda: drv.log.append("launch"), plan, driver=drv)
    assert times == [2.0] * 5
    # The L2 size comes from the device: 2 x 50e6 B = 95.4 MiB, rounded up to 96 MiB.
    size = 96 * 2**20
    assert drv.log[0] == f"alloc {size}" and drv.log[-1] == "free"
    body = drv.log[1:-1]
    # Warm-up iterations 0 and 1, then timed iterations 0 to 4; each writes its index.
    indices = [0, 1, 0, 1, 2, 3, 4]
    assert body == [line for i in indices for line in (
        f"memset {i} {size}", "record start", "launch", "record end", "wait end")]


def test_warmup_by_time_and_iteration_cap() -> None:
    # 30 ms iterations: warm-up needs 1 iteration and 100 ms -> 4 (120 ms); then the cap of
    # 6 timed iterations stops before the 1000 ms total.
    drv = FakeDriver([30.0] * 20)
    plan = TimingPlan(warmup_iterations=1, warmup_ms=100, min_iterations=2,
                      min_total_ms=1000, max_iterations=6)
    times = measure(lambda: None, plan, l2_bytes=0, driver=drv)
    assert times == [30.0] * 6
    assert drv.times == [30.0] * 10  # 4 warm-up + 6 timed taken from the script
    assert not any(line.startswith(("alloc", "memset")) for line in drv.log)  # no L2: no flush


def test_plan_validation() -> None:
    with pytest.raises(ValueError):
        TimingPlan(min_iterations=0)
    with pytest.raises(ValueError):
        TimingPlan(min_iterations=10, max_iterations=5)
    with pytest.raises(ValueError):
        TimingPlan(flush_factor=-1)
    assert TimingPlan().to_json()["flush_factor"] == 2.0


def test_clear_error_without_pycuda(monkeypatch: pytest.MonkeyPatch) -> None:
    # None in sys.modules makes `import pycuda.driver` raise ImportError, as on a machine
    # without PyCUDA (or without libcuda).
    monkeypatch.setitem(sys.modules, "pycuda", None)
    monkeypatch.setitem(sys.modules, "pycuda.driver", None)
    for call in (load_driver, lambda: measure(lambda: None), query_device):
        with pytest.raises(GpuUnavailable, match=r"pip install pycuda"):
            call()


def test_device_info_json() -> None:
    info = DeviceInfo("NVIDIA H100 80GB HBM3", (9, 0), 13000, 132, 52428800)
    assert info.arch == "sm_90"
    assert info.to_json()["clocks"] is None
    assert DeviceInfo.from_json(info.to_json()) == info
    with pytest.raises(ValueError, match="MAJOR.MINOR"):
        DeviceInfo.from_json({**info.to_json(), "compute_capability": "nine"})


@pytest.mark.gpu
def test_measure_on_the_gpu() -> None:
    import pycuda.autoprimaryctx  # noqa: F401
    import pycuda.driver as drv

    size = 256 << 20
    buf = drv.mem_alloc(size)
    try:
        plan = TimingPlan(warmup_iterations=2, warmup_ms=10, min_iterations=5, min_total_ms=20)
        times = measure(lambda: drv.memset_d8(buf, 1, size), plan)
    finally:
        buf.free()
    assert len(times) >= 5 and all(t > 0 for t in times)
    # 256 MiB written at a few TB/s takes tens of microseconds, not seconds.
    assert 0.005 < sorted(times)[len(times) // 2] < 50
