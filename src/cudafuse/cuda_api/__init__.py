"""The CUDA APIs as cudafuse declares them, once, for the front end and the emulator alike:
cudafuse_cuda_api.h (the runtime API, included by the front end's shim and the emulator's
runtime); cudafuse_cublas_api.h, cudafuse_cublaslt_api.h, cudafuse_cufft_api.h and
cudafuse_cufftxt_api.h (cuBLAS, cuBLASLt, cuFFT, included by both sides' stand-ins). The
emulator defines every function declared here. Adding a runtime function or type is one edit
in these headers (docs/architecture.md)."""

from __future__ import annotations

from pathlib import Path

HEADER_NAME = "cudafuse_cuda_api.h"


def header_path() -> Path:
    """The runtime API's header."""
    return Path(__file__).resolve().parent / HEADER_NAME


def headers() -> list[Path]:
    """Every shared header, in a stable order (what a cache key that depends on them reads)."""
    return sorted(Path(__file__).resolve().parent.glob("*.h"))
