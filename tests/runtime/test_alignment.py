"""Spec arrays are aligned as cudaMalloc's memory is where a program needs it: a kernel that
stores int4 through an int* of 333 elements (OpenMM's clearTwoBuffers) or loads float4
through a float* of 1001 runs under `cudafuse run` as on a GPU, instead of dying of a
misaligned 16-byte access; the guard after each array still reports an access one past
its end (tests/runtime/test_bounds.py, and the placement checks below)."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from cudafuse.cli import main
from cudafuse.runtime.worker import PAGE, GuardedBuffers

PROG = """#include <cuda_runtime.h>
// OpenMM's way: the int buffer cleared 16 bytes at a time, its tail one int at a time.
__global__ void clearBuf(int *__restrict__ buf, int size) {
  int index = blockDim.x * blockIdx.x + threadIdx.x;
  int4 *buf4 = (int4 *)buf;
  int sizeDiv4 = size / 4;
  while (index < sizeDiv4) {
    buf4[index] = make_int4(7, 7, 7, 7);
    index += blockDim.x * gridDim.x;
  }
  if (blockDim.x * blockIdx.x + threadIdx.x == 0)
    for (int i = sizeDiv4 * 4; i < size; i++) buf[i] = 7;
}

// A templated grid-stride kernel reading and writing four floats at a time.
template <typename V>
__global__ void scale4(const float *__restrict__ in, float *__restrict__ out, int n, float s) {
  const V *in4 = reinterpret_cast<const V *>(in);
  V *out4 = reinterpret_cast<V *>(out);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n / 4; i += gridDim.x * blockDim.x) {
    V v = in4[i];
    out4[i] = V{v.x * s, v.y * s, v.z * s, v.w * s};
  }
  if (blockIdx.x == 0 && threadIdx.x < n % 4) {
    int j = n / 4 * 4 + threadIdx.x;
    out[j] = in[j] * s;
  }
}

void run(int *buf, int size, const float *in, float *out, int n) {
  clearBuf<<<2, 64>>>(buf, size);
  scale4<float4><<<3, 32>>>(in, out, n, 3.0f);
}
"""
SPEC = """entry = "run"
[sizes]
size = 333
n = 1001
[[args]]
name = "buf"
dtype = "int32"
count = "size"
role = "out"
[[args]]
name = "size"
value = "size"
[[args]]
name = "in"
dtype = "float32"
count = "n"
init = "ramp"
[[args]]
name = "out"
dtype = "float32"
count = "n"
role = "out"
[[args]]
name = "n"
value = "n"
"""


def test_vector_access_through_odd_sized_arrays(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # -O2, as `cudafuse run` builds: the tests' default -O0 copies an int4 in 8-byte halves,
    # which no alignment faults; -O2 uses 16-byte SSE moves, which fault unless 16-aligned.
    monkeypatch.setenv("CUDAFUSE_EMU_OPT", "-O2")
    (tmp_path / "p.cu").write_text(PROG)
    (tmp_path / "p.toml").write_text(SPEC)
    saved = tmp_path / "out.npz"
    result = CliRunner().invoke(main, ["run", str(tmp_path / "p.cu"), "--spec",
                                       str(tmp_path / "p.toml"), "--save", str(saved)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    with np.load(saved) as got:
        assert (got["buf"] == 7).all() and got["buf"].size == 333
        ramp = np.arange(1001, dtype=np.float32)
        np.testing.assert_array_equal(got["out"], ramp * np.float32(3.0))


def _placed(align: int, nbytes: int) -> tuple[int, int]:
    """(start, first guarded address) of one array placed by GuardedBuffers."""
    buffers = GuardedBuffers("", ctypes.CDLL(None), align)
    try:
        start, reserved = buffers._place(nbytes)
        base = int(reserved.split()[0])
        return start, base + PAGE + -(-nbytes // PAGE) * PAGE
    finally:
        buffers.results()


def test_placement_exact_end_and_aligned_start() -> None:
    for nbytes in (1332, 4004, 4, 256, 4096, 5000):
        start, guard = _placed(0, nbytes)
        assert start + nbytes == guard  # one byte past the end faults
        start, guard = _placed(256, nbytes)
        assert start % 256 == 0 and 0 <= guard - (start + nbytes) < 256
