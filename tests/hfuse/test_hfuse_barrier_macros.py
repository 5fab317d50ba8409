"""Barriers written through the macros of a compute dialect (programs/dialect/, written in
the style of OpenMM's kernels: `KERNEL` is `extern "C" __global__` and `SYNC_THREADS` is
`__syncthreads();`, both from a header). Thread mode gives each part its own named barrier by
editing the call's text; `SYNC_THREADS` has none, and every such kernel was refused ("a
__syncthreads() inside a macro expansion cannot be rewritten"), and the front end found no
kernel at all behind `KERNEL` (an `extern "C"` spelled by a macro of a header). A bare macro
defined as exactly `__syncthreads()` (with or without `;`) is now replaced whole by the
part's barrier (passes/horizontal/barrier_macros.py), in the kernel and in helpers; a macro
with more in it is still refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hfuse_helpers import PROGRAMS, hfuse, library

SRC = PROGRAMS / "dialect" / "reductions.cu"


def _fuse(tmp_path: Path, kernels: str, mode: str = "thread") -> tuple[int, str, str]:
    out = tmp_path / f"{mode}.cu"
    res = hfuse(str(SRC), "--kernels", kernels, "--block1", "64", "--block2", "64", "--mode",
                mode, "-o", str(out))
    return res.exit_code, res.output, out.read_text() if out.exists() else ""


def test_dialect_barriers_become_each_parts_own(tmp_path: Path) -> None:
    code, output, text = _fuse(tmp_path, "sumSquares,kineticEnergy")
    assert code == 0, output
    fused = text[text.index("// part 1"):]
    # The helper's copy for part 1 and part 2's body: the macro's `;` kept after the barrier.
    assert text.count("CUDAFUSE_BAR_SYNC(1, 64);;") == 3
    assert fused.count("CUDAFUSE_BAR_SYNC(2, 64);;") == 2
    assert "SYNC_THREADS" not in fused


def test_a_macro_with_more_than_the_barrier_is_refused(tmp_path: Path) -> None:
    code, output, text = _fuse(tmp_path, "countedSum,kineticEnergy")
    assert code == 1 and not text
    assert f"{SRC}:54:5: error: kernel 'countedSum' cannot be fused horizontally" in output
    assert "inside a macro expansion cannot be rewritten" in output


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["thread", "block"])
def test_dialect_pair_matches_the_originals(tmp_path: Path, mode: str) -> None:
    code, output, _ = _fuse(tmp_path, "sumSquares,kineticEnergy", mode)
    assert code == 0, output
    rng = np.random.default_rng(3)
    n1, n2, b1, b2 = 700, 500, 3, 4
    x = rng.uniform(-2, 2, n1).astype(np.float32)
    velm = rng.uniform(0.5, 2, 4 * n2).astype(np.float32)
    want1, got1 = np.full(b1, -7, np.float32), np.full(b1, -7, np.float32)
    want2, got2 = np.full(b2, -7, np.float32), np.full(b2, -7, np.float32)
    lib = library(tmp_path / f"{mode}.cu")
    lib.call("run_sum_squares", n1, x, want1, b1)
    lib.call("run_kinetic", n2, velm, want2, b2)
    lib.call("sumSquares_kineticEnergy_hfused_launch", n1, x, got1, n2, velm, got2, (b1,),
             (b2,), 0, 0, None)
    np.testing.assert_array_equal(got1, want1)
    np.testing.assert_array_equal(got2, want2)
    assert abs(float(want1.sum()) - float((x.astype(np.float64) ** 2).sum())) < 1e-2
