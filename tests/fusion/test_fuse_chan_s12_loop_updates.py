"""Channels a loop updates, in kernels whose plain pointers only the launches keep apart
(issue 25, felixchu_poisson's shrinkbackground_* -> CalculateFixed): kernel/chan_hosts.py
reads from the host code that a kernel's two `float *` parameters name different buffers
at every launch in the file (a buffer the host function allocates itself beside its own
pointer parameter), so kernel/chan_accumulate.py keeps the channels in locals; and a
consumer over an iteration space of its own that reads those interleaved channels only
through subscripts the view decodes (`small[up * 3 + 1]`, `up` reassigned at the border)
fuses (channels.decoded_reads). Two spellings of our own: a box shrink starting from 0
with for loops and a #define factor, and one summing onto what memory holds, with while
loops and the factor a parameter (fused only when the caller's buffer is scratch: stored
and read at neighbours it would be a race, and is refused). Differential under the
emulator on garbage at odd sizes, every byte of every buffer. Left as written: a launch
passing one buffer twice, a kernel also reached through its address, a loop reading
another pixel's channel of the buffer it updates; refused: a reader of its own pixel's
channel over another iteration space."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from equivalence import PAD, call_both, fuse_file

from cudafuse.frontend import ParseOptions
from cudafuse.passes.vertical.kernel.respell import parse_for_fusion

PROGRAM = r"""
#include <cuda_runtime.h>
#define F 2

// A 2x2 box shrink of an interleaved RGB image: each channel of the thread's pixel summed in
// memory inside the box loops (plain pointers: only the launches show they differ).
__global__ void shrink(const float *img, float *small, int w, int sw, int sh) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int o = sw * y + x;
  if (y < sh && x < sw) {
    small[o * 3 + 0] = 0.0f;
    small[o * 3 + 1] = 0.0f;
    small[o * 3 + 2] = 0.0f;
    for (int r = 0; r < F; r++) {
      for (int c = 0; c < F; c++) {
        small[o * 3 + 0] += img[(w * (y * F + r) + (x * F + c)) * 3 + 0];
        small[o * 3 + 1] += img[(w * (y * F + r) + (x * F + c)) * 3 + 1];
        small[o * 3 + 2] += img[(w * (y * F + r) + (x * F + c)) * 3 + 2];
      }
    }
    small[o * 3 + 0] /= F * F;
    small[o * 3 + 1] /= F * F;
    small[o * 3 + 2] /= F * F;
  }
}

// The same sums from what memory holds, box loops as while loops, the factor a parameter.
__global__ void shrink_on(const float *img, float *small, int w, int sw, int sh, int f) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= sw || y >= sh) return;
  const int o = x + y * sw;
  int r = 0;
  while (r < f) {
    int c = 0;
    while (c < f) {
      const int at = 3 * (w * (y * f + r) + x * f + c);
      small[3 * o + 2] += img[at + 2];
      small[3 * o] += img[at];
      small[1 + 3 * o] += img[at + 1];
      c++;
    }
    r++;
  }
  small[3 * o] *= 0.25f;
  small[3 * o + 1] *= 0.25f;
  small[3 * o + 2] *= 0.25f;
}

// A stencil over a window of the small image (its own iteration space), reading channels at
// clamped neighbours through locals reassigned at the border.
__global__ void edge(const float *small, float *out, int sw, int sh, int tw, int th, int ox,
                     int oy) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < tw && y < th) {
    const int cur = sw * (oy + y) + (ox + x);
    int up = cur - sw;
    if (up < 0) up = cur;
    int right = cur + 1;
    if (ox + x + 1 >= sw) right = cur;
    const int o = tw * y + x;
    out[o * 3 + 0] = 2.0f * small[cur * 3 + 0] - small[up * 3 + 0] - small[right * 3];
    out[o * 3 + 1] = 2.0f * small[cur * 3 + 1] - small[up * 3 + 1] - small[right * 3 + 1];
    out[o * 3 + 2] = 2.0f * small[cur * 3 + 2] - small[up * 3 + 2] - small[right * 3 + 2];
  }
}

// Its own pixel of the small image, in rows of its own width: refused (the read would be
// the producer's channel at the reader's coordinates, another element when tw != sw).
__global__ void own_px(const float *small, float *out, int tw, int th) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < tw && y < th) out[tw * y + x] = small[(tw * y + x) * 3 + 1];
}

void run_px(const float *img, float *out, int w, int h, int tw, int th) {
  float *small;
  cudaMalloc(&small, 3 * (w / F) * (h / F) * sizeof(float));
  dim3 b(8, 4);
  shrink<<<dim3((w / F + 7) / 8, (h / F + 3) / 4), b>>>(img, small, w, w / F, h / F);
  own_px<<<dim3((tw + 7) / 8, (th + 3) / 4), b>>>(small, out, tw, th);
  cudaFree(small);
}

void run(const float *img, float *out, int w, int h, int tw, int th, int ox, int oy) {
  const int sw = w / F, sh = h / F;
  float *small;
  cudaMalloc(&small, 3 * sw * sh * sizeof(float));
  dim3 b(8, 4);
  shrink<<<dim3((sw + 7) / 8, (sh + 3) / 4), b>>>(img, small, w, sw, sh);
  edge<<<dim3((tw + 7) / 8, (th + 3) / 4), b>>>(small, out, sw, sh, tw, th, ox, oy);
  cudaFree(small);
}

// `small` is the caller's: it starts from what the caller put there and is read afterwards.
void run_on(const float *img, float *small, float *out, int w, int h, int tw, int th, int ox,
            int oy) {
  const int sw = w / 2, sh = h / 2;
  dim3 b(8, 4);
  shrink_on<<<dim3((sw + 7) / 8, (sh + 3) / 4), b>>>(img, small, w, sw, sh, 2);
  edge<<<dim3((tw + 7) / 8, (th + 3) / 4), b>>>(small, out, sw, sh, tw, th, ox, oy);
}
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("chan_s12")
    (folder / "own.cu").write_text(PROGRAM)
    return folder


@pytest.fixture(scope="module")
def fused(folder: Path) -> tuple[Path, Path]:
    src, out = folder / "own.cu", folder / "own.fused.cu"
    result = fuse_file(src, out)
    assert [g.kernels for g in result.groups] == [["shrink", "edge"]]
    why = [e.why for e in result.edges if e.src == "shrink_on"]
    assert len(why) == 1 and "updates 'small' in place" in why[0], why
    why = [e.why for e in result.edges if e.dst == "own_px"]
    assert len(why) == 1 and "do not provably have the same iteration space" in why[0], why
    return src, out


@pytest.fixture(scope="module")
def scratch(folder: Path) -> tuple[Path, Path]:
    src, out = folder / "own.cu", folder / "own.scratch.cu"
    result = fuse_file(src, out, scratch=frozenset({"small"}))
    assert sorted(g.kernels for g in result.groups) == [["shrink", "edge"],
                                                         ["shrink_on", "edge"]]
    return src, out


def test_loop_channels_fuse_across_frames(fused: tuple[Path, Path]) -> None:
    text = fused[1].read_text()
    assert "shrink fused into" in text and "cf_small0" in text


def _same_bytes(src: Path, out: Path, entry: str, args: list, skip: int = -1) -> None:
    for k, (a, b) in enumerate(zip(*call_both(src, out, entry, args), strict=True)):
        if isinstance(a, np.ndarray) and k != skip:
            bad = np.flatnonzero(a.view(np.uint8) != b.view(np.uint8))
            assert bad.size == 0, f"{entry} {args[-6:]}: argument {k}, byte {bad[0]} differs"


# (w, h, tw, th, ox, oy): odd sizes, a one-pixel window, a window at the far corner
SIZES = ((19, 13, 7, 5, 2, 1), (2, 2, 1, 1, 0, 0), (33, 17, 5, 3, 11, 5), (16, 9, 8, 4, 0, 0))


@pytest.mark.slow
def test_loop_channels_match(fused: tuple[Path, Path], scratch: tuple[Path, Path]) -> None:
    """(slow: three emulator builds; shared 2-core VM, 2026-11-29)"""
    rng = np.random.default_rng(12)
    for w, h, tw, th, ox, oy in SIZES:
        img = (rng.standard_normal(3 * w * h + PAD) * 3).astype(np.float32)
        out = (rng.standard_normal(3 * tw * th + PAD) * 3).astype(np.float32)
        small = (rng.standard_normal(3 * (w // 2) * (h // 2) + PAD) * 3).astype(np.float32)
        _same_bytes(*fused, "run", [img, out, w, h, tw, th, ox, oy])
        # (scratch: the fused program no longer stores `small`, argument 1)
        _same_bytes(*scratch, "run_on", [img, small, out, w, h, tw, th, ox, oy], skip=1)


HOSTS = r"""
#include <cuda_runtime.h>
__global__ void k(const float *in, float *s, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    s[2 * i] = 0.0f;
    s[2 * i + 1] = 0.0f;
    for (int j = 0; j < m; j++) { %s }
  }
}
void one(const float *in, float *out, int n) {
  float *t;
  cudaMalloc(&t, 2 * n * sizeof(float));
  k<<<(n + 31) / 32, 32>>>(in, t, n, n);
  %s
  cudaFree(t);
}
"""

UPDATE = "s[2 * i] += in[m * i + j]; s[2 * i + 1] -= in[m * i + j];"


@pytest.mark.parametrize(("body", "more", "kept"), [
    # every launch passes two buffers: respelled
    (UPDATE, "", False),
    # another launch passes one buffer twice (an offset into it): in may be s there
    (UPDATE, "k<<<1, 32>>>(out, out + 2 * n, n, 1);", True),
    # the kernel is also reached through its address: launches not seen
    (UPDATE, "void *f = (void *)k; (void)f;", True),
    # the loop reads another pixel's channel of the buffer it updates
    ("s[2 * i] += s[2 * i + 2] * in[m * i + j]; s[2 * i + 1] -= in[m * i + j];", "", True),
])
def test_hosts_decide(tmp_path: Path, body: str, more: str, kept: bool) -> None:
    src = tmp_path / "k.cu"
    src.write_text(HOSTS % (body, more))
    parsed, _ = parse_for_fusion(str(src), ParseOptions())
    assert ("cf_s0" not in parsed.unit.source.data.decode()) == kept
