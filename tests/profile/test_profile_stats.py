"""Timing summaries (quartiles worked by hand) and the clearly-faster rule."""

from __future__ import annotations

import math
import statistics

import pytest

from cudafuse.profile.stats import Summary, clearly_faster, relative_gain, summarize


def test_even_count() -> None:
    # Sorted 1 2 3 4: median at position 1.5 -> 2.5, q1 at 0.75 -> 1.75, q3 at 2.25 -> 3.25.
    s = summarize([4.0, 1.0, 3.0, 2.0])
    assert (s.median, s.q1, s.q3, s.min, s.max, s.count) == (2.5, 1.75, 3.25, 1.0, 4.0, 4)
    assert s.iqr == 1.5 and s.spread == 0.6
    assert s.samples == (4.0, 1.0, 3.0, 2.0)  # kept in measurement order
    # The same convention as the standard library's inclusive quantiles.
    assert statistics.quantiles([1, 2, 3, 4], n=4, method="inclusive") == [1.75, 2.5, 3.25]


def test_odd_count_and_outlier() -> None:
    # Sorted 1 3 5 7 100: median 5, q1 at position 1 -> 3, q3 at 3 -> 7; the 100 moves none.
    s = summarize([100.0, 1.0, 7.0, 3.0, 5.0])
    assert (s.median, s.q1, s.q3, s.max) == (5.0, 3.0, 7.0, 100.0)


def test_single_sample() -> None:
    s = summarize([2.0])
    assert (s.median, s.iqr, s.spread, s.count) == (2.0, 0.0, 0.0, 1)


def test_rejects_nothing_and_nonsense() -> None:
    for bad in ([], [1.0, math.nan], [1.0, -0.5], [math.inf]):
        with pytest.raises(ValueError):
            summarize(bad)


def test_json_round_trip_uses_samples() -> None:
    s = summarize([1.0, 2.0, 4.0])
    data = s.to_json()
    assert data["median_ms"] == 2.0 and data["iqr_ms"] == 1.5 and data["count"] == 3
    # Derived figures in the document are not trusted: the samples are.
    data["median_ms"] = 99.0
    assert Summary.from_json(data) == s
    with pytest.raises(ValueError):
        Summary.from_json({"median_ms": 1.0})
    with pytest.raises(ValueError):
        Summary.from_json({"samples_ms": [1.0, "2"]})


def test_clearly_faster() -> None:
    base = summarize([0.995, 1.0, 1.005])  # median 1.0, IQR 0.005
    fast = summarize([0.895, 0.9, 0.905])  # median 0.9: 10% less, gap 0.1 > 0.0025
    assert clearly_faster(fast, base) and not clearly_faster(base, fast)
    assert relative_gain(fast, base) == pytest.approx(0.1)
    # 2% less time is inside the 3% margin, however tight the spread.
    near = summarize([0.979, 0.98, 0.981])
    assert not clearly_faster(near, base)
    assert clearly_faster(near, base, margin=0.01)
    # 10% less time but the baseline's middle half spans 0.3 ms: half of it, 0.15, exceeds
    # the 0.1 gap; the distributions overlap.
    noisy = summarize([0.7, 0.85, 1.0, 1.15, 1.3])  # median 1.0, q1 0.85, q3 1.15
    assert noisy.iqr == pytest.approx(0.3)
    assert not clearly_faster(fast, noisy)
