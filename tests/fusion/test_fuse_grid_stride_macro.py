"""Grid-stride loops written by a macro (ATen's CUDA_KERNEL_LOOP, Caffe's
CUDA_1D_KERNEL_LOOP): the front end lowers the macro's `for` as a For (frontend/lower.py,
_macro_for), so the grid-stride view sees these kernels as it sees hand-written loops and
the pipeline fuses (before, each kernel's mapping was unknown and nothing fused), a macro
writing two nested loops (2D) too. Compared element by element with the original under
emulation, with grids that cover n and grids far smaller than n / block; compiled with nvcc."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from equivalence import fuse_file, run_both

PROGRAM = Path(__file__).parent / "programs" / "grid_stride_macro.cu"
SIZES = ((37, 19), (64, 8), (1, 5), (5, 1))


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gsm") / "fused.cu"
    result = fuse_file(PROGRAM, out, fuse_all=True)
    assert sorted(g.kernels for g in result.groups) == [
        ["m2_scale", "m2_blur", "m2_square"],
        ["mk_scale", "mk_relu", "mk_shift"],
        ["mk_scale", "mk_relu", "mk_shift", "mk_plain"]]
    return out


@pytest.mark.parametrize("entry", ["mk_chain", "mk_chain_small", "m2_chain"])
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


# ATen's current macro declares the index before the loop and steps it with a comma
# expression (`_i_n_d_e_x += stride, i = _i_n_d_e_x`): the loop is a For now, but not a form
# the grid-stride view knows, so kernels written with it (mk_scale, mk_shift) are refused,
# not fused wrongly; any other group still matches the original.
MODERN = """\
#define CUDA_KERNEL_LOOP_TYPE(i, n, index_type) \\
  long long _i_n_d_e_x = blockIdx.x * blockDim.x + threadIdx.x; \\
  for (index_type i = _i_n_d_e_x; _i_n_d_e_x < (n); \\
       _i_n_d_e_x += blockDim.x * gridDim.x, i = _i_n_d_e_x)
#define CUDA_KERNEL_LOOP(i, n) CUDA_KERNEL_LOOP_TYPE(i, n, int)
"""


def test_the_modern_aten_macro_fuses_only_exactly(tmp_path: Path) -> None:
    text = PROGRAM.read_text()
    start = text.index("#define CUDA_KERNEL_LOOP(i, n)")
    end = text.index("#define CUDA_1D_KERNEL_LOOP")
    program = tmp_path / "modern.cu"
    program.write_text(text[:start] + MODERN + "\n" + text[end:text.index("__global__ void m2_")])
    out = tmp_path / "fused.cu"
    result = fuse_file(program, out, fuse_all=True)
    assert not [g.kernels for g in result.groups
                if {"mk_scale", "mk_shift"} & set(g.kernels)]
    if result.groups:
        for w, h in SIZES:
            run_both(program, out, "mk_chain", w, h)
