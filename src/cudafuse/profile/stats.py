"""Summaries of per-iteration times, and the one comparison the selection rule trusts."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


def quantile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values, interpolating linearly between the two nearest
    ranks: position q * (n - 1). This is numpy's default ("linear"), Excel's QUARTILE.INC
    and `statistics.quantiles(method="inclusive")`, so others can reproduce the figures."""
    if not ordered:
        raise ValueError("quantile of no values")
    pos = q * (len(ordered) - 1)
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


@dataclass(frozen=True)
class Summary:
    """Robust figures of one candidate's times in milliseconds. The samples are kept: they
    are the source of truth, and everything else is derived from them by `summarize`."""

    samples: tuple[float, ...]
    median: float
    min: float
    max: float
    q1: float
    q3: float

    @property
    def count(self) -> int:
        return len(self.samples)

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1

    @property
    def spread(self) -> float:
        """The interquartile range relative to the median: 0.02 means the middle half of
        the iterations lies within a band 2% of the median wide."""
        return self.iqr / self.median if self.median > 0 else 0.0

    def to_json(self) -> dict[str, object]:
        # Derived figures are written for readers of the report; `from_json` ignores them.
        return {"count": self.count, "median_ms": self.median, "min_ms": self.min,
                "max_ms": self.max, "q1_ms": self.q1, "q3_ms": self.q3, "iqr_ms": self.iqr,
                "spread": self.spread, "samples_ms": list(self.samples)}

    @staticmethod
    def from_json(data: Mapping[str, object]) -> Summary:
        samples = data.get("samples_ms")
        if not isinstance(samples, list) or not all(
                isinstance(s, int | float) and not isinstance(s, bool) for s in samples):
            raise ValueError("a timing needs 'samples_ms', a list of numbers")
        return summarize([float(s) for s in samples])


def summarize(times_ms: Sequence[float]) -> Summary:
    if not times_ms:
        raise ValueError("no timings to summarize")
    if any(not math.isfinite(t) or t < 0 for t in times_ms):
        raise ValueError("timings must be finite and not negative")
    ordered = sorted(times_ms)
    return Summary(tuple(times_ms), quantile(ordered, 0.5), ordered[0], ordered[-1],
                   quantile(ordered, 0.25), quantile(ordered, 0.75))


def relative_gain(a: Summary, b: Summary) -> float:
    """How much less time a takes than b, as a fraction of b's median (0.1: 10% less)."""
    return (b.median - a.median) / b.median if b.median > 0 else 0.0


def clearly_faster(a: Summary, b: Summary, margin: float = 0.03) -> bool:
    """True when a is faster than b by more than noise could explain.

    Two conditions, both on medians (a GPU timing's outliers are one-sided: a preempted or
    clock-throttled iteration is slow, never fast, so means chase them and medians do not):

    - a's median is below b's by more than `margin` of b's median. Repeated runs of the
      same kernel on a quiet GPU differ by a percent or so (clocks, L2 state, placement of
      blocks on SMs); a gain below a few percent is not worth a fused kernel that someone
      must maintain and that may behave differently at another size.
    - the gap exceeds half of the larger interquartile range. Half an IQR is how far the
      middle half of one candidate's iterations reaches from its median; a gap inside it
      means the two distributions overlap in their bulk, whatever the medians say.

    The rule is deliberately conservative: it is used to decide that a fused kernel beats
    the native kernels, and a false "faster" hands the user something slower.
    """
    gap = b.median - a.median
    return gap > margin * b.median and gap > max(a.iqr, b.iqr) / 2
