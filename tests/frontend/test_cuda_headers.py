"""What real CUDA code expects of the headers: deprecation warnings at the call for calls CUDA
13 removed, the guard macros of the real headers (cuda-samples' helper_cuda.h declares its CUDA
helpers under #ifdef __CUDA_RUNTIME_H__), and user headers on -I winning over the stand-ins."""

from __future__ import annotations

from pathlib import Path

import pytest

from cudafuse.diagnostics import CudafuseError, Severity
from cudafuse.frontend.parse import ParseOptions, parse_file


def write(d: Path, name: str, text: str) -> Path:
    p = d / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def test_removed_runtime_calls_warn_at_the_call(tmp_path: Path) -> None:
    path = write(tmp_path, "old.cu", """\
#include <cuda_runtime.h>
__global__ void k(int *p) { p[0] = 1; }
int main() {
  k<<<1, 1>>>(nullptr);
  cudaThreadSynchronize();
  size_t v;
  cudaThreadGetLimit(&v, cudaLimitStackSize);
  return cudaThreadExit();
}
""")
    result = parse_file(str(path))
    warnings = [(d.line, d.col, d.message.split(":")[0]) for d in result.diagnostics
                if d.severity == Severity.WARNING]
    assert warnings == [(5, 3, "'cudaThreadSynchronize' is deprecated"),
                        (7, 3, "'cudaThreadGetLimit' is deprecated"),
                        (8, 10, "'cudaThreadExit' is deprecated")]
    assert all(d.file == str(path) for d in result.diagnostics)
    assert "use cudaDeviceSynchronize" in result.diagnostics[0].message
    assert [k.name for k in result.unit.kernels] == ["k"]
    assert [ln.kernel for ln in result.unit.launches["main"]] == ["k"]


def test_helper_header_guarded_by_cuda_runtime_macros(tmp_path: Path) -> None:
    inc = tmp_path / "inc"
    write(inc, "my_helpers.h", """\
#pragma once
#include <stdio.h>
#if defined(__CUDA_RUNTIME_H__) && defined(__DRIVER_TYPES_H__) && CUDART_VERSION >= 12000 && \\
    __CUDACC_VER_MAJOR__ >= 12 && defined(__VECTOR_TYPES_H__)
template <class T> void check(T result, const char *what) {
  if (result) fprintf(stderr, "%s: %s\\n", what, cudaGetErrorName(result));
}
#define CHECK(x) check((x), #x)
#endif
""")
    path = write(tmp_path, "use.cu", """\
#include <cuda_runtime.h>
#include "my_helpers.h"
__global__ void k(int *p) { p[0] = 1; }
int main() {
  int *d;
  CHECK(cudaMalloc(&d, 4));
  k<<<1, 1>>>(d);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
""")
    result = parse_file(str(path), ParseOptions(include_dirs=(str(inc),)))
    assert result.diagnostics == []
    assert [ln.kernel for ln in result.unit.launches["main"]] == ["k"]


def test_user_helper_cuda_h_wins_over_the_stand_in(tmp_path: Path) -> None:
    inc = tmp_path / "common"
    write(inc, "helper_cuda.h", """\
#pragma once
#ifdef __CUDA_RUNTIME_H__
inline int myOwnFindDevice() { return 3; }
#define checkCudaErrors(x) (void)(x)
#endif
""")
    path = write(tmp_path, "s.cu", """\
#include <cuda_runtime.h>
#include <helper_cuda.h>
__global__ void k(int *p) { p[0] = 1; }
int main() {
  int dev = myOwnFindDevice();
  checkCudaErrors(cudaSetDevice(dev));
  k<<<1, 1>>>(nullptr);
  return 0;
}
""")
    result = parse_file(str(path), ParseOptions(include_dirs=(str(inc),)))
    assert result.diagnostics == []
    assert str(inc / "helper_cuda.h") in result.unit.includes
    # Without the user's directory, the stand-in (which has no myOwnFindDevice) is used.
    with pytest.raises(CudafuseError, match="myOwnFindDevice"):
        parse_file(str(path))


def test_curand_and_cufft_stand_ins(tmp_path: Path) -> None:
    # Kernels drawing with cuRAND's device API and host code calling cuRAND/cuFFT parse;
    # the real headers' guards are defined, so a user header's cuRAND/cuFFT branches (as
    # in cuda-samples' helper_cuda.h) are taken.
    write(tmp_path, "inc/check.h", """\
#pragma once
#ifdef CURAND_H_
inline const char *rand_error(curandStatus_t s) { return s ? "curand error" : "ok"; }
#endif
#ifdef _CUFFT_H_
inline const char *fft_error(cufftResult r) { return r ? "cufft error" : "ok"; }
#endif
""")
    path = write(tmp_path, "mc.cu", """\
#include <curand.h>
#include <curand_kernel.h>
#include <cufft.h>
#include "check.h"
__global__ void setup(curandState *states, unsigned long long seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(seed, i, 0, &states[i]);
}
__global__ void estimate(curandState *states, float *hits, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandState s = states[i];
  float x = curand_uniform(&s), y = curand_normal(&s);
  hits[i] = x * x + y * y <= 1.0f;
  states[i] = s;
}
__global__ void scale(cufftComplex *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { c[i].x *= 0.5f; c[i].y *= 0.5f; }
}
void host(float *out, cufftComplex *data, int n) {
  curandGenerator_t g;
  rand_error(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT));
  curandGenerateUniform(g, out, n);
  cufftHandle plan;
  fft_error(cufftPlan1d(&plan, n, CUFFT_C2C, 1));
  cufftExecC2C(plan, data, data, CUFFT_FORWARD);
  scale<<<(n + 127) / 128, 128>>>(data, n);
}
""")
    result = parse_file(str(path), ParseOptions(include_dirs=(str(tmp_path / "inc"),)))
    assert result.diagnostics == []
    assert [k.name for k in result.unit.kernels] == ["setup", "estimate", "scale"]


def test_runtime_overloads_that_cuda_13_keeps_do_not_warn(tmp_path: Path) -> None:
    # The pre-12 graph signatures are inline wrappers in CUDA 13's cuda_runtime.h (no
    # warning from nvcc); cooperative launches and capture-dependency flags are declared.
    path = write(tmp_path, "g.cu", """\
#include <cuda_runtime.h>
__global__ void k(int *p) { p[threadIdx.x] = 1; }
void run(cudaGraph_t g, cudaStream_t s, cudaGraphNode_t n, int *p) {
  cudaGraphExec_t e;
  cudaGraphInstantiate(&e, g, NULL, NULL, 0);
  cudaGraphExecUpdateResult r;
  cudaGraphNode_t bad;
  cudaGraphExecUpdate(e, g, &bad, &r);
  void *args[] = {&p};
  cudaLaunchCooperativeKernel((void *)k, dim3(1), dim3(32), args, 0, s);
  cudaLaunchCooperativeKernel(k, dim3(1), dim3(32), args);
  cudaStreamUpdateCaptureDependencies(s, &n, NULL, 1, cudaStreamSetCaptureDependencies);
}
""")
    result = parse_file(str(path))
    assert result.diagnostics == []
    assert result.unit.function("run") is not None  # not skipped


@pytest.mark.parametrize("header", ["cooperative_groups.h", "cooperative_groups/reduce.h",
                                    "cuda/barrier", "cuda/pipeline", "cuda/std/type_traits",
                                    "cuda/std/limits"])
def test_headers_that_bring_half_and_bfloat16(tmp_path: Path, header: str) -> None:
    # CUDA 13's cooperative_groups.h and libcu++ headers include cuda_fp16.h and cuda_bf16.h
    # (llm.c's layernorm_backward.cu uses __nv_bfloat16 with only these included).
    path = write(tmp_path, "k.cu", f"""\
#include <{header}>
__global__ void k(const __nv_bfloat16 *x, const __half *y, float *o) {{
  o[threadIdx.x] = __bfloat162float(x[threadIdx.x]) + __half2float(y[threadIdx.x]);
}}
""")
    result = parse_file(str(path))
    assert [k.name for k in result.unit.kernels] == ["k"]
    assert not [d for d in result.diagnostics if d.severity != Severity.NOTE]


def test_headers_that_do_not_bring_bfloat16(tmp_path: Path) -> None:
    # cuda_runtime.h does not, with nvcc either: the kernel is refused, not analysed.
    path = write(tmp_path, "k.cu", "#include <cuda_runtime.h>\n"
                 "__global__ void k(__nv_bfloat16 *x) { x[0] = x[1]; }\n")
    with pytest.raises(CudafuseError, match="could not be analysed"):
        parse_file(str(path))


def test_cublas_brings_half_and_bfloat16(tmp_path: Path) -> None:
    # cublas_api.h includes cuda_fp16.h and cuda_bf16.h (llm.c's gelu_forward.cu relies on it)
    path = write(tmp_path, "k.cu", "#include <cuda_runtime.h>\n#include <cublas_v2.h>\n"
                 "typedef __nv_bfloat16 floatX;\n"
                 "__global__ void k(floatX *x, const __half *y) { x[0] = __half2float(y[0]); }\n")
    assert [k.name for k in parse_file(str(path)).unit.kernels] == ["k"]
