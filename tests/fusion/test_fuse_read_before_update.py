"""A launch that reads a buffer before a later launch of its group updates it in place
(`smooth` reads `a`'s neighbours, then `accumulate` does `a[i] += b[i]`, then `finish` reads
`a`). The group's value functions bind a reader's pointer to a producer's view only when
that producer comes before the reader: `smooth` reads `a` from memory, `finish` through
`accumulate`'s view. Before, `smooth` was bound to `accumulate`'s view too (declared after
it: the fused file named an undeclared type, and the two value functions called each
other). Found by the generated channel pipelines (test_generated_mixed.py, seed 0, pipeline
c9 of 25, whose stages are checked here as well)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from equivalence import call_both, fuse_file
from gen import Stage

PROGRAM = Path(__file__).parent / "programs" / "read_before_update.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("read_before_update") / "fused.cu"
    return path, fuse_file(PROGRAM, path, frozenset({"a", "b"}), fuse_all=True)


def test_the_early_reader_reads_memory(fused) -> None:
    path, result = fused
    assert [tuple(g.kernels) for g in result.groups] == [("smooth", "accumulate", "finish")]
    text = path.read_text()
    smooth = text[text.index("_smooth_b_xy("):]
    smooth = smooth[:smooth.index("\n}\n")]
    assert "accumulate_a_view" not in smooth  # `a` as it was before the group
    finish = text[text.index("__global__ void cf_run_fused0"):]
    assert "accumulate_a_view a" in finish  # `a` as `accumulate` leaves it


@pytest.mark.slow  # (two emulated builds: tens of seconds on a loaded CI core)
@pytest.mark.parametrize("n", [1, 2, 127, 300])
def test_fused_equals_original(fused, n: int) -> None:
    path, _ = fused
    rng = np.random.default_rng(n)
    a = rng.random(n, dtype=np.float32) * 4.0 - 2.0
    b = rng.random(n, dtype=np.float32)  # garbage: smooth writes it
    out = rng.random(n, dtype=np.float32) * 9.0
    x, y = call_both(PROGRAM, path, "run", [a, b, out, n])
    # `a` and `b` are scratch: the fused program need not leave what the original does
    assert np.array_equal(x[2], y[2]), f"n={n}: 'out' differs"
    assert not np.array_equal(x[2], out)  # (the comparison can fail: out is written)


@pytest.mark.slow  # (a generated file's two fusions and emulated builds: ~40 s)
def test_the_generated_pipeline_that_found_it() -> None:
    from test_generated_mixed import check_batch

    c9 = [Stage("point", (-1, 0), ry=2, border="mirror101", guard="return", style="macro",
                store="inplace"),
          Stage("stencil", (-1, 0), rx=1, border="constant", guard="if", style="rowcol",
                store="ifelse"),
          Stage("point", (-1, 2), rx=1, border="clamp", guard="lower_y", style="rowcol",
                store="addto"),
          Stage("point", (-1,), rx=2, ry=1, border="wrap", guard="lower_x_return",
                style="rowcol", store="ifelse")]
    tally: Counter = Counter()
    check_batch({"c9": c9}, tally)  # every element, every buffer live and all but one scratch
    assert tally["pipelines"] == 2
