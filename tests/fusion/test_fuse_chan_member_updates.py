"""Struct elements a grid-stride producer updates member by member, and its locals declared
before the loop (issue 25, PCampi's n-body `v[tid].x += ...; v[tid].y += ...` and `unsigned
int j;` reused by each element's `for (j = 0; ...)`):

- a compound assignment to every member of one element, in one statement list, is the whole
  element's new value (respell/member_stores.py reads `p[e].m op= v` as `p[e].m op v`, read
  before that member is stored);
- a variable declared outside the grid-stride loop whose first use in the body assigns it,
  unconditionally, from a value that does not read it carries nothing from one element to
  the next (gridstride._killed_first).

Compared with the original under the emulator, every byte of every buffer, garbage-filled,
at odd sizes; the illegal neighbours are refused with the reason."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from equivalence import PAD, call_both, fuse_file

from cudafuse.frontend import ParseOptions
from cudafuse.passes.vertical.kernel.recognise import build_view
from cudafuse.passes.vertical.kernel.respell import parse_for_fusion

PROGRAM = r"""
#include <cuda_runtime.h>

struct cell { float m; float e; };

// for form; CUDA's float2, members updated in order, read from another float2 buffer
__global__ void drift(float2 *p, const float2 *vel, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    p[i].x += 0.5f * vel[i].x;
    p[i].y -= vel[i].y * 0.25f;
  }
}

__global__ void norm(const float2 *p, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = p[i].x * p[i].x + p[i].y;
}

// while form; our own struct, members updated out of order, locals declared before the loop
__global__ void relax(cell *c, const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int k;
  float s;
  while (i < n) {
    s = 0.0f;
    for (k = 0; k < 4; k++) s += w[(i + k) % n];
    c[i].e *= s;
    c[i].m += s * 0.25f;
    i += blockDim.x * gridDim.x;
  }
}

__global__ void energy(const cell *c, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = c[i].m - c[i].e;
}

void drift_norm(const float2 *start, const float2 *vel, float *out, int n) {
  float2 *p;
  cudaMalloc(&p, n * sizeof(float2));
  cudaMemcpy(p, start, n * sizeof(float2), cudaMemcpyDeviceToDevice);
  drift<<<2, 32>>>(p, vel, n);
  norm<<<(n + 31) / 32, 32>>>(p, out, n);
  cudaFree(p);
}

void relax_energy(const cell *start, const float *w, float *out, int n) {
  cell *c;
  cudaMalloc(&c, n * sizeof(cell));
  cudaMemcpy(c, start, n * sizeof(cell), cudaMemcpyDeviceToDevice);
  relax<<<1, 64>>>(c, w, n);
  energy<<<3, 32>>>(c, out, n);
  cudaFree(c);
}
"""


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("members")
    src, out = folder / "members.cu", folder / "members.fused.cu"
    src.write_text(PROGRAM)
    result = fuse_file(src, out, fuse_all=True)
    assert sorted(g.kernels for g in result.groups) == [["drift", "norm"], ["relax", "energy"]]
    return src, out


def test_member_updates_fuse(fused: tuple[Path, Path]) -> None:
    text = fused[1].read_text()
    assert "drift fused into" in text and "relax fused into" in text


def _same_bytes(src: Path, out: Path, entry: str, n: int, seed: int) -> None:
    """`entry(start, other, out, n)` of both programs on the same garbage bytes (random bit
    patterns: NaNs too, compared as bytes), every byte of every buffer compared."""
    rng = np.random.default_rng(seed)
    args = [rng.integers(0, 256, 8 * n + PAD, dtype=np.uint8).view(np.float32)
            for _ in range(3)] + [n]
    if entry == "relax_energy":  # (w: finite weights, so that some sums are finite)
        args[1] = (rng.standard_normal(2 * n + PAD) * 0.5).astype(np.float32)
    for a, b in zip(*call_both(src, out, entry, args), strict=True):
        if isinstance(a, np.ndarray):
            bad = np.flatnonzero(a.view(np.uint8) != b.view(np.uint8))
            assert bad.size == 0, f"{entry} n={n}: byte {bad[0]} differs"


@pytest.mark.slow
def test_member_updates_match(fused: tuple[Path, Path]) -> None:
    """(slow: two emulator builds, about 20 s; shared 2-core VM, 2026-11-29)"""
    for seed, n in enumerate((37, 1, 101)):
        _same_bytes(*fused, "drift_norm", n, seed)
        _same_bytes(*fused, "relax_energy", n, seed)


KERNEL = r"""
struct cell { float m; float e; };
__global__ void k(cell *c, const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 1.0f;
  while (i < n) {
    %s
    i += blockDim.x * gridDim.x;
  }
}
"""


@pytest.mark.parametrize(("body", "why"), [
    # s keeps the previous element's value when the body reads it before assigning it
    ("c[i].m += s; s = w[i]; c[i].e = s;", "writes 's', declared outside the loop"),
    ("if (w[i] > 0.0f) s = w[i]; c[i].m = s; c[i].e = s;",
     "writes 's', declared outside the loop"),
    # one member of two updated: the other keeps what memory holds
    ("c[i].e *= w[i];", "written through a member of its element"),
    # the second update reads the member the first one stored
    ("c[i].m += w[i]; c[i].e += c[i].m;", "written through a member of its element"),
    # legal: s assigned first in the body, both members updated
    ("s = w[i] * 2.0f; c[i].e -= s; c[i].m *= s;", None),
])
def test_what_is_an_element_value(tmp_path: Path, body: str, why: str | None) -> None:
    src = tmp_path / "k.cu"
    src.write_text(KERNEL % body)
    parsed, _ = parse_for_fusion(str(src), ParseOptions())
    fn = parsed.unit.function("k")
    assert fn is not None
    view = build_view(fn)
    assert view.grid_stride
    if why is None:
        assert view.producer_reason is None and "c" in view.stores, view.producer_reason
    else:
        assert view.producer_reason is not None and why in view.producer_reason, \
            view.producer_reason
