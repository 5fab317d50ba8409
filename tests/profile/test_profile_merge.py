"""Register caps that buy nothing are one candidate with the one they add nothing to: the
same blocks per SM and no fewer spills (profile.compiled.merge_same)."""

from __future__ import annotations

from pathlib import Path

from cudafuse.cli.hfuse_plan import table
from cudafuse.profile.compiled import merge_same
from cudafuse.profile.occupancy import DeviceLimits, occupancy
from cudafuse.profile.records import Record
from cudafuse.profile.select import select
from cudafuse.profile.stats import summarize

SM90 = DeviceLimits.for_arch("sm_90")


def rec(cap: int | None, regs: int, spills: int = 0, split: tuple[int, int] = (128, 128),
        kind: str = "thread") -> Record:
    threads = sum(split) if kind == "thread" else max(split)
    return Record(f"{kind}:{split[0]}+{split[1]}:r{cap or 'none'}", kind, split, cap, regs, 0,
                  spills, 0, occupancy(SM90, threads, regs))


def test_caps_that_buy_nothing_are_merged_and_the_others_kept() -> None:
    # 256 threads: 32 registers allow 8 blocks per SM, 40 allow 6, 24 allow 8.
    records = [rec(None, 32), rec(24, 24, spills=12), rec(32, 31), rec(40, 40), rec(48, 40),
               rec(None, 32, split=(256, 128))]
    out = merge_same(records)
    by_id = {r.id: r for r in out}
    assert [r.id for r in out] == [r.id for r in records]  # nothing dropped from the report
    assert by_id["thread:128+128:rnone"].same_as is None  # the uncapped one always stays
    # Same 8 blocks per SM as no cap: spilling (r24) or not (r32), the cap buys nothing.
    assert by_id["thread:128+128:r24"].same_as == "thread:128+128:rnone"
    assert "12 spill bytes against 0" in (by_id["thread:128+128:r24"].skip or "")
    assert by_id["thread:128+128:r32"].same_as == "thread:128+128:rnone"
    # 6 blocks per SM is another occupancy: kept; r48 compiles to r40's kernel.
    assert by_id["thread:128+128:r40"].same_as is None
    assert by_id["thread:128+128:r48"].same_as == "thread:128+128:r40"
    assert "the same kernel as thread:128+128:r40" in (by_id["thread:128+128:r48"].skip or "")
    # Another split is compared only with its own candidates.
    assert by_id["thread:256+128:rnone"].same_as is None


def test_a_cap_that_removes_spills_is_kept() -> None:
    out = merge_same([rec(None, 64, spills=8), rec(72, 72)])
    assert [r.same_as for r in out] == [None, None]


def test_merged_caps_survive_the_report_and_fold_in_select_and_the_plan_table() -> None:
    records = merge_same([rec(None, 32), rec(32, 31), rec(40, 40), rec(48, 40)])
    assert [Record.from_json(r.to_json()) for r in records] == records
    timed = [Record("streams", "streams", verified=True, timing=summarize([1.0] * 5)),
             *(r if r.skip else Record(**{**r.__dict__, "verified": True,
                                          "timing": summarize([2.0] * 5)})
               for r in records)]
    lines = select(timed).lines
    assert not any(line.startswith("skipped thread:128+128:r32") for line in lines)
    assert "not timed: 2 register cap(s) that buy no block per SM" in lines[-1]
    rows = table(records)
    assert [r.split()[0] for r in rows[1:-1]] == ["thread:128+128:rnone",
                                                   "thread:128+128:r40"]
    assert rows[1].endswith("(also r32)") and rows[2].endswith("(also r48)")
    assert "2 register cap(s) folded" in rows[-1]


def test_plan_cache_round_trip_and_an_unwritable_cache(tmp_path: Path) -> None:
    from cudafuse.profile.cache import ResultsCache
    from cudafuse.profile.plancache import cached_plan, plan_key_inputs

    records = merge_same([rec(None, 32), rec(32, 31)])
    calls: list[int] = []

    def compute() -> list[Record]:
        calls.append(1)
        return records

    key = plan_key_inputs(sources=[b"a", b"b"], options={"arch": "sm_90"})
    cache = ResultsCache(tmp_path / "c")
    assert cached_plan(cache, key, compute) == (records, None)
    got, hit = cached_plan(cache, key, compute)
    assert got == records and hit is not None and hit.exists() and len(calls) == 1
    other = plan_key_inputs(sources=[b"a", b"c"], options={"arch": "sm_90"})
    assert cached_plan(cache, other, compute)[1] is None and len(calls) == 2
    (tmp_path / "file").write_text("")
    blocked = ResultsCache(tmp_path / "file" / "c")  # under a file: cannot be created
    assert cached_plan(blocked, key, compute) == (records, None)
