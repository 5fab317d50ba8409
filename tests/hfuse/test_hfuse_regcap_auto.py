"""`--regcap auto` (passes/horizontal/regcap_auto.py) over a fake ptxas: the caps compiled in
parallel batches, the choice and its text the same whatever the batch size, and --explain's
table. The end-to-end runs with nvcc are in test_hfuse_regbound.py."""

from __future__ import annotations

import threading

import pytest

from cudafuse.analysis.ptxas import Resources
from cudafuse.passes.horizontal import regcap_auto
from cudafuse.passes.horizontal.regcap_auto import decide


def _emit(cap: int | None) -> tuple[bytes, str]:
    return (b"none" if cap is None else str(cap).encode()), "fused"


def _fake(monkeypatch: pytest.MonkeyPatch, figures: dict[int | None, Resources],
          pairs: bool = False) -> tuple[list[int | None], list[int]]:
    """ptxas replaced by `figures` (by cap); returns the caps compiled and the most compiles
    seen running at once. `pairs`: each capped compile waits for a second one to run."""
    seen: list[int | None] = []
    running, most = [0], [0]
    lock = threading.Lock()
    gate = threading.Barrier(2, timeout=5)

    def compile_figures(source: bytes, arch: str, flags: tuple, name: str) -> dict:
        cap = None if source == b"none" else int(source)
        with lock:
            seen.append(cap)
            running[0] += 1
            most[0] = max(most[0], running[0])
        if pairs and cap is not None:
            gate.wait()  # the two compiles of a batch meet here: they overlap
        with lock:
            running[0] -= 1
        return {"fused": figures[cap]}

    monkeypatch.setattr(regcap_auto, "compile_figures", compile_figures)
    return seen, most


# 256 threads at 128 registers: 2 blocks/SM; the step caps are 80 (3), 64 (4), 48 (5),
# 40 (6), 32 (8). ptxas meets 80 and 64, spills at 48.
FIGURES = {None: Resources(128, 0), 80: Resources(80, 0), 64: Resources(64, 0),
           48: Resources(48, 0, 8, 8), 40: Resources(40, 0, 96, 96),
           32: Resources(32, 0, 300, 300)}


def test_batches_compile_in_parallel_and_choose_as_one_at_a_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen, _ = _fake(monkeypatch, FIGURES)
    one = decide(_emit, 256, "sm_90", (), jobs=1)
    assert seen == [None, 80, 64, 48]  # one at a time: stops at the first that spills
    seen, most = _fake(monkeypatch, FIGURES, pairs=True)
    two = decide(_emit, 256, "sm_90", (), jobs=2)
    # Batches of two: 80 and 64, then 48 and 40 at once; 40 is compiled but not read.
    assert seen[0] is None and sorted(seen[1:], reverse=True) == [80, 64, 48, 40]
    assert most[0] == 2
    assert one.cap == two.cap == 64
    assert one.how == two.how and one.table() == two.table()
    assert [t.cap for t in two.tried] == [None, 80, 64, 48]
    assert "__maxnreg__(40)" not in two.how


def test_the_table_marks_the_choice_and_shows_every_compile(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _fake(monkeypatch, FIGURES)
    table = decide(_emit, 256, "sm_90", (), jobs=3).table()
    assert "sm_90, 256 threads a block" in table[0]
    rows = [line.split() for line in table[2:-1]]
    assert [r[0] for r in rows] == ["none", "80", "64", "48"]
    assert [r[1] for r in rows] == ["128", "80", "64", "48"]  # registers
    assert [r[2] for r in rows] == ["0/0", "0/0", "0/0", "8/8"]  # spill bytes
    assert [r[3] for r in rows] == ["2", "3", "4", "5"]  # blocks per SM
    assert [r[-1] for r in rows].count("chosen") == 1 and rows[2][-1] == "chosen"
    assert table[-1].strip() == "the most blocks per SM without spills: __maxnreg__(64)"


def test_a_first_step_that_spills_keeps_no_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    # blake256 + sha256 at 128+128 as ptxas compiles it (sm_90, CUDA 13.0): 40 registers,
    # 6 blocks/SM; 32 would give 8 and spills 152/120 bytes. The H200 timed the uncapped
    # kernel 0.9% behind __maxnreg__(48), which adds registers: no ptxas figure says so.
    figures = {None: Resources(40, 0), 32: Resources(32, 0, 152, 120)}
    seen, _ = _fake(monkeypatch, figures)
    choice = decide(_emit, 256, "sm_90", ())
    assert choice.cap is None and seen == [None, 32]
    assert choice.how.endswith("without spills (spills pay only if a measurement says so: "
                               "hfuse --profile times the capped candidates), so none")


def test_why_no_cap_can_help_names_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    # batchnorm_stats + histogram at 512+512 (1024 threads, 31 registers): two blocks fill
    # the SM's threads, so no cap adds one and nothing else is compiled. The H200 ran it
    # 1.5x faster under __maxnreg__(40) (37 registers, one block): that takes a measurement.
    seen, _ = _fake(monkeypatch, {None: Resources(31, 0)})
    choice = decide(_emit, 1024, "sm_90", ())
    assert choice.cap is None and seen == [None]
    assert "no cap gains an occupancy step (threads limit the blocks per SM, not " \
           "registers)" in choice.how
