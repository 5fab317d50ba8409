"""The 256-byte alignment fallback (runtime/emu_exec.py) serves any call, not only a
worker's first: a call that dies of a misaligned 16-byte access after earlier calls left
state in the worker (a __constant__ set by one call, read by the next) is rerun in an
aligned worker after those earlier calls are replayed, so its result is the GPU's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cudafuse.runtime import load

PROG = """#include <cuda_runtime.h>
__constant__ int fill_value;
void set_fill(int v) { cudaMemcpyToSymbol(fill_value, &v, sizeof v); }
// 16 bytes at a time through the int buffer, then the tail one int at a time
__global__ void fill4(int *buf, int size) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int4 *wide = reinterpret_cast<int4 *>(buf);
  if (i < size / 4) wide[i] = make_int4(fill_value, fill_value, fill_value, fill_value);
  if (i == 0) for (int j = size / 4 * 4; j < size; j++) buf[j] = fill_value;
}
void fill(int *buf, int size) { fill4<<<(size / 4 + 63) / 64, 64>>>(buf, size); }
"""


@pytest.mark.slow  # an -O2 build and its runtime object: about 9 CPU-s
def test_a_later_call_needing_alignment_keeps_the_earlier_calls_state(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # -O2: 16-byte SSE stores, which fault unless 16-aligned (-O0 copies in 8-byte halves)
    monkeypatch.setenv("CUDAFUSE_EMU_OPT", "-O2")
    (tmp_path / "p.cu").write_text(PROG)
    buf = np.zeros(333, np.int32)  # 1332 bytes: placed 4-byte aligned, its end at the guard
    with load(tmp_path / "p.cu") as lib:
        lib.call("set_fill", 9)
        lib.call("fill", buf, 333)  # before: 'general-protection fault' (a KernelError)
        np.testing.assert_array_equal(buf, 9)
        lib.call("set_fill", 4)  # the aligned worker keeps serving, with its state
        lib.call("fill", buf, 333)
        np.testing.assert_array_equal(buf, 4)
