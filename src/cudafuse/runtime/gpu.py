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
        drv = self._drv
        keep: list[Any] = []
        ptrs: list[int] = []
        buffers: list[tuple[Any, np.ndarray]] = []
        try:
            for kind, value in items:
                if kind == "a":
                    host = np.array(value, copy=True, order="C")
                    dev = drv.mem_alloc(max(host.nbytes, 1))
                    drv.memcpy_htod(dev, host)
                    buffers.append((dev, host))
                    buf: Any = ctypes.c_void_p(int(dev))
                elif kind == "same":
                    buf = ctypes.c_void_p(keep[value].value)
                else:
                    buf = ctypes.create_string_buffer(bytes(value), max(len(value), 16))
                keep.append(buf)
                ptrs.append(ctypes.addressof(buf))
            argv = (ctypes.c_void_p * max(len(ptrs), 1))(*ptrs)
            ret = ctypes.create_string_buffer(16)
            if op == "h":
                rc = getattr(self._lib, f"cudafuse_h_{name}")(argv, ret)
            else:
                assert cfg is not None
                dims = (ctypes.c_uint * 6)(*cfg[:6])
                rc = getattr(self._lib, f"cudafuse_k_{name}")(dims, ctypes.c_size_t(cfg[6]),
                                                              argv)
            drv.Context.synchronize()
            for dev, host in buffers:
                drv.memcpy_dtoh(host, dev)
            return rc, ret.raw, [host for _, host in buffers]
        finally:
            for dev, _ in buffers:
                dev.free()

    def prepare(self, op: str, name: str, label: str, args: Any, items: list[Item],
                cfg: tuple[int, ...] | None) -> Any:
        from cudafuse.runtime.prepared import GpuPrepared

        entry = getattr(self._lib, f"cudafuse_{'ha' if op == 'h' else 'ka'}_{name}")
        return GpuPrepared(self._drv, entry, op, label, args, items, cfg)

    def close(self) -> None:
        pass
