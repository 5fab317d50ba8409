"""Block-size dependence judged by meaning (per_block.py): a kernel that stores one result
per block keeps its size, however the store is written; one that stores per thread does
not; and --explain counts cooperative groups' sync() as barriers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hfuse_helpers import PROGRAMS, hfuse

KERNELS = r"""
__global__ void partial_sums(const float *x, float *partials, int n) {
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    s += x[i];
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(&partials[blockIdx.x], s);
}

__global__ void partial_max(const int *x, int *out, int n) {
  const unsigned b = blockIdx.x;  // through a local, and a cast
  int m = x[b];
  if (threadIdx.x == 0) ((int *)out)[b] = m;
}

__global__ void scale(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
"""


def _parts(tmp_path: Path, kernels: str) -> list[dict]:
    src = tmp_path / "k.cu"
    src.write_text(KERNELS)
    res = hfuse(str(src), "--kernels", kernels, "--block1", "128", "--block2", "64", "-o",
                str(tmp_path / "f.cu"), "--report", str(tmp_path / "r.json"))
    assert res.exit_code == 0, res.output
    return json.loads((tmp_path / "r.json").read_text())["parts"]


@pytest.mark.parametrize("kernel", ["partial_sums", "partial_max"])
def test_one_result_per_block_keeps_the_size(tmp_path: Path, kernel: str) -> None:
    per_block, per_thread = _parts(tmp_path, f"{kernel},scale")
    assert not per_block["block_size_tunable"]
    assert any("one result per block" in why for why in per_block["block_size_dependence"])
    assert per_thread["block_size_tunable"]


def test_explain_counts_group_syncs_as_barriers(tmp_path: Path) -> None:
    res = hfuse(str(PROGRAMS / "coop.cu"), "--kernels", "cg_reverse,plain_scale", "--block1",
                "64", "--block2", "64", "-o", str(tmp_path / "f.cu"), "--explain",
                "--report", str(tmp_path / "r.json"))
    assert res.exit_code == 0, res.output
    assert "1 cooperative-groups sync() -> bar.sync 1, 64" in res.output
    part = json.loads((tmp_path / "r.json").read_text())["parts"][0]
    assert part["group_syncs"] == 1 and part["barrier"] == {"id": 1, "count": 64}
