"""Selection: fastest verified fused candidate, only if clearly faster than native."""

from __future__ import annotations

import pytest

from cudafuse.profile.records import Record
from cudafuse.profile.select import SelectionError, select
from cudafuse.profile.stats import summarize


def timed(ident: str, median: float, kind: str = "thread", width: float = 0.002,
          **fields: object) -> Record:
    # Sorted m - w, m, m + w: q1 = m - w/2 and q3 = m + w/2, so the IQR is w.
    samples = [median - width, median, median + width]
    return Record(ident, kind, verified=True, timing=summarize(samples), **fields)  # type: ignore[arg-type]


def baselines(streams: float = 1.0, sequential: float = 1.5) -> list[Record]:
    return [timed("streams", streams, "streams"), timed("sequential", sequential, "sequential")]


def test_fastest_fused_wins_when_clearly_faster() -> None:
    records = [timed("thread:256+128:rnone", 0.85, threads=(256, 128)),
               timed("thread:256+128:r64", 0.8, width=0.004, threads=(256, 128), regcap=64,
                     registers=64),
               *baselines()]
    sel = select(records)
    assert sel.choice.id == "thread:256+128:r64" and not sel.native
    assert sel.fastest_fused is sel.choice
    # (1 - 0.8) / 1 = 20.0%; (1.5 - 0.8) / 1.5 = 46.7%.
    assert sel.lines[0] == ("chose thread:256+128:r64: median 0.8 ms, 20.0% less time than "
                            "streams (1 ms); 46.7% less time than sequential (1.5 ms)")
    # Spread: IQR 0.004 / median 0.8 = 0.5%.
    assert sel.lines[1] == "  thread:256+128:r64: 0.8 ms (spread 0.5%, 3 runs, 64 registers)"
    assert sel.lines[2].startswith("  thread:256+128:rnone: 0.85 ms")


def test_native_kept_when_not_clearly_faster() -> None:
    sel = select([timed("block:256+128:rnone", 0.99, "block"), *baselines()])
    assert sel.native and sel.choice.id == "streams"
    assert sel.fastest_fused is not None and sel.fastest_fused.id == "block:256+128:rnone"
    assert sel.lines[0].startswith(
        "kept the native kernels (streams, median 1 ms): the fastest fused candidate, "
        "block:256+128:rnone (0.99 ms, 1.0% less time), is not clearly faster")
    assert sel.lines[0].endswith("; 33.3% less time than sequential (1.5 ms)")


def test_slower_fused_never_chosen() -> None:
    sel = select([timed("thread:128+128:rnone", 1.2), *baselines()])
    assert sel.native and "20.0% more time" in sel.lines[0]


def test_margin_decides_a_close_call() -> None:
    records = [timed("thread:256+128:rnone", 0.96), *baselines()]
    assert not select(records).native  # 4% > 3%
    assert select(records, margin=0.05).native


def test_ties_keep_generation_order() -> None:
    records = [timed("thread:128+128:rnone", 0.5), timed("thread:256+128:rnone", 0.5),
               *baselines()]
    assert select(records).choice.id == "thread:128+128:rnone"


def test_wrong_candidate_is_an_error_not_a_result() -> None:
    records = [timed("thread:256+128:rnone", 0.5),
               Record("thread:256+128:r56", "thread", verified=False),
               Record("block:256+128:rnone", "block", verified=False), *baselines()]
    with pytest.raises(SelectionError, match="thread:256\\+128:r56, block:256\\+128:rnone"):
        select(records)


def test_timing_without_verification_is_refused() -> None:
    unverified = Record("thread:256+128:rnone", "thread", timing=summarize([0.5]))
    with pytest.raises(SelectionError, match="timed without verification"):
        select([unverified, *baselines()])


def test_needs_the_streams_baseline() -> None:
    with pytest.raises(SelectionError, match="streams"):
        select([timed("thread:256+128:rnone", 0.5), timed("sequential", 1.5, "sequential")])
    with pytest.raises(SelectionError, match="streams"):
        select([Record("streams", "streams", verified=True)])


def test_repeated_ids_are_refused() -> None:
    with pytest.raises(SelectionError, match="repeat"):
        select([timed("streams", 1.0, "streams"), timed("streams", 1.0, "streams")])


def test_nothing_timed_and_skips_explained() -> None:
    records = [Record("thread:512+768", "thread", (512, 768),
                      skip="the fused block would have 1280 threads; a block has at most 1024"),
               timed("streams", 1.0, "streams")]
    sel = select(records)
    assert sel.native and sel.fastest_fused is None
    assert sel.lines == (
        "kept the native kernels (streams, median 1 ms): no fused candidate was timed",
        "skipped thread:512+768: the fused block would have 1280 threads; a block has at "
        "most 1024")


def test_ranking_is_cut_at_five() -> None:
    records = [timed(f"thread:{32 * (i + 1)}+128:rnone", 0.5 + i / 100) for i in range(7)]
    lines = select([*records, *baselines()]).lines
    assert lines[6] == "  ... and 2 more timed candidates" and len(lines) == 7
