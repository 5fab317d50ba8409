"""Kernel launches written in full inside macro arguments are rewritten for the emulator
(programs/macro_launches.cu: a variadic CHECK, checkKernelErrors((...)), a launch nested in two
macros' arguments, a template kernel, two launches in one invocation); a launch made by a
macro's definition is still refused, with its location."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS, assert_nvcc_compiles

from cudafuse.diagnostics import CudafuseError
from cudafuse.runtime import load
from cudafuse.runtime.build import BuildOptions, build

PROGRAM = PROGRAMS / "macro_launches.cu"


@pytest.mark.parametrize("n", [1000, 128, 77])
def test_launches_in_macro_arguments_run(n):
    rng = np.random.default_rng(n)
    a = rng.integers(-50, 50, n).astype(np.float32)
    blocks = (n + 127) // 128
    sums = np.zeros(blocks, np.float32)
    with load(PROGRAM) as lib:
        assert lib.call("pipeline", a.copy(), sums, n) == 0
        out = a.copy()
        lib.call("pipeline", out, sums, n)
    want = ((a * 2 + 1) * 3 - 0.5) * 0.5  # exact in float32 for these inputs
    np.testing.assert_array_equal(out, want)
    padded = np.zeros(blocks * 128, np.float32)
    padded[:n] = want
    np.testing.assert_allclose(sums, padded.reshape(blocks, 128).sum(axis=1), rtol=1e-6)


MACRO_BODY = """\
#define LAUNCH(k, ...) k<<<1, 32>>>(__VA_ARGS__)
__global__ void fill(float *a) { a[threadIdx.x] = 1.0f; }
void run(float *a) {
  LAUNCH(fill, a);
}
"""


def test_launch_in_macro_definition_refused(tmp_path):
    src = tmp_path / "body.cu"
    src.write_text(MACRO_BODY)
    with pytest.raises(CudafuseError, match=r"body\.cu:4:3: .*cannot rewrite the launch of "
                       r"'fill' for emulation \(is it inside a macro\?\)") as info:
        build(str(src), "emu", BuildOptions(opt="-O0"))
    assert "macro's definition" in str(info.value)


# nvcc checks this test's own program, no cudafuse code: its verdict changes only with the
# program or the toolkit, so `make test-slow` runs it (about 2-11 CPU-s; issue 27).
@pytest.mark.nvcc
@pytest.mark.slow
def test_program_compiles_with_nvcc(tmp_path):
    assert_nvcc_compiles(PROGRAM, tmp_path)


@pytest.mark.parametrize("t, size", [(0, 4), (1, 8)])
def test_launch_in_a_lambda_a_macro_expands_twice(t, size):
    # The front end lists the one launch once per expansion, at the same place in the text:
    # it is rewritten once (it was refused, as if made by the macro's definition).
    out = np.zeros(300, np.float32)
    with load(PROGRAMS / "dispatch_lambda_launch.cu", opt="-O0") as lib:
        lib.call("run", out, 300, t)
    np.testing.assert_array_equal(out, size + np.arange(300, dtype=np.float32))
