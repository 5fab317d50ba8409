"""Register caps that compile to the same program as another candidate of their split are
one candidate with it: the same machine code and the same ptxas figures
(profile.compiled.merge_same). Equal figures alone, or equal occupancy, are not enough."""

from __future__ import annotations

from pathlib import Path

from cudafuse.cli.hfuse_plan import table
from cudafuse.profile.compiled import merge_same, rank_spilling
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


def test_only_caps_with_the_same_code_and_figures_are_folded() -> None:
    records = [rec(None, 32), rec(24, 24, spills=12), rec(32, 32), rec(40, 40), rec(48, 40),
               rec(56, 40), rec(None, 32, split=(256, 128)), rec(32, 32, split=(256, 128))]
    codes = {"thread:128+128:rnone": "a" * 64, "thread:128+128:r24": "b" * 64,
             "thread:128+128:r32": "a" * 64,  # what ptxas made of no cap
             "thread:128+128:r40": "c" * 64, "thread:128+128:r48": "d" * 64,
             "thread:128+128:r56": "c" * 64,
             "thread:256+128:rnone": "e" * 64, "thread:256+128:r32": "a" * 64}
    out = merge_same(records, codes)
    by_id = {r.id: r for r in out}
    assert [r.id for r in out] == [r.id for r in records]  # nothing dropped from the report
    assert by_id["thread:128+128:rnone"].same_as is None  # the uncapped one always stays
    # The same 8 blocks per SM as no cap, but spilling: other code, so timed.
    assert by_id["thread:128+128:r24"].same_as is None
    assert by_id["thread:128+128:r32"].same_as == "thread:128+128:rnone"
    assert by_id["thread:128+128:r32"].skip == (
        "register cap 32: compiled to the same code as thread:128+128:rnone (machine code "
        "sha256 aaaaaaaaaaaa, 32 registers, 0 spill bytes): one program, not timed twice")
    # r40 and r48: the same figures, other code (another schedule): both timed.
    assert by_id["thread:128+128:r40"].same_as is None
    assert by_id["thread:128+128:r48"].same_as is None
    assert by_id["thread:128+128:r56"].same_as == "thread:128+128:r40"
    # Another split is compared only with its own candidates (r32 has rnone's code of the
    # first split, not of its own).
    assert by_id["thread:256+128:r32"].same_as is None


def test_same_code_with_other_figures_or_no_code_is_not_folded() -> None:
    # ptxas figures differ (a cap that only moves the spill count): not one program.
    out = merge_same([rec(None, 64, spills=8), rec(72, 64)],
                     {"thread:128+128:rnone": "a", "thread:128+128:r72": "a"})
    assert [r.same_as for r in out] == [None, None]
    # A record without a code digest (a cubin that could not be read) is never folded.
    out = merge_same([rec(None, 32), rec(32, 32)], {"thread:128+128:rnone": "a"})
    assert [r.same_as for r in out] == [None, None]


def test_a_cap_that_only_adds_spills_is_ranked_untimed_with_the_reason() -> None:
    # 256 threads: 64 registers allow 4 blocks per SM, 40 allow 6, 24 allow 8.
    records = [rec(None, 64), rec(24, 24, spills=76), rec(40, 40, spills=8), rec(56, 56),
               rec(60, 56, spills=4)]
    out = rank_spilling(records)
    by_id = {r.id: r for r in out}
    # r24 and r40 spill, but buy blocks per SM (8 and 6 against 4): timed.
    assert by_id["thread:128+128:r24"].skip is None
    assert by_id["thread:128+128:r40"].skip is None
    assert by_id["thread:128+128:r56"].skip is None
    # r60 spills 4 bytes where r56 and rnone spill none at 4 blocks/SM: ranked, not
    # folded (other code), its figures kept.
    r60 = by_id["thread:128+128:r60"]
    assert r60.same_as is None and r60.registers == 56
    assert r60.skip == ("register cap 60: ranked below thread:128+128:rnone, not timed: 4 "
                        "spill bytes against 0, 4 blocks/SM against 4 (judged slower, not "
                        "measured; --exhaustive times it)")
    # A spilling uncapped kernel is always timed, and a cap that spills less is kept.
    out = rank_spilling([rec(None, 64, spills=8), rec(72, 64, spills=4)])
    assert [r.skip for r in out] == [None, None]


def test_folded_caps_survive_the_report_and_fold_in_select_and_the_plan_table() -> None:
    codes = {"thread:128+128:rnone": "a", "thread:128+128:r32": "a",
             "thread:128+128:r40": "c", "thread:128+128:r48": "c"}
    records = merge_same([rec(None, 32), rec(32, 32), rec(40, 40), rec(48, 40)], codes)
    assert [Record.from_json(r.to_json()) for r in records] == records
    timed = [Record("streams", "streams", verified=True, timing=summarize([1.0] * 5)),
             *(r if r.skip else Record(**{**r.__dict__, "verified": True,
                                          "timing": summarize([2.0] * 5)})
               for r in records)]
    lines = select(timed).lines
    assert not any(line.startswith("skipped thread:128+128:r32") for line in lines)
    assert lines[-1] == ("not timed: 2 register cap(s) compiled to the same machine code as "
                         "another candidate of their split (the report's same_as names it)")
    rows = table(records)
    assert [r.split()[0] for r in rows[1:-1]] == ["thread:128+128:rnone",
                                                   "thread:128+128:r40"]
    assert rows[1].endswith("(also r32)") and rows[2].endswith("(also r48)")
    assert "2 register cap(s) folded" in rows[-1]


def test_plan_cache_round_trip_and_an_unwritable_cache(tmp_path: Path) -> None:
    from cudafuse.profile.cache import ResultsCache
    from cudafuse.profile.plancache import cached_plan, plan_key_inputs

    records = merge_same([rec(None, 32), rec(32, 32)],
                         {"thread:128+128:rnone": "a", "thread:128+128:r32": "a"})
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
