"""Host functions of one name and the same parameter types in different namespaces (two
filters' `apply` in `blur` and `sharpen`) are each callable, named with their namespace
(`blur::apply(float *, int, float)`); before, both were `apply(float *, int, float)` and one of
them silently hid the other (issue 31)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cudafuse.runtime import load
from cudafuse.runtime.build import BuildOptions, prepare

PROG = """#include <cuda_runtime.h>
__global__ void mix(float *v, int n, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = a * v[i] + b;
}
namespace blur {
void apply(float *host, int n, float weight = 0.5f) {
  float *d; cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, host, n * sizeof(float), cudaMemcpyHostToDevice);
  mix<<<(n + 31) / 32, 32>>>(d, n, weight, 1.0f);
  cudaMemcpy(host, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
}
}  // namespace blur
namespace sharpen {
void apply(float *host, int n, float weight = 2.0f) {
  float *d; cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, host, n * sizeof(float), cudaMemcpyHostToDevice);
  mix<<<(n + 31) / 32, 32>>>(d, n, weight, -1.0f);
  cudaMemcpy(host, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
}
}  // namespace sharpen
"""


def test_each_namespace_gets_its_own_name(tmp_path: Path) -> None:
    # the front end's parse alone (no compile): the names and symbols of the trampolines
    (tmp_path / "p.cu").write_text(PROG)
    entries = prepare(str(tmp_path / "p.cu"), "emu", BuildOptions()).entries
    named = {e.name: e for e in entries if "apply" in e.name}
    assert set(named) == {"blur::apply(float *, int, float)",
                          "sharpen::apply(float *, int, float)"}
    assert len({e.sym for e in named.values()}) == 2
    assert {e.cxx_name for e in named.values()} == {"::blur::apply", "::sharpen::apply"}


@pytest.mark.slow  # a build: about 5 CPU-s
def test_same_signature_in_two_namespaces(tmp_path: Path) -> None:
    (tmp_path / "p.cu").write_text(PROG)
    v = np.arange(40, dtype=np.float32)
    with load(tmp_path / "p.cu", opt="-O0") as lib:
        names = {"blur::apply(float *, int, float)", "sharpen::apply(float *, int, float)"}
        assert names <= set(lib.signatures)
        got = v.copy()
        lib.call("blur::apply(float *, int, float)", got, 40)  # the default weight
        np.testing.assert_array_equal(got, v * 0.5 + 1)
        got = v.copy()
        lib.call("sharpen::apply(float *, int, float)", got, 40, 3.0)
        np.testing.assert_array_equal(got, v * 3 - 1)
        with pytest.raises(KeyError, match="blur::apply"):
            lib.call("apply", got, 40)
