"""2D grid-stride loops (issue 15): nested loops over y and x (either outside, `for` or
`while`, steps inline or in variables) fuse with each other and with plain 2D mappings, as
producers and as the last kernel, when their bounds are the same launch values. Compared
element by element with the original under emulation (sizes not multiples of the block,
grids smaller and larger than the image / block), refusals checked for their reason, and
the fused file compiled with nvcc."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from equivalence import fuse_file, run_both

from cudafuse.frontend import parse_file
from cudafuse.passes.vertical.kernel.recognise import build_view

PROGRAM = Path(__file__).parent / "programs" / "grid_stride_2d.cu"
SIZES = ((37, 19), (16, 8), (1, 5), (23, 1))


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    out = tmp_path_factory.mktemp("gs2d") / "fused.cu"
    result = fuse_file(PROGRAM, out, fuse_all=True)
    return out, result


def test_grid_stride_2d_groups(fused: tuple[Path, object]) -> None:
    _, result = fused
    assert sorted((g.host, g.kernels) for g in result.groups) == sorted([  # type: ignore[attr-defined]
        ("g2_chain", ["g2_scale", "g2_blur", "g2_edge", "g2_square"]),
        ("g2_chain_small", ["g2_scale", "g2_blur", "g2_edge", "g2_square"]),
        ("g2_live", ["g2_scale", "g2_blur"]),
        ("g2_mixed", ["plain2_offset", "g2_blur", "plain2_blur"]),
        ("g2_mixed_last", ["plain2_offset", "g2_edge"]),
        ("g2_partial", ["plain2_inner", "g2_blur"])])
    refused = [e.why for e in result.edges if e.host == "g2_half"]  # type: ignore[attr-defined]
    assert len(refused) == 1 and "'g2_scale' and 'g2_blur' do not provably have the same " \
        "iteration space" in refused[0]


@pytest.mark.parametrize("entry", ["g2_chain", "g2_chain_small", "g2_live", "g2_mixed",
                                   "g2_mixed_last", "g2_partial", "g2_half"])
def test_grid_stride_2d_pipelines_match(fused: tuple[Path, object], entry: str) -> None:
    for w, h in SIZES:
        run_both(PROGRAM, fused[0], entry, w, h)


def test_fused_kernel_keeps_the_last_kernels_loops(fused: tuple[Path, object]) -> None:
    text = fused[0].read_text()
    # The producers' value-at-element functions: no loop header, step or step variable.
    blur = text.split("cf_g2_chain_small_fused1_1_g2_blur_b_xy(")[1].split("\n}\n")[0]
    assert "int x = (int)(cf_x); int y = (int)(cf_y);" in blur
    assert "gridDim" not in blur and "sx" not in blur
    edge = text.split("_g2_edge_c_xy(")[1].split("\n}\n")[0]
    assert "while" not in edge and "+= " not in edge
    # The last kernel is g2_square's x-outer loop, launched with the user's small grid.
    kernel = text.split("__global__ void cf_g2_chain_small_fused1(")[1].split("\n}\n")[0]
    assert "x += gridDim.x * blockDim.x" in kernel and "y += gridDim.y * blockDim.y" in kernel
    assert "cf_g2_chain_small_fused1<<<dim3(1, 1), dim3(8, 4)>>>" in text
    # The live intermediate is stored by the thread that owns its element, in the loops.
    live = text.split("__global__ void cf_g2_live_fused2(")[1].split("\n}\n")[0]
    assert "const float cf_e0 = a.at2(0 + (x), (y), (w));" in live
    assert "[y * w + x] = cf_e0, b[y * w + x] = s / 9.0f;" in live


@pytest.mark.nvcc
def test_grid_stride_2d_fused_compiles(fused: tuple[Path, object], tmp_path: Path) -> None:
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(fused[0]), "-o",
                          str(tmp_path / "o.o")], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


KERNEL = r"""
__global__ void k(const float *in, float *out, int w, int h) {
  %s
}
"""

Y = "for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += blockDim.y * gridDim.y) "
X = "for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < w; x += blockDim.x * gridDim.x) "
STORE = "out[y * w + x] = in[y * w + x];"


@pytest.mark.parametrize(("body", "why"), [
    (Y + X + STORE, None),
    (X + Y + "{ float v = in[y * w + x]; out[y * w + x] = v * v; }", None),
    ("int sy = gridDim.y * blockDim.y; int y = blockIdx.y * blockDim.y + threadIdx.y; "
     "while (y < h) { int x = threadIdx.x + blockIdx.x * blockDim.x; "
     "while (x < w) { " + STORE + " x += blockDim.x * gridDim.x; } y += sy; }", None),
    (Y + "for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < w; "
     "x += blockDim.y * gridDim.y) " + STORE, "step is not the whole grid"),
    (Y + "for (int x = blockIdx.y * blockDim.y + threadIdx.y; x < w; "
     "x += blockDim.y * gridDim.y) " + STORE, "not one over y and one over x"),
    ("int x = blockIdx.x * blockDim.x + threadIdx.x; " + Y +
     "{ while (x < w) { " + STORE + " x += blockDim.x * gridDim.x; } }",
     "not one over y and one over x"),
    (Y + "{ " + X + STORE + " out[y * w] = 0.0f; }", "statements other than the inner loop"),
    (Y + X + "{ " + STORE + " y += 1; }", "writes the loop variable 'y'"),
    ("float acc = 0.0f; " + Y + X + "{ acc += in[y * w + x]; out[y * w + x] = acc; }",
     "writes 'acc', declared outside the loop"),
    (Y + "{ float row = 0.0f; " + X + "{ row += in[y * w + x]; out[y * w + x] = row; } }",
     "writes 'row', declared outside the loop"),
    (Y + "{ const float k = 0.5f * h; " + X + "out[y * w + x] = in[y * w + x] * k; }", None),
    (Y + "for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < y; "
     "x += blockDim.x * gridDim.x) " + STORE, "bound changes in the loop ('y')"),
    (Y + X + "{ if (in[y * w + x] < 0) break; " + STORE + " }", "break or continue"),
    ("for (int y = blockIdx.y * 8 + threadIdx.y; y < h; y += blockDim.y * gridDim.y) " +
     X + STORE, "assumes a block size"),
    ("int s = blockDim.x * gridDim.x; " + Y +
     "for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < w; x += s) "
     "out[y * w + x] = in[y * w + x] + s;", "step variable is used"),
])
def test_grid_stride_2d_producer_shape(tmp_path: Path, body: str, why: str | None) -> None:
    src = tmp_path / "k.cu"
    src.write_text(KERNEL % body)
    fn = parse_file(str(src)).unit.function("k")
    assert fn is not None
    view = build_view(fn)
    assert view.grid_stride
    if why is None:
        assert view.producer_reason is None, view.producer_reason
        assert view.dims == 2 and [c.name for c in view.coords] == ["x", "y"]
        assert [getattr(b, "name", None) for b in view.bounds] == ["w", "h"]
        assert getattr(view.stride, "name", None) == "w" and "out" in view.stores
    else:
        assert view.producer_reason is not None and why in view.producer_reason, \
            view.producer_reason


PITCHED = r"""
#include <cuda_runtime.h>

__global__ void pitched(const float *in, float *a, int w, int h, int p) {
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += blockDim.y * gridDim.y)
    for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < w; x += blockDim.x * gridDim.x)
      a[y * p + x] = in[y * w + x] + 1.0f;
}

__global__ void reader(const float *a, float *out, int w, int h, int p) {
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += blockDim.y * gridDim.y)
    for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < w; x += blockDim.x * gridDim.x)
      out[y * w + x] = a[y * p + x] * 2.0f;
}

void pitch(const float *in, float *out, int w, int h) {
  float *a;
  cudaMalloc(&a, (w + 1) * h * sizeof(float));
  pitched<<<dim3(2, 2), dim3(8, 8)>>>(in, a, w, h, w + 1);
  reader<<<dim3(2, 2), dim3(8, 8)>>>(a, out, w, h, w + 1);
  cudaFree(a);
}
"""


def test_grid_stride_2d_rows_wider_than_the_loop_are_refused(tmp_path: Path) -> None:
    """A grid-stride producer keeps no guard: rows wider than its x bound (a pitch) would
    have their padding computed instead of left as it was."""
    src = tmp_path / "pitch.cu"
    src.write_text(PITCHED)
    result = fuse_file(src, tmp_path / "pitch.fused.cu", fuse_all=True)
    assert not result.groups
    assert [e.why for e in result.edges] == [
        "not fused: 'pitched' stores rows with a stride other than its width"]
