"""The candidate set: sizes, caps, order, ids and the reasons for what is left out."""

from __future__ import annotations

import pytest

from cudafuse.passes.horizontal.regbound import SMS, Resources
from cudafuse.profile.candidates import (
    Candidate,
    CandidateOptions,
    generate,
    hfuse_bound,
    regcaps_around,
    thread_counts,
)
from cudafuse.profile.records import Record


def const(value: int | None):
    return lambda mode, t1, t2: value


def test_regcaps_around() -> None:
    assert regcaps_around(64) == (None, 56, 64, 72, 80)
    # 16 - 8 clamps to 16, the bound itself: one 16.
    assert regcaps_around(16) == (None, 16, 24, 32)
    # 258 and 266 clamp to 255.
    assert regcaps_around(250) == (None, 242, 250, 255)
    assert regcaps_around(None) == (None,)
    assert regcaps_around(64, ()) == (None, 64)


def test_thread_counts() -> None:
    assert thread_counts(256, False, 128, 992) == (256,)
    assert thread_counts(96, True, 128, 992) == (96, 128, 256, 384, 512, 640, 768, 896)
    assert thread_counts(256, True, 256, 992) == (256, 512, 768)


def test_fixed_sizes_every_cap_in_order() -> None:
    got = generate(CandidateOptions(256, 128), const(64))
    caps = ["none", "56", "64", "72", "80"]
    assert [c.id for c in got.candidates] == \
        [f"thread:256+128:r{c}" for c in caps] + [f"block:256+128:r{c}" for c in caps]
    assert [b.id for b in got.baselines] == ["streams", "sequential"]
    assert got.skipped == ()
    assert got.candidates[0] == Candidate("thread", 256, 128, None)
    assert got.candidates[0].threads == 384 and got.candidates[5].threads == 256


def test_tunable_splits_and_skipped_over_1024() -> None:
    opts = CandidateOptions(256, 128, tunable1=True, tunable2=True, step=256,
                            modes=("thread",))
    got = generate(opts, None)
    # Part 1: {256} u {256, 512, 768}; part 2: {128} u {256, 512, 768} (up to 1024 - 32).
    assert [c.id for c in got.candidates] == [
        "thread:256+128:rnone", "thread:256+256:rnone", "thread:256+512:rnone",
        "thread:256+768:rnone", "thread:512+128:rnone", "thread:512+256:rnone",
        "thread:512+512:rnone", "thread:768+128:rnone", "thread:768+256:rnone"]
    assert [(s.id, s.reason) for s in got.skipped] == [
        ("thread:512+768", "the fused block would have 1280 threads; a block has at most "
                           "1024"),
        ("thread:768+512", "the fused block would have 1280 threads; a block has at most "
                           "1024"),
        ("thread:768+768", "the fused block would have 1536 threads; a block has at most "
                           "1024")]


def test_one_tunable_part_keeps_the_other_native() -> None:
    opts = CandidateOptions(256, 128, tunable1=True, modes=("thread",))
    splits = [(c.threads1, c.threads2) for c in generate(opts).candidates]
    assert splits == [(128, 128), (256, 128), (384, 128), (512, 128), (640, 128),
                      (768, 128), (896, 128)]


def test_caps_that_cannot_launch_are_skipped() -> None:
    got = generate(CandidateOptions(512, 512), const(64))
    thread = [c.regcap for c in got.candidates if c.mode == "thread"]
    # 1024 threads: 64 x 32 warps x 32 = 65536 fits; 72 and 80 do not.
    assert thread == [None, 56, 64]
    assert [s.id for s in got.skipped] == ["thread:512+512:r72", "thread:512+512:r80"]
    assert got.skipped[0].reason == (
        "regcap 72 with 1024 threads per block: needs 73728 registers per block (1024 threads "
        "x 72 allocated per thread), a block may have at most 65536")
    # Block mode: 512 threads x 80 = 40960 registers, all five caps.
    assert [c.regcap for c in got.candidates if c.mode == "block"] == [None, 56, 64, 72, 80]


def test_part_not_a_whole_number_of_warps() -> None:
    got = generate(CandidateOptions(100, 128), None)
    assert [c.id for c in got.candidates] == ["block:100+128:rnone"]
    assert [(s.id, s.reason) for s in got.skipped] == [
        ("thread:100+128", "part 1's 100 threads are not a multiple of 32 (its barrier "
                           "counts whole warps)")]


def test_bound_is_asked_per_mode_and_split() -> None:
    asked = []

    def bound(mode: str, t1: int, t2: int) -> int | None:
        asked.append((mode, t1, t2))
        return 40 if mode == "thread" else None

    got = generate(CandidateOptions(256, 128), bound)
    assert asked == [("thread", 256, 128), ("block", 256, 128)]
    assert [c.id for c in got.candidates][-1] == "block:256+128:rnone"
    assert len(got.candidates) == 6


def test_options_are_checked_and_serialised() -> None:
    with pytest.raises(ValueError, match="multiple of 32"):
        CandidateOptions(256, 128, step=100)
    with pytest.raises(ValueError, match="modes"):
        CandidateOptions(256, 128, modes=("warp",))
    assert CandidateOptions(256, 128, tunable2=True).to_json() == {
        "threads": [256, 128], "tunable": [False, True], "step": 128,
        "regcap_offsets": [-8, 8, 16], "modes": ["thread", "block"]}


def test_hfuse_bound_per_mode() -> None:
    bound = hfuse_bound(Resources(64, 0), Resources(20, 0), SMS["sm_90"])
    # Thread mode, 256 + 256: b1 = 65536 / (256 x 64) = 4 -> 65536 / (4 x 512) = 32.
    assert bound("thread", 256, 256) == 32
    # Block mode, a 256-thread block: b1 = 4, b2 = 12, threads 8 -> 65536 / (4 x 256) = 64.
    assert bound("block", 256, 256) == 64


def test_records_of_skipped_ids() -> None:
    split = Record.of(generate(CandidateOptions(100, 128), None).skipped[0])
    assert (split.kind, split.threads, split.regcap) == ("thread", (100, 128), None)
    assert split.skip is not None and split.verified is None
    capped = Record.of(generate(CandidateOptions(512, 512), const(64)).skipped[0])
    assert (capped.id, capped.threads, capped.regcap) == ("thread:512+512:r72", (512, 512), 72)


def test_block_mode_over_1024_threads() -> None:
    got = generate(CandidateOptions(1056, 128, modes=("block",)), const(32))
    assert got.candidates == ()
    assert [(s.id, s.mode, s.threads1, s.regcap, s.reason) for s in got.skipped] == [
        ("block:1056+128", "block", 1056, None,
         "a block of 1056 threads; a block has at most 1024")]
