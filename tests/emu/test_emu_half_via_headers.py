"""CUDA 13's cooperative_groups.h and libcu++ headers bring cuda_fp16.h and cuda_bf16.h with
them, and so does cublas_api.h; the emulator's stand-ins do too, so a program that uses
__nv_bfloat16 with only those included (llm.c's dev/cuda style) builds and runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cudafuse.runtime import load

PROGRAM = """\
#include <{header}>
__global__ void widen(const __nv_bfloat16 *x, const __half *y, float *out, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __bfloat162float(x[i]) + __half2float(y[i]);
}}
"""


@pytest.mark.parametrize("header", ["cooperative_groups.h", "cooperative_groups/reduce.h",
                                    "cublas_v2.h"])
def test_bfloat16_through_cooperative_groups(tmp_path: Path, header: str) -> None:
    path = tmp_path / "widen.cu"
    path.write_text(PROGRAM.format(header=header))
    n = 100
    rng = np.random.default_rng(3)
    x = rng.standard_normal(n).astype(np.float32)
    bf = (x.view(np.uint32) >> 16).astype(np.uint16)  # truncation: exact in bfloat16
    y = rng.standard_normal(n).astype(np.float16)
    out = np.zeros(n, np.float32)
    with load(path, opt="-O0", timeout=120) as lib:
        lib.launch("widen", 1, 128, 0, (bf, y.view(np.uint16), out, n))
    want = (bf.astype(np.uint32) << 16).view(np.float32) + y.astype(np.float32)
    np.testing.assert_array_equal(out, want)
