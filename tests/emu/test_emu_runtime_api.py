"""The emulator's CUDA runtime API (cudafuse_emu_runtime.h): the H100-like device it reports,
events timed by the host clock, streams with flags and priorities, callbacks in order, host
and managed allocations, symbols, 2D copies, error names; user headers on -I that win over
the stand-ins and take their `#ifdef __CUDA_RUNTIME_H__` branches; a program's own headers
with `extern __shared__` arrays and launches; clear refusals for
libraries, the graph calls the emulator lacks and the driver API."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.diagnostics import CudafuseError
from cudafuse.runtime import load
from cudafuse.runtime.errors import KernelError


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAMS / "runtime_api.cu", opt="-O1") as lib:
        yield lib


def test_device_properties_and_attributes(lib) -> None:
    out = np.zeros(64, np.int64)
    lib.call("device_report", out)
    expected = [
        1, 0, 90, 132, 2048, 1024, 48 << 10, 227 << 10, 228 << 10, 65536, 32, 50 << 20,
        80 << 30, 1, 1, 1,  # properties
        132, 9, 227 << 10, 32,  # attributes
        101, 0, 101, 0,  # cudaErrorInvalidDevice, kept by cudaGetLastError until read
        13000, 13000, 13000,  # driver, runtime, CUDART_VERSION
        1 << 20,  # cudaMemGetInfo sees the allocation
        0,  # no peer access
        8, 1024, 2 * 132,  # occupancy: 256 threads -> 8 blocks/SM; best block, its grid
        0,
    ]
    assert out[:len(expected)].tolist() == expected


def test_events_streams_callbacks_and_host_memory(lib) -> None:
    n = 4096
    x = np.ones(n, np.float32)
    out = np.zeros(64, np.int64)
    ms = np.zeros(1, np.float32)
    lib.call("stream_report", x, n, out, ms)
    expected = [
        0, -5,  # priority range
        1, -5,  # non-blocking flag; a priority clamped to the range
        0, 0, 1, 2,  # cudaHostAlloc, cudaHostGetDevicePointer; host and device memory
        0, 0, 0,  # event query, synchronize, elapsed time
        400,  # cudaErrorInvalidResourceHandle: an event without timing
        0, 0,  # stream query, synchronize
        1, 2, 3,  # callbacks and host functions ran in program order
        0, 0, 0, 0,  # managed memory, advice, prefetch, attach
        0,  # cudaFreeHost
    ]
    assert out[:len(expected)].tolist() == expected
    assert ms[0] > 0  # host time around 8M loop iterations
    ref = np.ones(n, np.float32)
    for _ in range(2000):
        ref = ref * np.float32(0.999) + np.float32(1.0)
    assert np.allclose(x, ref, rtol=1e-5)


def test_symbols_2d_copies_and_error_names(lib) -> None:
    grid = np.arange(15, dtype=np.float32)
    out = np.zeros(16, np.int64)
    names = np.zeros(256, np.uint8)
    lib.call("memory_report", grid, out, names)
    assert out[:9].tolist() == [0, 1, 34, 7, 16, 0, 512, 700, 719]
    ref = np.arange(15, dtype=np.float32).reshape(3, 5)
    ref[:, 4] = 0  # only 4 columns copied in, 5 copied back over a zeroed pitch
    assert np.array_equal(grid.reshape(3, 5), ref)
    text = names.tobytes().split(b"\0")[0].decode()
    assert text == "cudaErrorInvalidValue|cudaErrorNotReady|no error|cudaErrorInvalidDevice"


_HELPER = """\
#pragma once
#ifdef __CUDA_RUNTIME_H__
#include <stdio.h>
inline int userHelperDevice() {
  int n = 0, major = 0;
  cudaGetDeviceCount(&n);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  return n * 1000 + major * 10 + prop.minor + (CUDART_VERSION >= 13000 ? 100 : 0);
}
#define checkCudaErrors(call) userCheck((call), #call)
inline int g_checked = 0;
inline void userCheck(cudaError_t e, const char *) { g_checked += 1 + (int)e; }
#else
#error "the CUDA branch of the user's header was not taken"
#endif
"""

_PROGRAM = """\
#include <cuda_runtime.h>
#include <helper_cuda.h>

__global__ void fill(int *out, int v) { out[threadIdx.x] = v; }

void run(int *out, int *checked) {
  int *d = nullptr;
  checkCudaErrors(cudaMalloc(&d, 32 * sizeof(int)));
  fill<<<1, 32>>>(d, userHelperDevice());
  checkCudaErrors(cudaGetLastError());
  checkCudaErrors(cudaMemcpy(out, d, 32 * sizeof(int), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaFree(d));
  *checked = g_checked;
}
"""


def test_user_helper_header_wins_and_takes_cuda_branch(tmp_path: Path) -> None:
    inc = tmp_path / "common"
    inc.mkdir()
    (inc / "helper_cuda.h").write_text(_HELPER)  # the stand-in's name: the user's wins
    src = tmp_path / "prog.cu"
    src.write_text(_PROGRAM)
    out = np.zeros(32, np.int32)
    checked = np.zeros(1, np.int32)
    with load(src, include_dirs=[str(inc)], opt="-O0") as lib:
        lib.call("run", out, checked)
    assert (out == 1000 + 90 + 100).all()
    assert checked[0] == 4


def test_own_header_with_extern_shared_and_launches(tmp_path: Path) -> None:
    (tmp_path / "kernels.cuh").write_text(textwrap.dedent("""\
        #pragma once
        template <class T> struct Shared;
        template <> struct Shared<float> {
          __device__ float *get() { extern __shared__ float s_float[]; return s_float; }
        };
        __global__ void reverse(float *x) {
          extern __shared__ float buf[];
          float *other = Shared<float>().get();
          buf[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
          __syncthreads();
          x[blockIdx.x * blockDim.x + threadIdx.x] = other[blockDim.x - 1 - threadIdx.x];
        }
        template <int B> __global__ void add(float *x, float v) {
          x[blockIdx.x * B + threadIdx.x] += v;
        }
        inline void launch_all(float *d, int blocks, int b) {
          reverse<<<blocks, b, b * sizeof(float)>>>(d);
          add<64><<<dim3(blocks),
                    dim3(64)>>>(d, 1.0f);  /* a launch over two lines */
        }
        """))
    src = tmp_path / "main.cu"
    src.write_text(textwrap.dedent("""\
        #include "kernels.cuh"
        void run(float *x, int n) {
          float *d;
          cudaMalloc(&d, n * sizeof(float));
          cudaMemcpy(d, x, n * sizeof(float), cudaMemcpyHostToDevice);
          launch_all(d, n / 64, 64);
          cudaMemcpy(x, d, n * sizeof(float), cudaMemcpyDeviceToHost);
          cudaFree(d);
        }
        """))
    x = np.arange(256, dtype=np.float32)
    with load(src, opt="-O0") as lib:
        lib.call("run", x, 256)
    assert np.array_equal(x, np.arange(256, dtype=np.float32).reshape(4, 64)[:, ::-1]
                          .reshape(-1) + 1)


@pytest.mark.parametrize("line,needle", [
    ('#include "cudnn_backend.h"', "this cuDNN header (\"cudnn_backend.h\") is not supported"),
    ("#include <cublasXt.h>", "this cuBLAS header (legacy or Xt API) is not supported"),
    ("#include <cusparse_v2.h>", "this cuSPARSE header is not supported"),
    ("#include <cuda_gl_interop.h>", "OpenGL interoperability is not supported"),
    ("#include <cub/cub.cuh>", "CUB is not supported by the emulator"),
    ("void g(cudaGraph_t g) { cudaUserObjectRelease(0, 1); }", "this CUDA graph API"),
    ("void g() { cuInit(0); }", "the CUDA driver API"),
])
def test_unsupported_libraries_are_refused_at_the_line(tmp_path: Path, line: str,
                                                       needle: str) -> None:
    src = tmp_path / "lib.cu"
    src.write_text(f"// cublas_v2.h in a comment is fine\n{line}\n__global__ void k() {{}}\n")
    with pytest.raises(CudafuseError) as info:
        load(src, opt="-O0")
    diag = info.value.diagnostics[0]
    assert needle in diag.message and diag.line == 2


def test_undefined_function_names_the_file_defining_it(tmp_path: Path) -> None:
    """A function another file of the program defines builds as a stand-in (emu/undefined.py:
    the kernels a spec launches may need none of them); called, it stops the run with its
    name and that file, located at the function that calls it, not as a crash. Without
    such a file the build is refused."""
    (tmp_path / "gold.cpp").write_text("void computeGold(float *r, int n)\n{ r[0] = n; }\n")
    src = tmp_path / "prog.cu"
    src.write_text("void computeGold(float *, int);\n"
                   "void run(float *r) { computeGold(r, 1); }\n"
                   "extern \"C\" void other(float *r) { r[0] = 2; }\n")
    lib = load(src, opt="-O0")
    r = np.zeros(1, np.float32)
    lib.call("other", r)
    assert r[0] == 2
    with pytest.raises(KernelError, match=r"prog\.cu:2:6: error: computeGold\(float\*, int\) was "
                       r"called \(by run\(float\*\)\), but another file .*\(gold\.cpp seems "
                       r"to define it; only the program's own"):
        lib.call("run", r)
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "prog.cu").write_text(src.read_text() + "// alone\n")
    with pytest.raises(CudafuseError, match=r"undefined reference to computeGold"):
        load(alone / "prog.cu", opt="-O0")


_OPENMP = """\
#include <omp.h>
__global__ void add(int *p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += v;
}
extern "C" void run(int *p, int n, int *team) {
  omp_set_num_threads(4);
#pragma omp parallel
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    team[0] = nt;
    for (int k = t; k < 4; k += nt) add<<<(n + 63) / 64, 64>>>(p, k + 1, n);
  }
}
"""


def test_openmp_host_code_runs_as_a_team_of_one(tmp_path: Path) -> None:
    # The emulator builds without -fopenmp: the region runs once, on a team of one thread,
    # which still performs every iteration of a loop written for any team size.
    src = tmp_path / "omp.cu"
    src.write_text(_OPENMP)
    p, team = np.zeros(100, np.int32), np.zeros(1, np.int32)
    with load(src, opt="-O0") as lib:
        lib.call("run", p, 100, team)
    assert team[0] == 1 and (p == 1 + 2 + 3 + 4).all()


def test_ptx_in_an_own_header_is_refused_at_its_line(tmp_path: Path) -> None:
    # The main file's inline assembly is refused before the build; a header's reaches the
    # host assembler, whose complaint is turned into the refusal at the header's line.
    (tmp_path / "ptx.cuh").write_text(
        "__device__ unsigned lane_id() {\n  unsigned r = 0;\n"
        '  asm volatile("ld.shared.u32 %0, [%0];" : "+r"(r));\n  return r;\n}\n')
    src = tmp_path / "main.cu"
    src.write_text('#include "ptx.cuh"\n'
                   "__global__ void k(unsigned *p) { p[threadIdx.x] = lane_id(); }\n"
                   'extern "C" void run(unsigned *p) { k<<<1, 32>>>(p); }\n')
    with pytest.raises(CudafuseError) as info:
        load(src, opt="-O0")
    (d,) = info.value.diagnostics
    assert d.file.endswith("ptx.cuh") and d.line == 3
    assert d.message.startswith("inline assembly is not supported by the emulator (only the "
                                "CUDAFUSE_BAR_SYNC(id, n) macro and the PTX of "
                                "docs/emulation.md")
    assert "the host assembler rejects it (" in d.message
