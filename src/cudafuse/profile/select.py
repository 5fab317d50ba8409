"""Choosing what `cudafuse hfuse --profile` hands back: the fastest verified fused kernel,
or the native kernels when no fused kernel is clearly faster than them.

The guarantee: the choice is never slower than the native kernels on two streams (the
'streams' baseline), as far as the measurements can tell, because a fused kernel replaces
them only when `clearly_faster` says so. A candidate whose outputs differed from the
natives' is not a slow candidate but a compiler bug: selection refuses to choose at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cudafuse.profile.records import Record
from cudafuse.profile.stats import Summary, clearly_faster, relative_gain

DEFAULT_MARGIN = 0.03
RANKED_LINES = 5  # how many of the fastest candidates the explanation lists


class SelectionError(Exception):
    """The records do not allow a choice (a wrong fused kernel, no native timing)."""


@dataclass(frozen=True)
class Selection:
    choice: Record  # a fused candidate, or the 'streams' baseline
    fastest_fused: Record | None  # the best verified, timed fused candidate, chosen or not
    margin: float
    lines: tuple[str, ...]

    @property
    def native(self) -> bool:
        """True when the native kernels were kept: nothing fused is worth handing back."""
        return not self.choice.fused


def _ms(s: Summary) -> str:
    return f"{s.median:.4g} ms"


def _pct(fraction: float) -> str:
    return f"{abs(fraction) * 100:.1f}% {'less' if fraction >= 0 else 'more'} time"


def select(records: Sequence[Record], margin: float = DEFAULT_MARGIN) -> Selection:
    ids = [r.id for r in records]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise SelectionError(f"records repeat the ids {', '.join(repeated)}")
    wrong = [f"{r.id} ({r.skip})" if r.skip else r.id for r in records
             if r.verified is False]
    if wrong:
        raise SelectionError(
            f"{len(wrong)} configuration(s) computed different results from the native "
            f"kernels: {', '.join(wrong)}. A fused kernel that is wrong is a bug in cudafuse, "
            "not a slow candidate; nothing is chosen (please report it with --report)")
    unverified = [r.id for r in records if r.timing is not None and r.verified is not True]
    if unverified:
        raise SelectionError(f"timed without verification: {', '.join(unverified)} "
                             "(every configuration must be verified before it is timed)")
    by_id = {r.id: r for r in records}
    streams, sequential = by_id.get("streams"), by_id.get("sequential")
    if streams is None or streams.timing is None:
        raise SelectionError("no timing for the 'streams' baseline (the native kernels on "
                             "two streams): without it no fused kernel can be shown not to "
                             "be slower than native")

    # Stable: equal medians keep the candidates' generation order.
    timed = sorted((r for r in records if r.fused and r.timing is not None),
                   key=lambda r: r.timing.median if r.timing else 0.0)
    best = timed[0] if timed else None
    lines: list[str] = []
    base = streams.timing
    if best is not None and best.timing is not None and \
            clearly_faster(best.timing, base, margin):
        choice = best
        head = (f"chose {best.id}: median {_ms(best.timing)}, "
                f"{_pct(relative_gain(best.timing, base))} than streams ({_ms(base)})")
    else:
        choice = streams
        head = f"kept the native kernels (streams, median {_ms(base)})"
        if best is None or best.timing is None:
            head += ": no fused candidate was timed"
        else:
            half = max(best.timing.iqr, base.iqr) / 2
            head += (f": the fastest fused candidate, {best.id} ({_ms(best.timing)}, "
                     f"{_pct(relative_gain(best.timing, base))}), is not clearly faster "
                     f"(that needs more than {margin * 100:g}% less time and a gap above "
                     f"half the larger interquartile range, {half:.3g} ms)")
    if sequential is not None and sequential.timing is not None:
        chosen = choice.timing if choice.timing is not None else base
        head += (f"; {_pct(relative_gain(chosen, sequential.timing))} than sequential "
                 f"({_ms(sequential.timing)})")
    lines.append(head)
    for r in timed[:RANKED_LINES]:
        t = r.timing
        assert t is not None
        occ = (f", {r.occupancy.blocks_per_sm} blocks/SM ({r.occupancy.limit})"
               if r.occupancy else "")
        regs = f", {r.registers} registers" if r.registers is not None else ""
        lines.append(f"  {r.id}: {_ms(t)} (spread {t.spread * 100:.1f}%, {t.count} runs"
                     f"{regs}{occ})")
    if len(timed) > RANKED_LINES:
        lines.append(f"  ... and {len(timed) - RANKED_LINES} more timed candidates")
    for r in records:
        if r.skip and r.same_as is None:
            lines.append(f"skipped {r.id}: {r.skip}")
        elif r.note:
            lines.append(f"note: {r.id} {r.note}")
    # One line, not one per split: these are no configurations of their own.
    same = [r for r in records if r.same_as is not None]
    if same:
        lines.append(f"not timed: {len(same)} register cap(s) compiled to the same machine "
                     "code as another candidate of their split (the report's same_as names "
                     "it)")
    return Selection(choice, best, margin, tuple(lines))
