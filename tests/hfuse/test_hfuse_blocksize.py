"""Block sizes: the default from `__launch_bounds__`, and the report of what ties a kernel's
results to its block size (a kernel that may depend on it keeps it; profiling varies only
the others)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hfuse_helpers import PROGRAMS, hfuse

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "hfuse"

KERNELS = """\
#include <cuda_runtime.h>
#define BASE 64
#define TWICE (2 * BASE)

template <int BS>
__global__ void __launch_bounds__(BS, 2) tmpl(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.f;
}

__global__ void __launch_bounds__(TWICE) fixed_index(float *x, int n) {
  int i = blockIdx.x * 128 + threadIdx.x;
  if (i < n) x[i] *= 2.f;
}

__global__ void __launch_bounds__(256u) tunable(float *x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    x[i] = -x[i];
}

__global__ void no_bounds(float *x) { x[threadIdx.x] = 0.f; }

__global__ void __launch_bounds__(128) two_d(float *x, int w) {
  x[threadIdx.y * w + threadIdx.x] = 1.f;
}
"""


def _report(tmp_path: Path, *args: str) -> dict:
    src = tmp_path / "k.cu"
    src.write_text(KERNELS)
    res = hfuse(str(src), *args, "-o", str(tmp_path / "f.cu"), "--report",
                str(tmp_path / "r.json"))
    assert res.exit_code == 0, res.output
    return json.loads((tmp_path / "r.json").read_text())


def test_defaults_from_launch_bounds_through_macros_and_template_arguments(
        tmp_path: Path) -> None:
    rep = _report(tmp_path, "--kernels", "tmpl<96>,fixed_index")
    p1, p2 = rep["parts"]
    assert (p1["threads"], p1["block_from"]) == (96, "__launch_bounds__(BS, 2)")
    assert (p2["threads"], p2["block_from"]) == (128, "__launch_bounds__(TWICE)")
    assert rep["threads_per_block"] == 224
    assert "split 96+128" in (tmp_path / "f.cu").read_text()


def test_dependence_reported(tmp_path: Path) -> None:
    rep = _report(tmp_path, "--kernels", "fixed_index,tunable", "--block1", "128")
    fixed, tun = rep["parts"]
    assert not fixed["block_size_tunable"]
    assert any("assumes blockDim.x == 128" in r for r in fixed["block_size_dependence"])
    assert tun["block_size_tunable"] and tun["block_size_dependence"] == []
    # A size other than the launch bounds is no dependence by itself: the bound limits the
    # kernel launched alone, and nothing in 'tunable' reads the size but through blockDim.
    rep = _report(tmp_path, "--kernels", "tunable,fixed_index", "--block1", "64")
    assert rep["parts"][0]["block_size_dependence"] == []
    assert rep["parts"][0]["block_size_tunable"]


def test_fixed_size_shared_arrays_keep_the_block(tmp_path: Path) -> None:
    res = hfuse(str(SAMPLES / "batchnorm_stats.cu"), str(SAMPLES / "histogram.cu"), "-D",
                "CUDAFUSE_NO_MAIN", "-o", str(tmp_path / "f.cu"), "--explain")
    assert res.exit_code == 0, res.output
    assert "block 512 from __launch_bounds__(BN_BLOCK); its results may depend" in res.output
    assert "__shared__ 's_sum' (line 17) has a size fixed" in res.output
    assert "block 256 from __launch_bounds__(HIST_BLOCK); no dependence" in res.output


@pytest.mark.parametrize("kernels,what", [
    ("no_bounds,tunable", "kernel 'no_bounds' has no __launch_bounds__: give its block size "
     "with --block1 N"),
    ("tunable,two_d", "kernel 'two_d' uses threadIdx.y: give its block shape "
     "with --block2 XxY[xZ]"),
])
def test_no_default(tmp_path: Path, kernels: str, what: str) -> None:
    src = tmp_path / "k.cu"
    src.write_text(KERNELS)
    res = hfuse(str(src), "--kernels", kernels, "-o", str(tmp_path / "f.cu"))
    assert res.exit_code == 2 and what in res.output, res.output
    assert f"{src}:" in res.output
    assert not (tmp_path / "f.cu").exists()


def test_given_shape_needs_no_bounds() -> None:
    res = hfuse(str(PROGRAMS / "pairs.cu"), "--kernels", "saxpy,scale2d", "--block1", "128",
                "--block2", "32x4", "-o", "-")
    assert res.exit_code == 0, res.output
