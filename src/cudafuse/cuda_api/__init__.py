"""The CUDA runtime API as cudafuse declares it: one header, cudafuse_cuda_api.h, that the
front end's shim and the emulator's runtime both include (the emulator then defines the
functions). Adding a runtime type or function is one edit there."""

from __future__ import annotations

from pathlib import Path

HEADER_NAME = "cudafuse_cuda_api.h"


def header_path() -> Path:
    return Path(__file__).resolve().parent / HEADER_NAME
