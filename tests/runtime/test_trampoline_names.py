"""The trampolines appended to a program (runtime/trampoline.py) spell only reserved names
(`__cf_...`), or set a program's macro aside where a name cannot be one (issue 27): a
program built with `-D` of the names they spelled before still runs, through each kind of
trampoline (a kernel, a host function, one with a default argument, `main`)."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from cudafuse.runtime import load
from cudafuse.runtime.build import BuildOptions, prepare

PROGRAM = r"""
#include <cstdio>
__global__ void scale(float *a, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= s;
}
int offset(int *a, int n, int by = 7) {
  for (int i = 0; i < n; ++i) a[i] += by;
  return n * by;
}
int main() { return 0; }
"""

# Every name the trampolines spelled before they were reserved, and those they must spell
# (the emulator's launch, the exported symbols), each a macro that breaks the name's use.
# `invoke` and `code`, which they spelled too, are public names of the C++ library
# (std::invoke, system_error::code()): the emulator's own headers include <functional> and
# <system_error>, which break under `-D invoke=1` as they would under nvcc. The nvcc
# backend's trampolines, which include neither, are compiled with `-D invoke=1` (the
# toolkit's own headers spell `code`).
NAMES = ("invoke_", "invoke_first", "invoke_first_", "cf_a", "cf_r", "cf_s", "cf_e",
         "cf_f", "cf_v", "cf_c", "cf_sh", "cf_k", "cf_x", "cf_p", "cf_m", "cf_n", "cf_name",
         "cf_rc", "cf_argv", "cf_prog", "cf_status", "cf_takes", "cf_fibers", "CfR", "CfP",
         "CfT", "CfU", "CfI", "CfC", "CfF", "CfN", "CfA", "CfV", "cudafuse_rt", "fn_ptr",
         "complete", "plain", "scalar_code", "returned", "signature", "arg",
         "fn_traits", "ret", "params", "arity", "takes", "takes_", "required", "required_",
         "launch", "launch_", "launch_async", "guarded", "thrown", "exit_called", "status",
         "in_main", "run_main", "parallel_kernel", "run", "environ", "cudafuse_fp_offset",
         "cudafuse_c_offset", "cudafuse_manifest", "cudafuse_thrown")


def test_trampolines_build_and_run_under_the_programs_macros(tmp_path) -> None:
    src = tmp_path / "names.cu"
    src.write_text(PROGRAM)
    defines = {name: i + 1 for i, name in enumerate(NAMES)}
    with load(src, defines=defines, opt="-O0") as lib:
        a = np.arange(5, dtype=np.float32)
        lib.launch("scale", 1, 8, 0, (a, np.float32(2), np.int32(5)))
        np.testing.assert_array_equal(a, 2 * np.arange(5, dtype=np.float32))
        b = np.zeros(4, np.int32)
        assert lib.call("offset", b, 4) == 28  # the default argument
        assert lib.call("offset", b, 4, 1) == 4
        np.testing.assert_array_equal(b, 8)
        assert lib.call("main") == 0


@pytest.mark.slow  # (nvcc: about 9 s)
@pytest.mark.nvcc
def test_nvcc_trampolines_compile_under_the_programs_macros(tmp_path) -> None:
    src = tmp_path / "names.cu"
    src.write_text(PROGRAM)
    out = tmp_path / "gen.cu"
    out.write_text(prepare(str(src), "nvcc", BuildOptions()).text)
    # (the toolkit's headers spell many of NAMES themselves: `arg`, `status`, `launch`,
    # `code`...)
    names = ("invoke", *(m for m in NAMES if m.startswith(("cf_", "Cf"))),
             "cudafuse_rt", "fn_ptr", "guarded", "thrown", "launch_async", "fn_traits")
    flags = [f"-D{name}={i + 1}" for i, name in enumerate(names)]
    proc = subprocess.run(["nvcc", "-c", "-arch=sm_90", "-std=c++17", *flags, str(out), "-o",
                           str(tmp_path / "out.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
