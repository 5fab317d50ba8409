"""CPU emulation of CUDA: the C++ header (include/) and the source rewrite that targets it."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from cudafuse import cuda_api

HEADER_NAME = "cudafuse_emu.h"


def include_dir() -> Path:
    return Path(str(resources.files("cudafuse.emu") / "include"))


def header_path() -> Path:
    return include_dir() / HEADER_NAME


def headers_blob() -> bytes:
    """Every emulator header's name and text (cudafuse_emu.h and the stand-ins a program may
    include, such as cooperative_groups.h, and the API declarations they include, cuda_api/):
    what an emu build's cache key depends on."""
    root = include_dir()
    parts = [p.name.encode() + b"\0" + p.read_bytes() for p in cuda_api.headers()]
    for p in sorted(f for f in root.rglob("*") if f.is_file() and f.suffix in ("", ".h", ".inc")):
        parts.append(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return b"\0".join(parts)
