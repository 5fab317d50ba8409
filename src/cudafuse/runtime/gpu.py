"""The nvcc backend: a library built with `nvcc -shared`, called in this process through
ctypes, with device buffers from PyCUDA on the primary context. The only module that imports
pycuda, and only when a GPU library is loaded."""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

import numpy as np

from cudafuse.runtime.convert import Item


class GpuExecutor:
    def __init__(self, library: Path):
        import pycuda.autoprimaryctx  # noqa: F401  - shares its context with the runtime API
        import pycuda.driver as drv

        self._drv = drv
        self._lib = ctypes.CDLL(str(library))
        self._lib.cudafuse_manifest.restype = ctypes.c_char_p
        self.manifest = self._lib.cudafuse_manifest().decode()

    def run(self, op: str, name: str, items: list[Item],
            cfg: tuple[int, ...] | None) -> tuple[int, bytes, list[np.ndarray]]:
        """One call through the synchronising entry: buffers in, run, buffers out."""
        from cudafuse.runtime.prepared import GpuPrepared

        entry = getattr(self._lib, f"cudafuse_{op}_{name}")
        once = GpuPrepared(self._drv, entry, op, name, [], items, cfg)
        try:
            rc = once.invoke()
            return rc, once.returned, once.results()
        finally:
            once.close()

    def prepare(self, op: str, name: str, label: str, args: Any, items: list[Item],
                cfg: tuple[int, ...] | None) -> Any:
        from cudafuse.runtime.prepared import GpuPrepared

        entry = getattr(self._lib, f"cudafuse_{'ha' if op == 'h' else 'ka'}_{name}")
        return GpuPrepared(self._drv, entry, op, label, args, items, cfg)

    def close(self) -> None:
        pass
