"""Outputs a grid-stride loop builds in memory at its element (accumulate.py's accumulators,
issue 25): PCampi's n-body compute_a sets `a[tid]` to zero and adds each other body's pull in
an all-pairs loop, member by member (respelled to whole double2 copies of a local,
respell/member_stores.py). The value at an element is the thread's private local, returned
after the loop; nothing is read from memory. Two spellings of our own fuse (a float2 struct
built member by member in a for-form loop, a float sum in a while-form loop), compared with
the original under the emulator, every byte of every buffer, garbage-filled, at odd sizes;
an accumulation that reads another element is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

from cudafuse.frontend import ParseOptions
from cudafuse.passes.vertical.kernel.recognise import build_view
from cudafuse.passes.vertical.kernel.respell import parse_for_fusion

PROGRAM = r"""
__global__ void pull(const float *m, const float2 *x, float2 *a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    a[i].y = 0.0f;
    a[i].x = 0.0f;
    for (int j = 0; j < n; j++) {
      if (j == i) continue;
      float dx = x[j].x - x[i].x, dy = x[j].y - x[i].y;
      float s = m[j] / (dx * dx + dy * dy + 0.01f);
      a[i].x += s * dx;
      a[i].y += s * dy;
    }
  }
}

__global__ void kick(float2 *v, const float2 *a, float h, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    v[i].x += h * a[i].x;
    v[i].y += h * a[i].y;
  }
}

__global__ void window(const float *in, float *s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int k;
  while (i < n) {
    s[i] = in[i];
    for (k = 1; k < 5; k++)
      s[i] += in[(i + k) % n] * (float)k;
    s[i] *= 0.25f;
    i += blockDim.x * gridDim.x;
  }
}

__global__ void square(const float *s, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = s[i] * s[i] - 1.0f;
}

void step(const float *m, const float2 *x, float2 *v, float2 *a, int n) {
  pull<<<2, 32>>>(m, x, a, n);
  kick<<<1, 64>>>(v, a, 0.5f, n);
}

void smooth(const float *in, float *s, float *out, int n) {
  window<<<3, 32>>>(in, s, n);
  square<<<(n + 31) / 32, 32>>>(s, out, n);
}
"""


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("accumulate")
    src, out = folder / "acc.cu", folder / "acc.fused.cu"
    src.write_text(PROGRAM)
    result = fuse_file(src, out, fuse_all=True)
    assert sorted(g.kernels for g in result.groups) == [["pull", "kick"], ["window", "square"]]
    return src, out


def test_grid_stride_accumulators_fuse(fused: tuple[Path, Path]) -> None:
    text = fused[1].read_text()
    assert "pull fused into" in text and "window fused into" in text


@pytest.mark.slow
def test_grid_stride_accumulators_match(fused: tuple[Path, Path]) -> None:
    """(slow: two emulator builds, about 15 s; shared 2-core VM, 2026-11-29)"""
    for n in (37, 1, 70):
        compare_entry(*fused, "step", {"n": n})
        compare_entry(*fused, "smooth", {"n": n})


KERNEL = r"""
__global__ void k(const float *in, float *s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    %s
  }
}
"""


@pytest.mark.parametrize(("body", "why"), [
    # a neighbour's sum, which another thread builds
    ("s[i] = in[i]; for (int k = 0; k < 3; k++) s[i] += s[(i + 1) % n];",
     "written other than"),
    ("s[i] = 0.0f; for (int k = 0; k < 3; k++) s[(i + k) % n] += in[i];",
     "written other than"),
    # legal: the own element only, its first value not read from memory
    ("s[i] = 1.0f; for (int k = 0; k < n; k++) { if (in[k] < 0.0f) continue; s[i] += in[k]; }",
     None),
])
def test_what_a_grid_stride_accumulator_is(tmp_path: Path, body: str, why: str | None) -> None:
    src = tmp_path / "k.cu"
    src.write_text(KERNEL % body)
    parsed, _ = parse_for_fusion(str(src), ParseOptions())
    fn = parsed.unit.function("k")
    assert fn is not None
    view = build_view(fn)
    assert view.grid_stride
    if why is None:
        assert view.producer_reason is None and view.accumulators == {"s"}, \
            view.producer_reason
    else:
        assert view.producer_reason is not None and why in view.producer_reason, \
            view.producer_reason
