"""A row-serial pair whose consumer reads the shared rows in nested run-time loops (llm.c's
attention value kernel) fuses by default: the vertical planner's per-read recomputation window
for reads at run-time loop indices (kernel/pointwise.py, driver.py) is no load of the
consumer's own, so it does not inflate the pair's register estimate (plan/siblings.py). It
had made llm.c's softmax -> value pair 'not profitable'."""

from __future__ import annotations

from pathlib import Path

from equivalence import fuse_file

PROGRAM = Path(__file__).parent / "programs" / "sibling_loop_reads.cu"


def test_row_serial_pair_with_loop_reads_fuses_by_default(tmp_path: Path) -> None:
    result = fuse_file(PROGRAM, tmp_path / "fused.cu")
    pairs = [s for p in result.plans for s in p.siblings]
    # (the scale kernel's pairs are no siblings: the softmax reads what it writes; scale
    # and value, the softmax between them depending on one and read by the other, are
    # counted without being tried)
    assert [s.fused for s in pairs] == [False, True], [s.why for s in pairs]
    assert sum(p.siblings_blocked for p in result.plans) == 1
    assert pairs[1].serial and pairs[1].form == "thread"
    assert "one thread runs 'sl_softmax', then 'sl_value'" in pairs[1].why
