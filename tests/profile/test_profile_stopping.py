"""The timing loop's stopping rule (TimingPlan.enough: a precise median stops early, a noisy
one runs to max_total_ms) and the warm-up skipped when the GPU was busy a moment ago, with
the stand-in driver of test_profile_timing."""

from __future__ import annotations

import math

import pytest

from cudafuse.profile.timing import TimingPlan, measure, median_error


class FakeDriver:
    """Events whose elapsed times come from a script (measure() at l2_bytes=0 needs no
    more of pycuda.driver)."""

    def __init__(self, times: list[float]):
        self.times = list(times)
        fake = self

        class Event:
            def record(self) -> None:
                pass

            def synchronize(self) -> None:
                pass

            def time_till(self, other: object) -> float:
                return fake.times.pop(0)

        self.Event = Event


def test_median_error_from_the_interquartile_range() -> None:
    median, err = median_error([1.0, 2.0, 3.0, 4.0, 5.0])
    # q1 = 2, q3 = 4: sigma ~ 2 / 1.349, se = 1.2533 sigma / sqrt(5).
    assert median == 3.0 and err == pytest.approx(1.2533 * 2 / 1.349 / math.sqrt(5))
    assert median_error([2.0] * 30) == (2.0, 0.0)


def test_a_steady_kernel_stops_at_the_minimum() -> None:
    drv = FakeDriver([0.5] * 100)
    plan = TimingPlan(warmup_iterations=0, warmup_ms=0, min_iterations=20, min_total_ms=5)
    assert measure(lambda: None, plan, l2_bytes=0, driver=drv) == [0.5] * 20


def test_a_noisy_kernel_runs_on_until_its_median_is_known_or_the_cap() -> None:
    # Alternating 1 and 2 ms: the IQR is 1 ms whatever n, so the error falls as 1/sqrt(n):
    # 0.929 / sqrt(n) <= 0.05 * 1.5 needs n >= 154; the cap (max_total_ms 150) comes first.
    noisy = [1.0, 2.0] * 200
    plan = TimingPlan(warmup_iterations=0, warmup_ms=0, min_iterations=20, min_total_ms=10,
                      max_total_ms=150, precision=0.05)
    times = measure(lambda: None, plan, l2_bytes=0, driver=FakeDriver(noisy))
    assert sum(times) >= 150 and len(times) == 100
    # Noise that dies down: 20 iterations of 1 and 2 ms, then steady 1.5 ms. The middle
    # half of the times is all 1.5 from n = 41 on (IQR 0); at n = 40 it still reaches from
    # 1.375 to 1.625 (error 0.037 ms, above 1% of 1.5).
    settling = [1.0, 2.0] * 10 + [1.5] * 300
    plan = TimingPlan(warmup_iterations=0, warmup_ms=0, min_iterations=20, min_total_ms=10,
                      max_total_ms=250, precision=0.01)
    times = measure(lambda: None, plan, l2_bytes=0, driver=FakeDriver(settling))
    assert len(times) == 41
    # precision None: the minimum alone, as before the rule.
    fixed = TimingPlan(warmup_iterations=0, warmup_ms=0, min_iterations=20, min_total_ms=10,
                       precision=None)
    assert len(measure(lambda: None, fixed, l2_bytes=0, driver=FakeDriver(noisy))) == 20


def test_the_warm_up_by_time_only_after_an_idle_spell() -> None:
    drv = FakeDriver([10.0] * 100)
    plan = TimingPlan(warmup_iterations=1, warmup_ms=50, min_iterations=2, min_total_ms=0,
                      precision=None)
    measure(lambda: None, plan, l2_bytes=0, driver=drv)
    assert len(drv.times) == 100 - 5 - 2  # idle GPU: 5 warm-up iterations (50 ms)
    measure(lambda: None, plan, l2_bytes=0, driver=drv)
    assert len(drv.times) == 93 - 1 - 2  # busy a moment ago: warmup_iterations only
    cold = TimingPlan(warmup_iterations=1, warmup_ms=50, min_iterations=2, min_total_ms=0,
                      precision=None, rewarm_after_s=0)
    measure(lambda: None, cold, l2_bytes=0, driver=drv)
    assert len(drv.times) == 90 - 5 - 2


def test_plan_checks() -> None:
    with pytest.raises(ValueError, match="precision"):
        TimingPlan(precision=0)
    with pytest.raises(ValueError, match="negative"):
        TimingPlan(max_total_ms=-1)
    # A minimum above the cap: the minimum wins (the cap bounds only the extension).
    plan = TimingPlan(min_iterations=1, min_total_ms=300, max_total_ms=250, precision=0.01)
    assert not plan.enough([100.0, 100.0]) and plan.enough([100.0, 100.0, 100.0])
