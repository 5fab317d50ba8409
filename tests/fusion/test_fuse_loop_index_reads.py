"""Producers read at run-time loop indices (issue 25: llm.c's permute before attention;
passes/vertical/kernel/pointwise.py). A producer point-wise in its stored element (a
permute, a transpose) is recomputed at each read of a consumer's loop with run-time
bounds, the cost model counting one evaluation per read; a reduction producer, an
intermediate read after the group and a producer whose guard is dropped (its reader's
bounds its own) stay apart saying why. The fused program is compared with the original
under emulation, every element of every buffer, at odd sizes."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

from cudafuse.analysis.kernel_facts import analyze_kernel
from cudafuse.frontend import ParseOptions
from cudafuse.passes.vertical.kernel.pointwise import (
    LOOP_TRIPS,
    loop_reads,
    loop_variable,
)
from cudafuse.passes.vertical.kernel.respell import parse_for_fusion

PROGRAM = Path(__file__).parent / "programs" / "loop_index_reads.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    d = tmp_path_factory.mktemp("loopreads")
    out = {}
    for name, kw in (("default", {}), ("all", {"fuse_all": True})):
        path = d / f"{name}.cu"
        out[name] = (path, fuse_file(PROGRAM, path, **kw))
    return out


def _groups(result) -> list[tuple[str, tuple[str, ...]]]:
    return sorted((g.host, tuple(g.kernels)) for g in result.groups)


def test_what_fuses(fused) -> None:
    # The cost model takes the transpose (each element read once) and leaves the permute
    # (each key read by every later row of its head: its divisions recomputed per read).
    assert _groups(fused["default"][1]) == [("p_rowsum", ("transpose_scale", "row_sums"))]
    assert _groups(fused["all"][1]) == [("p_attention", ("split_heads", "causal_max")),
                                        ("p_rowsum", ("transpose_scale", "row_sums"))]


def test_refusals_say_why(fused) -> None:
    why = {(e.host, e.src, e.dst): e.why for e in fused["all"][1].edges if e.refused}
    assert set(why) == {("p_rowsum_live", "transpose_scale", "row_sums"),
                        ("p_atax", "matvec", "matvec_t"),
                        ("p_same_bounds", "scale_n", "prefix_sums")}
    assert "'scale_n''s value at an element is exact only where its threads store (its " \
        "guard is dropped ('prefix_sums''s bounds are its own))" in \
        why[("p_same_bounds", "scale_n", "prefix_sums")]
    live = why[("p_rowsum_live", "transpose_scale", "row_sums")]
    assert "reads 'tr' at run-time indices (loop variable 'c')" in live
    assert "'tr' may be read after the group" in live
    atax = why[("p_atax", "matvec", "matvec_t")]
    assert "'matvec' computes each element with a loop (line 101" in atax
    assert "repeat the loop" in atax
    profit = {(e.host, e.src, e.dst): e.why for e in fused["default"][1].edges}
    assert "not profitable" in profit[("p_attention", "split_heads", "causal_max")]


def test_reads_counted_per_read() -> None:
    """Derived from the evaluated indices: `tr[r * h + c]` reads each element once; `q[row *
    HS + d]` sits in t2's loop, which its index does not use; `k[base + t2 * HS + d]` takes
    the row through `row % T` (every row of a head reads the same keys)."""
    parsed, _ = parse_for_fusion(str(PROGRAM), ParseOptions())
    unit = parsed.unit
    rows = analyze_kernel(unit, unit.function("row_sums"))
    attn = analyze_kernel(unit, unit.function("causal_max"))
    assert loop_variable(rows, "tr") == "c"
    assert loop_reads(rows, "tr") == 1
    assert loop_reads(attn, "q") == LOOP_TRIPS
    assert loop_reads(attn, "k") == LOOP_TRIPS
    assert loop_variable(attn, "out") is None  # a store


# Two emulator builds: about 20 CPU-s here.
@pytest.mark.slow
@pytest.mark.parametrize("entry,sizes", [
    ("p_attention", {"B": 2, "T": 7, "NH": 3, "HS": 5}),
    ("p_attention", {"B": 1, "T": 13, "NH": 1, "HS": 3}),
    ("p_rowsum", {"w": 37, "h": 19}),
    ("p_rowsum", {"w": 1, "h": 9}),
    ("p_rowsum", {"w": 13, "h": 1}),
])
def test_fused_equals_original(fused, entry: str, sizes: dict[str, int]) -> None:
    path, _ = fused["all"]
    extra = None
    if entry == "p_attention":
        n = sizes["B"] * sizes["T"] * sizes["NH"]
        extra = {"qkv": 2 * n * sizes["HS"], "out": n}
    else:
        extra = {"in": sizes["w"] * sizes["h"], "sums": sizes["w"]}
    compare_entry(PROGRAM, path, entry, sizes, seed=sum(sizes.values()), extra=extra)


# The golden program's while loop (a local the loop steps, not a `for` variable) reading a
# cast-and-scale permute: one more emulator build pair, about 15 CPU-s here.
@pytest.mark.slow
@pytest.mark.parametrize("rows,cols,n", [(13, 7, 9), (5, 1, 5), (1, 6, 1)])
def test_while_loop_reader_equals_original(tmp_path: Path, rows: int, cols: int,
                                           n: int) -> None:
    golden = Path(__file__).parent / "golden" / "loop_index_reads.cu"
    out = tmp_path / "fused.cu"
    result = fuse_file(golden, out)
    assert [(g.host, tuple(g.kernels)) for g in result.groups] == [
        ("run", ("permute_cast", "first_n_mean"))]
    compare_entry(golden, out, "run", {"rows": rows, "cols": cols, "n": n},
                  seed=rows + cols, extra={"src": rows * cols, "avg": cols})
