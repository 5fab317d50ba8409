"""A shared copy made by every thread of the block, each its own element, with no test
(`s[threadIdx.x] = g[threadIdx.x];`, ferraiuolo's otsu): thread t stores element t for
every t of the block, so the elements below the block's size are stored; the reads' range
is checked against the block at the group's launch (staged_copy._per_thread). The producer
is recomputed reading the buffer itself."""

from __future__ import annotations

import re

import pytest
from equivalence import compare_entry, fuse_file

from cudafuse.passes.vertical.driver import report_dict

PROGRAM = """
#include <cuda_runtime.h>
#define NB 64
__global__ void weigh(const float *p, const float *in, float *out, int n) {
  __shared__ float sp[NB];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sp[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  if (i < n) {
    float acc = 0.0f;
    for (int k = 0; k < 8; ++k) acc += sp[k] * in[min(i + k, n - 1)];
    out[i] = acc;
  }
}
__global__ void sq(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] * t[i];
}
extern "C" void pipe(const float *p, const float *in, float *t, float *out, int n) {
  weigh<<<(n + NB - 1) / NB, NB>>>(p, in, t, n);
  sq<<<(n + 127) / 128, 128>>>(t, out, n);
}
"""


@pytest.fixture(scope="module")
def fused(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("per_thread_copy")
    src, out = tmp / "pipe.cu", tmp / "pipe.fused.cu"
    src.write_text(PROGRAM)
    return src, out, fuse_file(src, out, fuse_all=True)


def test_an_untested_per_thread_copy_is_read_as_its_buffer(fused) -> None:
    _, out, result = fused
    assert all(e["fused"] for e in report_dict(result)["edges"])
    (xy,) = re.findall(r"float \w+_weigh_out_xy\(.*?\n}\n", out.read_text(), re.S)
    assert "sp[" not in xy and "p[k]" in xy


@pytest.mark.slow
@pytest.mark.parametrize("n", [203, 5])
def test_an_untested_per_thread_copy_matches_the_original(fused, n: int) -> None:
    src, out, _ = fused
    compare_entry(src, out, "pipe", {"n": n}, extra={"p": 64})
