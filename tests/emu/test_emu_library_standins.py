"""Libraries the emulator does not run are refused at their first use, not their include
(issue 31).

darknet includes curand.h and cublas_v2.h in every .cu file, and its cuda.h declares
`cudnnHandle_t cudnn_handle();` under #ifdef CUDNN: a program that only includes such a
header, or names its handle types in signatures, builds and runs; a call into the library is
refused at the call (emu/libraries.py), and one the text scan cannot see (built by a macro)
fails g++ with a message that names the library (runtime/build.py).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from cudafuse.diagnostics import CudafuseError
from cudafuse.runtime import load

_KERNEL = """\
__global__ void twice(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
"""


def test_a_program_that_only_includes_the_libraries_runs(tmp_path: Path) -> None:
    """Includes (one through the program's own header, which names the handle types in
    declarations), a status check in an error helper, a library call and a header without a
    stand-in in branches the preprocessor drops (llm.c's #ifdef ENABLE_CUDNN), and a
    function of the program's own named like the library's."""
    (tmp_path / "net.h").write_text(textwrap.dedent("""\
        #pragma once
        #include "curand.h"
        #include <cusolverDn.h>
        #include <nvjpeg.h>
        curandGenerator_t gen();
        cusolverDnHandle_t solver_handle();
        #ifdef CUDNN
        #include "cudnn.h"
        cudnnHandle_t cudnn_handle();
        #endif
        """))
    src = tmp_path / "net.cu"
    src.write_text(textwrap.dedent("""\
        #include <npp.h>
        #include <curand_mtgp32_kernel.h>
        #ifdef ENABLE_CUDNN
        #include <cudnn_frontend.h>
        #endif
        #include "net.h"
        static const char *status_name(curandStatus_t s) {
          return s == CURAND_STATUS_SUCCESS ? "ok" : "failed";
        }
        int cudnn_handle_count() { return 0; }
        #ifdef CUDNN
        void unused() { cudnnCreate(0); }
        #endif
        """) + _KERNEL + textwrap.dedent("""\
        extern "C" void run(float *x, int n) {
          float *d;
          cudaMalloc(&d, n * sizeof(float));
          cudaMemcpy(d, x, n * sizeof(float), cudaMemcpyHostToDevice);
          twice<<<(n + 63) / 64, 64>>>(d, n);
          cudaMemcpy(x, d, n * sizeof(float), cudaMemcpyDeviceToHost);
          cudaFree(d);
          if (status_name(CURAND_STATUS_SUCCESS)[0] != 'o') x[0] = -1.0f;
        }
        """))
    x = np.arange(100, dtype=np.float32)
    with load(src, opt="-O0") as lib:
        lib.call("run", x, 100)
    assert np.array_equal(x, 2 * np.arange(100, dtype=np.float32))


@pytest.mark.parametrize("use,name,library", [
    ("curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);", "curandCreateGenerator",
     "cuRAND"),
    ("curandState s; curand_init(1, 0, 0, &s);", "curandState", "cuRAND"),
    ("nppiSet_8u_C1R(0, 0, 0, NppiSize());", "nppiSet_8u_C1R", "NPP"),
])
def test_a_use_is_refused_at_its_line_and_column(tmp_path: Path, use: str, name: str,
                                                 library: str) -> None:
    src = tmp_path / "use.cu"
    src.write_text("#include <curand.h>\n#include <npp.h>\n// curandDestroyGenerator(g);\n"
                   + _KERNEL + f"void h(curandGenerator_t g) {{\n  {use}\n}}\n")
    with pytest.raises(CudafuseError) as info:
        load(src, opt="-O0")
    diag = info.value.diagnostics[0]
    assert (diag.file, diag.line, diag.col) == (str(src), 9, 3)
    assert diag.message.startswith(f"{library} is not supported by the emulator: '{name}'")


@pytest.mark.slow  # a g++ build of the emulator (6 s on a loaded machine)
def test_a_use_in_the_programs_header_is_refused_by_g_plus_plus_naming_the_library(
        tmp_path: Path) -> None:
    """The program's own headers are left to g++ (it knows which of their branches are
    live): the call's "not declared" error is reported as the library's refusal, there."""
    (tmp_path / "solver.h").write_text(
        "#include <cusolverDn.h>\n"
        "inline void make(cusolverDnHandle_t *s) {\n  cusolverDnCreate(s);\n}\n")
    src = tmp_path / "solve.cu"
    src.write_text('#include "solver.h"\n' + _KERNEL)
    with pytest.raises(CudafuseError) as info:
        load(src, opt="-O0")
    diag = info.value.diagnostics[0]
    assert (Path(diag.file).name, diag.line, diag.col) == ("solver.h", 3, 3)
    assert diag.message.startswith("cuSOLVER is not supported by the emulator: "
                                   "'cusolverDnCreate' is part of its API (g++: ")


@pytest.mark.parametrize("gxx,expected", [
    ("\u2018curandCreateGenerator\u2019 was not declared in this scope", "cuRAND"),
    ("\u2018cudnnTensorFormat_t\u2019 has not been declared", "cuDNN"),
    ("'curandState' does not name a type", "cuRAND"),
    ("there are no arguments to \u2018nvrtcCreateProgram\u2019 that depend on a template "
     "parameter, so a declaration of \u2018nvrtcCreateProgram\u2019 must be available",
     "NVRTC"),
    ("\u2018curandGenerator_t\u2019 was not declared in this scope", None),  # declared
    ("\u2018cudnn_handle\u2019 was not declared in this scope", None),  # not its spelling
    ("\u2018launch\u2019 was not declared in this scope", None),
])
def test_g_plus_plus_errors_about_a_librarys_names_become_its_refusal(
        gxx: str, expected: str | None) -> None:
    from cudafuse.emu.libraries import gxx_refusal

    got = gxx_refusal(gxx)
    if expected is None:
        assert got is None
    else:
        assert got is not None and got.startswith(f"{expected} is not supported by the "
                                                  "emulator: '") and got.endswith(f"(g++: {gxx})")


def test_a_header_without_a_stand_in_is_refused_at_the_include(tmp_path: Path) -> None:
    src = tmp_path / "ops.cu"
    src.write_text(_KERNEL + "#include <cudnn_ops.h>\n")
    with pytest.raises(CudafuseError) as info:
        load(src, opt="-O0")
    diag = info.value.diagnostics[0]
    assert diag.line == 5
    assert diag.message == "this cuDNN header (<cudnn_ops.h>) is not supported by the emulator"


def test_a_header_without_a_stand_in_in_a_live_branch_is_refused(tmp_path: Path) -> None:
    """The refusals of the includes read only the branches the preprocessor keeps: the same
    #ifdef as in the test that runs, with its macro defined."""
    src = tmp_path / "live.cu"
    src.write_text("#ifdef ENABLE_CUDNN\n#include <cudnn_frontend.h>\n#endif\n" + _KERNEL)
    with pytest.raises(CudafuseError) as info:
        load(src, opt="-O0", defines=["ENABLE_CUDNN"])
    diag = info.value.diagnostics[0]
    assert (diag.line, diag.col) == (2, 1)
    assert diag.message == ("this cuDNN header (<cudnn_frontend.h>) is not supported by the "
                            "emulator")
