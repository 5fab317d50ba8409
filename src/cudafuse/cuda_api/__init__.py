"""The CUDA APIs as cudafuse declares them, once, for the front end and the emulator alike:
cudafuse_cuda_api.h (the runtime API, included by the front end's shim and the emulator's
runtime); cudafuse_cublas_api.h, cudafuse_cublaslt_api.h, cudafuse_cufft_api.h,
cudafuse_cufftxt_api.h and cudafuse_cusparse_api.h (cuBLAS, cuBLASLt, cuFFT, cuSPARSE, included
by both sides' stand-ins);
cudafuse_fp16_api.h and cudafuse_bf16_api.h (__half, __nv_bfloat16: both sides' cuda_fp16.h
and cuda_bf16.h, through cudafuse_f16_api.inc); cudafuse_device_api.h (device intrinsics: the
shim and cudafuse_emu.h), cudafuse_texture_api.h (fetches and surface accesses: the shim and
cudafuse_emu_texture.h); cudafuse_math_constants.h, cudafuse_omp_api.h, cudafuse_std.h
(math_constants.h, omp.h, cuda::std). The emulator defines every function declared
here, or the declaration says why not (CUDAFUSE_NOT_EMULATED). Adding a runtime function or
type is one edit in these headers (docs/architecture.md); tests/emu/test_cuda_api_decls.py
checks that the front end parses, and the emulator builds, a use of every declaration."""

from __future__ import annotations

from pathlib import Path

HEADER_NAME = "cudafuse_cuda_api.h"


def header_path() -> Path:
    """The runtime API's header."""
    return Path(__file__).resolve().parent / HEADER_NAME


def headers() -> list[Path]:
    """Every shared header (and the .inc files they read), in a stable order (what a cache key
    that depends on them reads)."""
    root = Path(__file__).resolve().parent
    return sorted([*root.glob("*.h"), *root.glob("*.inc")])
