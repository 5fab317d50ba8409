"""A paper repository staged for the nvcc backend: hfuse_library_pairs._stage's copy (the
files nvcc and the emulator compile: .cu, .cuh, .h, .hpp, .c) with the repository's C++
sources beside them (.cpp, .cc, .cxx). A kernel file's host code names what those define
(ccminer's blake2b.cu: cuda_default_throughput, in cuda.cpp), and the nvcc backend links a
stand-in for such a symbol only where it finds a file beside the program or in its include
folders that seems to define it (src/cudafuse/runtime/standins.py); nothing of them is
compiled. In the cache's layout; on the GPU machine only the ones `gpu_session.py
--prepare` carried are there."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

HOST_SOURCES = (".cpp", ".cc", ".cxx")


def stage(lib: Any, cache: Path, repo: str, work: Path) -> Path:
    """`repo` (owner/name) of `cache` staged into `work` by `lib` (hfuse_library_pairs),
    its host C++ sources added; the copy's root."""
    root = lib._stage(cache, repo, work)
    src = cache / repo.replace("/", "+")
    for path in src.rglob("*"):
        if path.is_file() and path.suffix in HOST_SOURCES:
            dest = root / path.relative_to(src)
            if not dest.exists():
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, dest)
    return root
