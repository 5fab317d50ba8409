"""Grid-stride loops (issue 15): 1D `for` and `while` loops stepping by the whole grid fuse
with each other and with plain-mapping kernels; the fused kernel is the last kernel's loop,
so whatever grid the user launches still covers every element. Compared element by element
with the original under emulation (sizes not multiples of the block, grids smaller and
larger than n / block), and compiled with nvcc."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from equivalence import fuse_file, run_both

from cudafuse.frontend import parse_file
from cudafuse.passes.vertical.kernel.recognise import build_view

PROGRAM = Path(__file__).parent / "programs" / "grid_stride.cu"
SIZES = ((37, 19), (64, 8), (1, 5), (1000, 1))


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gs") / "fused.cu"
    result = fuse_file(PROGRAM, out, fuse_all=True)
    assert sorted(g.kernels for g in result.groups) == sorted([
        ["gs_scale", "gs_blur", "gs_diff", "gs_square"],
        ["gs_scale", "gs_blur", "gs_diff", "gs_square"],
        ["gs_scale", "gs_square"],
        ["plain_offset", "gs_blur", "plain_blur"]])
    return out


@pytest.mark.parametrize("entry", ["gs_chain", "gs_chain_small", "gs_live", "gs_mixed"])
def test_grid_stride_pipelines_match(fused: Path, entry: str) -> None:
    for w, h in SIZES:
        run_both(PROGRAM, fused, entry, w, h)


def test_fused_kernel_is_the_last_kernels_loop(fused: Path) -> None:
    text = fused.read_text()
    assert "cf_gs_chain_small_fused1<<<2, 32>>>" in text
    assert "int i = (int)(cf_x);" in text
    assert "i += stride" not in text.split("cf_gs_chain_fused0(")[0].split("_xy(")[-1]


@pytest.mark.nvcc
def test_grid_stride_fused_compiles(fused: Path, tmp_path: Path) -> None:
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(fused), "-o", str(tmp_path / "o.o")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


REFUSED = r"""
__global__ void k(const float *in, float *out, int n) {
  %s
}
"""


@pytest.mark.parametrize(("body", "why"), [
    ("for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x) "
     "out[i] = in[i];", "step is not the whole grid"),
    ("for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)"
     " { if (in[i] < 0) continue; out[i] = in[i]; }", "break or continue"),
    ("for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)"
     " { out[i] = in[i]; i += 1; }", "writes the loop variable"),
    ("int s = blockDim.x * gridDim.x; for (int i = blockIdx.x * blockDim.x + threadIdx.x; "
     "i < n; i += s) out[i] = in[i] + s;", "step variable is used"),
    ("for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < n; y += blockDim.y * gridDim.y)"
     " for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < n; "
     "x += blockDim.x * gridDim.x) out[y * n + x] = in[y * n + x];", None),  # 2D: see _2d
    ("float acc = 0.0f; for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; "
     "i += blockDim.x * gridDim.x) { acc += in[i]; out[i] = acc; }",
     "writes 'acc', declared outside the loop"),
    ("int i = blockIdx.x * blockDim.x + threadIdx.x; while (i < n) { out[i] = in[i]; "
     "i += blockDim.x * gridDim.x; }", None),
])
def test_grid_stride_producer_shape(tmp_path: Path, body: str, why: str | None) -> None:
    src = tmp_path / "k.cu"
    src.write_text(REFUSED % body)
    fn = parse_file(str(src)).unit.function("k")
    assert fn is not None
    view = build_view(fn)
    if why is None:
        assert view.producer_reason is None and view.grid_stride and "out" in view.stores
    else:
        assert view.producer_reason is not None and why in view.producer_reason, \
            view.producer_reason


PARTIAL = r"""
#include <cuda_runtime.h>

__global__ void inner(const float *in, float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 1 || i >= n) return;
  a[i] = in[i] + 0.5f;
}

__global__ void triple(const float *a, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = a[i] * 3.0f;
}

void partial(const float *in, float *out, int w, int h) {
  int n = w * h;
  float *a;
  cudaMalloc(&a, n * sizeof(float));
  cudaMemset(a, 0, n * sizeof(float));
  inner<<<(n + 63) / 64, 64>>>(in, a, n);
  triple<<<2, 32>>>(a, out, n);
  cudaFree(a);
}
"""


def test_partial_producer_read_by_a_grid_stride_loop(tmp_path: Path) -> None:
    """A producer that skips element 0 keeps its guard when a grid-stride loop reads it: the
    fused value there is the buffer's, as in the original (it was computed before)."""
    src = tmp_path / "partial.cu"
    src.write_text(PARTIAL)
    out = tmp_path / "partial.fused.cu"
    result = fuse_file(src, out, fuse_all=True)
    assert [g.kernels for g in result.groups] == [["inner", "triple"]]
    for w, h in ((13, 7), (1, 5)):
        run_both(src, out, "partial", w, h)
