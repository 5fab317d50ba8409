"""Grid-stride loops written by a macro (ATen's CUDA_KERNEL_LOOP, Caffe's
CUDA_1D_KERNEL_LOOP): the front end lowers the macro's `for` as a For (frontend/lower.py,
_macro_for), so the grid-stride view sees these kernels as it sees hand-written loops and
the pipeline fuses (before, each kernel's mapping was unknown and nothing fused). Compared
element by element with the original under emulation, with grids that cover n and grids far
smaller than n / block; compiled with nvcc."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from equivalence import fuse_file, run_both

PROGRAM = Path(__file__).parent / "programs" / "grid_stride_macro.cu"
SIZES = ((37, 19), (64, 8), (1, 5))


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gsm") / "fused.cu"
    result = fuse_file(PROGRAM, out, fuse_all=True)
    assert sorted(g.kernels for g in result.groups) == [
        ["mk_scale", "mk_relu", "mk_shift"],
        ["mk_scale", "mk_relu", "mk_shift", "mk_plain"]]
    return out


@pytest.mark.parametrize("entry", ["mk_chain", "mk_chain_small"])
def test_macro_loop_pipelines_match(fused: Path, entry: str) -> None:
    for w, h in SIZES:
        run_both(PROGRAM, fused, entry, w, h)


def test_the_last_kernels_macro_loop_is_kept(fused: Path) -> None:
    # The fused kernel of the small grids is mk_shift's own loop: its invocation stays, so
    # a grid of 1 x 32 threads still covers every element.
    kernel = fused.read_text().split("void cf_mk_chain_small_fused1(")[1].split("\n}\n")[0]
    assert "CUDA_KERNEL_LOOP(index, n)" in kernel


@pytest.mark.nvcc
def test_macro_loop_fused_compiles(fused: Path, tmp_path: Path) -> None:
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(fused), "-o", str(tmp_path / "o.o")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
