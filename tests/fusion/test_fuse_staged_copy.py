"""A producer that copies its filter into shared memory before a barrier (kernel/staged_copy.py)
is recomputed without the copy: its reads of the copy read the filter at the same element,
under a run-time check that every element read is one its thread 0 copied. Programs in the
style of the cs344 blur homework (split a channel, blur it with a filter staged in shared
memory, scale the result), each compared with the original under the emulator, every
element; and the copies that cannot be shown complete, refused with their reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

from cudafuse.passes.vertical.driver import report_dict

PROGRAM = """
#include <cuda_runtime.h>
__global__ void split(const float *rgb, float *red, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  red[y * w + x] = rgb[y * w + x] * 0.5f + 1.0f;
}
__global__ void blur(const float *in, float *out, int w, int h, const float *filt, int fw) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col >= w || row >= h) return;
  int half = fw / 2;
  __shared__ float fs[49];
  COPY
  __syncthreads();
  float sum = 0.f;
  for (int r = -half; r <= half; ++r) {
    for (int c = -half; c <= half; ++c) {
      int yy = min(max(row + r, 0), h - 1);
      int xx = min(max(col + c, 0), w - 1);
      sum += in[yy * w + xx] * fs[(r + half) * fw + c + half];
    }
  }
  out[row * w + col] = sum;
}
__global__ void sharpen(const float *in, float *out, int w, int h, const float *tab) {
  __shared__ float k3[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) k3[i][j] = tab[3 * i + j];
  __syncthreads();
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.f;
    for (int r = -1; r <= 1; ++r)
      for (int c = -1; c <= 1; ++c)
        s += k3[r + 1][c + 1] * in[min(max(y + r, 0), h - 1) * w + min(max(x + c, 0), w - 1)];
    out[y * w + x] = s;
  }
}
__global__ void smooth(const float *in, float *out, int w, int h, const float *taps) {
  __shared__ float ts[8];
  int t = threadIdx.y * blockDim.x + threadIdx.x;
  if (t < 3) ts[t] = taps[t];
  __syncthreads();
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int d = -1; d <= 1; ++d) s += ts[d + 1] * in[y * w + min(max(x + d, 0), w - 1)];
  out[y * w + x] = s;
}
__global__ void scale(const float *in, const float *in2, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = 2.0f * in[y * w + x] + in2[y * w + x];
}
extern "C" void pipe(const float *rgb, const float *filt, const float *tab, const float *taps,
                     float *red, float *blurred, float *sharp, float *smoothed, float *out,
                     int w, int h, int fw) {
  dim3 block(16, 8);
  dim3 grid((w + 15) / 16, (h + 7) / 8);
  split<<<grid, block>>>(rgb, red, w, h);
  blur<<<grid, block>>>(red, blurred, w, h, filt, fw);
  sharpen<<<grid, block>>>(blurred, sharp, w, h, tab);
  smooth<<<grid, block>>>(red, smoothed, w, h, taps);
  scale<<<grid, block>>>(sharp, smoothed, out, w, h);
}
"""
THREAD_ZERO = ("if (threadIdx.x == 0 && threadIdx.y == 0) "
               "for (int i = 0; i < fw * fw; i++) fs[i] = filt[i];")
EACH_THREAD = ("if (threadIdx.x < fw && threadIdx.y < fw) "
               "fs[threadIdx.y * fw + threadIdx.x] = filt[threadIdx.y * fw + threadIdx.x];")
SHIFTED = ("if (threadIdx.x == 0 && threadIdx.y == 0) "
           "for (int i = 0; i < fw * fw; i++) fs[i] = filt[i + 1];")


def _fuse(tmp: Path, copy: str):
    src, out = tmp / "pipe.cu", tmp / "pipe.fused.cu"
    src.write_text(PROGRAM.replace("COPY", copy))
    return src, out, fuse_file(src, out, fuse_all=True)  # (correctness, not the model)


def _edges(result) -> dict[tuple[int, int], str]:
    return {(e["from_launch"], e["to_launch"]): "fused" if e["fused"] else e["why"]
            for e in report_dict(result)["edges"]}


@pytest.fixture(scope="module")
def copied(tmp_path_factory):
    return _fuse(tmp_path_factory.mktemp("thread_zero"), THREAD_ZERO)


def test_copies_are_read_as_the_buffers(copied) -> None:
    _, out, result = copied
    assert set(_edges(result).values()) == {"fused"}
    code = out.read_text()
    # Each value function reads the buffer itself; no block-wide step is left in it.
    (blur,) = re.findall(r"float \w+_blur_out_xy\(.*?\n}\n", code, re.S)
    (sharp,) = re.findall(r"float \w+_sharpen_out_xy\(.*?\n}\n", code, re.S)
    (smooth,) = re.findall(r"float \w+_smooth_out_xy\(.*?\n}\n", code, re.S)
    for xy in (blur, sharp, smooth):
        assert "__syncthreads" not in xy and "__shared__" not in xy
    assert "fs[" not in blur and "filt[(r + half) * fw + c + half]" in blur
    # (the 3x3 array's element [r + 1][c + 1] is the table's (r + 1) * 3 + (c + 1))
    assert "k3" not in sharp and "tab[(((r + 1) * 3) + (c + 1))]" in sharp
    # (thread t copies element t < 3 of the taps; the locals only the copy used go too)
    assert "taps[(d + 1)]" in smooth.replace("taps[d + 1]", "taps[(d + 1)]") and \
        "int t =" not in smooth
    # Fused under the check that every element read is one thread 0 copied; the 3x3
    # table's bounds are constants, settled here; the taps need a block of 3 threads.
    assert "<= (long long)(((fw * fw) - 1))" in code and "(49 - 1)" in code
    assert "(long long)((1 + 1)) < (long long)(block).x * (long long)(block).y" in code


def test_fused_kernel_matches_the_original(copied) -> None:
    # The fused launch alone (its fallback to the original launches cut out), so that a
    # check that failed could not pass the comparison: a 5x5 filter, partial blocks.
    src, out, _ = copied
    code = out.read_text()
    start = code.index("} else { /* cudafuse: the original launches */")
    end = code.index("}", code.index("scale<<<", start))
    assert code.count("cudafuse: the original launches") == 1
    alone = out.with_name("pipe.fused_only.cu")
    alone.write_text(code[:start] + "} else {" + code[end:])
    compare_entry(src, alone, "pipe", {"w": 37, "h": 29, "fw": 5})  # (filt, tab: w * h)


@pytest.mark.parametrize(("fw", "fused"), [(5, True), (7, True), (4, False), (9, False)])
def test_check_holds_where_every_read_was_copied(copied, fw: int, fused: bool) -> None:
    # The group's run-time condition, evaluated as C would for a 16x8 block: 4 (an even
    # width reads past what thread 0 copies) and 9 (the copy overflows fs[49]) run the
    # original launches, whose reads of what nobody stored are undefined; 5 and 7 fuse.
    code = copied[1].read_text()
    cond = re.search(r"if \((.*?)\) \{ cf_pipe_fused0<<<", code).group(1)
    cond = cond.replace("(block).x", "16").replace("(block).y", "8").replace(
        "(long long)", "").replace("&&", " and ").replace("/", "//")
    assert "fw" in cond and eval(cond, {"fw": fw, "w": 37, "h": 29, "grid": None}) is fused


def test_copy_by_thread_zero_of_a_linear_index(tmp_path: Path) -> None:
    # `tid == 0` with tid the thread's index in its block holds for thread 0 whatever the
    # block: its copy is read through the buffer as the one under threadIdx.x == 0 && ...
    _, out, result = _fuse(tmp_path, "int tid = threadIdx.y * blockDim.x + threadIdx.x;\n"
                           "  " + THREAD_ZERO.replace(
                               "threadIdx.x == 0 && threadIdx.y == 0", "tid == 0"))
    assert _edges(result)[(1, 2)] == "fused"
    (blur,) = re.findall(r"float \w+_blur_out_xy\(.*?\n}\n", out.read_text(), re.S)
    assert "fs[" not in blur and "__syncthreads" not in blur and "tid == 0" not in blur
    # ... but not `tid == 1`, which thread 0 does not take.
    _, _, result = _fuse(tmp_path, "int tid = threadIdx.y * blockDim.x + threadIdx.x;\n"
                         "  " + THREAD_ZERO.replace(
                             "threadIdx.x == 0 && threadIdx.y == 0", "tid == 1"))
    assert "'blur' cannot be recomputed: its copy of 'filt'" in _edges(result)[(1, 2)]


def test_copy_by_each_thread_after_the_guard_is_refused(tmp_path: Path) -> None:
    _, _, result = _fuse(tmp_path, EACH_THREAD)
    why = _edges(result)[(1, 2)]
    assert _edges(result)[(2, 4)] == "fused"  # (the 3x3 table's copy: every thread's)
    assert "'blur' cannot be recomputed: its copy of 'filt' into shared 'fs'" in why
    assert "a thread that returns at the bounds guard stores nothing" in why


def test_copy_at_another_element_is_refused(tmp_path: Path) -> None:
    _, _, result = _fuse(tmp_path, SHIFTED)
    why = _edges(result)[(1, 2)]
    assert "copies 'filt' at another element than its own" in why


def test_a_producer_that_prints_is_refused(tmp_path: Path) -> None:
    # Printing before the guard is work before it, but no tile: the reason says what it is
    # (a producer recomputed at each read would print once per evaluation).
    _, _, result = _fuse(tmp_path, THREAD_ZERO.replace(
        "if (threadIdx.x", 'if (col == 0 && row == 0) printf("%d\\n", fw);\n  if (threadIdx.x'))
    why = _edges(result)[(1, 2)]
    assert "'blur' cannot be recomputed: it prints ('printf', line 15): recomputed where it " \
           "is read, it would print once per evaluation" in why


def test_copy_that_converts_is_refused(tmp_path: Path) -> None:
    # A float copy of a double buffer holds rounded values: reading the buffer instead would
    # not.
    src, out = tmp_path / "pipe.cu", tmp_path / "pipe.fused.cu"
    src.write_text(PROGRAM.replace("COPY", THREAD_ZERO).replace(
        "const float *filt, int fw) {", "const double *filt, int fw) {").replace(
        "const float *filt, const float *tab", "const double *filt, const float *tab"))
    why = _edges(fuse_file(src, out, fuse_all=True))[(1, 2)]
    assert "its store to shared 'fs' (line 15) converts the elements of 'filt' (const " \
           "double to float)" in why
