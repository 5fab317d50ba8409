"""CPU emulation of CUDA: the C++ header (include/) and the source rewrite that targets it."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

HEADER_NAME = "cudafuse_emu.h"


def include_dir() -> Path:
    return Path(str(resources.files("cudafuse.emu") / "include"))


def header_path() -> Path:
    return include_dir() / HEADER_NAME
