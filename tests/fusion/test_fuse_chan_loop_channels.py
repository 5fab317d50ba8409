"""Channels of the thread's element updated inside loops (issue 25, felixchu's Poisson
cloning shrinks an RGB image by 8x8 box sums `target_a[c * 3 + k] += ...` then `/= 64`):
kernel/chan_accumulate.py keeps each channel in a local and stores it once at the end, so
the view reads the stores as channels. Two spellings of our own fuse (a 2-D RGB box
downsampling with `__restrict__` pointers; a 1-D pair of interleaved sums built under an
if/else in a loop of run-time length, from an int buffer, which cannot alias the float
one; and the same sums from what memory holds, in a buffer the group may leave unstored),
compared with the original under the emulator on garbage at odd sizes, every byte of
every buffer; what could see memory the locals hold instead is left as written and
refused with the view's reason."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from equivalence import PAD, call_both, compare_entry, fuse_file

from cudafuse.frontend import ParseOptions
from cudafuse.passes.vertical.kernel.recognise import build_view
from cudafuse.passes.vertical.kernel.respell import parse_for_fusion

PROGRAM = r"""
#include <cuda_runtime.h>

__global__ void shrink(const float *__restrict__ in, float *__restrict__ small, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int o = y * w + x;
  if (x < w && y < h) {
    small[o * 3 + 0] = 0.0f;
    small[o * 3 + 1] = 0.0f;
    small[o * 3 + 2] = 0.0f;
    for (int r = 0; r < 4; r++) {
      for (int c = 0; c < 4; c++) {
        const int at = ((y * 4 + r) * (w * 4) + (x * 4 + c)) * 3;
        small[o * 3 + 0] += in[at + 0];
        small[o * 3 + 1] += in[at + 1];
        small[3 * o + 2] += in[at + 2];
      }
    }
    small[o * 3 + 0] /= 16;
    small[o * 3 + 1] /= 16;
    small[o * 3 + 2] /= 16;
  }
}

__global__ void gray(const float *small, float *g, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const int o = y * w + x;
  g[o] = 0.25f * small[o * 3 + 0] + 0.5f * small[o * 3 + 1] + 0.25f * small[o * 3 + 2];
}

__global__ void sums(const int *v, float *m, int n, int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  m[2 * i + 1] = 1.0f;
  m[i * 2] = -0.5f;
  for (int k = 0; k < len; k++) {
    float t = (float)v[i * len + k] * 0.01f;
    if (t > 0.0f) m[2 * i] += t;
    else m[i * 2 + 1] -= t * m[2 * i + 1];
  }
  m[2 * i] *= 0.5f;
}

// the same sums from what memory holds (loaded channels: the buffer is updated in place)
__global__ void more(const int *v, float *m, int n, int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = 0; k < len; k++) {
    float t = (float)v[i * len + k] * 0.01f;
    if (t > 0.0f) m[2 * i] += t;
    else m[i * 2 + 1] -= t * m[2 * i + 1];
  }
  m[2 * i] *= 0.5f;
  m[2 * i + 1] += 1.0f;
}

__global__ void spread(const float *m, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = m[2 * i] - m[2 * i + 1];
}

void pyramid(const float *in, float *small, float *g, int w, int h) {
  dim3 b(8, 8), grid((w + 7) / 8, (h + 7) / 8);
  shrink<<<grid, b>>>(in, small, w, h);
  gray<<<grid, b>>>(small, g, w, h);
}

void moments(const int *v, float *m, float *out, int n, int len) {
  sums<<<(n + 31) / 32, 32>>>(v, m, n, len);
  spread<<<(n + 63) / 64, 64>>>(m, out, n);
}

void moments_from(const float *start, const int *v, float *out, int n, int len) {
  float *m;
  cudaMalloc(&m, 2 * n * sizeof(float));
  cudaMemcpy(m, start, 2 * n * sizeof(float), cudaMemcpyDeviceToDevice);
  more<<<(n + 31) / 32, 32>>>(v, m, n, len);
  spread<<<(n + 63) / 64, 64>>>(m, out, n);
  cudaFree(m);
}
"""


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("loopchan")
    src, out = folder / "loopchan.cu", folder / "loopchan.fused.cu"
    src.write_text(PROGRAM)
    result = fuse_file(src, out, fuse_all=True)
    assert sorted(g.kernels for g in result.groups) == [
        ["more", "spread"], ["shrink", "gray"], ["sums", "spread"]]
    return src, out


def test_loop_channels_fuse(fused: tuple[Path, Path]) -> None:
    text = fused[1].read_text()
    assert all(f"{k} fused into" in text for k in ("shrink", "sums", "more"))


@pytest.mark.slow
def test_loop_channels_match(fused: tuple[Path, Path]) -> None:
    """(slow: two emulator builds, about 20 s; shared 2-core VM, 2026-11-29)"""
    for w, h in ((13, 7), (1, 1), (9, 17)):
        compare_entry(*fused, "pyramid", {"w": w, "h": h},
                      extra={"in": 48 * w * h, "small": 3 * w * h})
    rng = np.random.default_rng(3)
    for n, length in ((37, 5), (1, 0), (70, 3)):
        v = rng.integers(-300, 300, n * max(length, 1) + PAD, dtype=np.int32)
        garbage = [(rng.standard_normal(2 * n + PAD) * 3).astype(np.float32)
                   for _ in range(3)]
        _same_bytes(*fused, "moments", [v, garbage[0], garbage[1], n, length])
        _same_bytes(*fused, "moments_from", [garbage[2], v, garbage[1], n, length])


def _same_bytes(src: Path, out: Path, entry: str, args: list) -> None:
    for a, b in zip(*call_both(src, out, entry, args), strict=True):
        if isinstance(a, np.ndarray):
            bad = np.flatnonzero(a.view(np.uint8) != b.view(np.uint8))
            assert bad.size == 0, f"{entry} {args[-2:]}: byte {bad[0]} differs"


KERNEL = r"""
__global__ void k(const float *in, %s *s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    %s
  }
}
"""


@pytest.mark.parametrize(("elem", "body"), [
    # in may be s (same element type, neither __restrict__): a read of in[k] could see the
    # channel the local holds
    ("float", "s[2 * i] = 0.0f; s[2 * i + 1] = 0.0f; for (int k = 0; k < n; k++) "
     "{ s[2 * i] += in[k]; s[2 * i + 1] += in[k] * in[k]; }"),
    # channel 0 is only updated in the loop (none when n is 0): the original may not touch it
    ("float *__restrict__", "for (int k = 0; k < n; k++) s[2 * i] += in[k]; "
     "s[2 * i + 1] = 1.0f;"),
    # a return inside the stretch: the stores at its end would not run
    ("float *__restrict__", "s[2 * i] = 0.0f; s[2 * i + 1] = 0.0f; for (int k = 0; k < n; "
     "k++) { if (in[k] < 0.0f) return; s[2 * i] += in[k]; s[2 * i + 1] -= in[k]; }"),
    # several elements: the channel moves with the loop
    ("float *__restrict__", "s[2 * i] = 0.0f; s[2 * i + 1] = 0.0f; for (int k = 0; k < n; "
     "k++) s[2 * i + k % 2] += in[k];"),
])
def test_left_as_written(tmp_path: Path, elem: str, body: str) -> None:
    src = tmp_path / "k.cu"
    text = KERNEL % (elem.replace(" *__restrict__", ""), body)
    if "restrict" in elem:
        text = text.replace("float *s", "float *__restrict__ s")
    src.write_text(text)
    parsed, _ = parse_for_fusion(str(src), ParseOptions())
    fn = parsed.unit.function("k")
    assert fn is not None
    assert "cf_s" not in parsed.unit.source.data.decode()
    view = build_view(fn)
    assert view.producer_reason is not None and "in a loop" in view.producer_reason, \
        view.producer_reason
