"""The nvcc backend: a library built with `nvcc -shared`, called in this process through
ctypes, with device buffers from PyCUDA on the primary context. The only module that imports
pycuda, and only when a GPU library is loaded."""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

import numpy as np

from cudafuse.runtime.convert import Item

INSTALL_HINT = "pip install -e '.[gpu]' (PyCUDA; it needs an NVIDIA GPU and its driver)"


def require_pycuda() -> None:
    """Fail before the nvcc build, not after it, when PyCUDA is not installed."""
    import importlib.util

    if importlib.util.find_spec("pycuda") is None:
        from cudafuse.diagnostics import error

        raise error(f"the nvcc backend runs on the GPU through PyCUDA, which is not "
                    f"installed: {INSTALL_HINT}; or use --backend emu (the CPU emulator)")


class GpuExecutor:
    def __init__(self, library: Path):
        try:
            import pycuda.autoprimaryctx  # noqa: F401  - shares its context with the runtime API
            import pycuda.driver as drv
        except ImportError as exc:
            from cudafuse.diagnostics import error

            raise error(f"cannot import PyCUDA ({exc}): {INSTALL_HINT}") from None
        except Exception as exc:  # noqa: BLE001 - pycuda's own errors: no driver, no device
            from cudafuse.diagnostics import error

            raise error(f"no usable GPU: PyCUDA could not create a context: {exc}; "
                        "use --backend emu (the CPU emulator)") from None

        self._drv = drv
        self._lib = ctypes.CDLL(str(library))
        self._lib.cudafuse_manifest.restype = ctypes.c_char_p
        self.manifest = self._lib.cudafuse_manifest().decode()
        self._lib.cudafuse_thrown.restype = ctypes.c_char_p

    def _thrown(self) -> str:
        """The message of what the program's host code threw in the last call."""
        return (self._lib.cudafuse_thrown() or b"").decode("utf-8", "replace")

    def run(self, op: str, name: str, items: list[Item],
            cfg: tuple[int, ...] | None) -> tuple[int, bytes, list[np.ndarray]]:
        """One call through the synchronising entry: buffers in, run, buffers out."""
        from cudafuse.runtime.prepared import GpuPrepared

        entry = getattr(self._lib, f"cudafuse_{op}_{name}")
        once = GpuPrepared(self._drv, entry, op, name, [], items, cfg, self._thrown)
        try:
            rc = once.invoke()
            return rc, once.returned, once.results()
        finally:
            once.close()

    def prepare(self, op: str, name: str, label: str, args: Any, items: list[Item],
                cfg: tuple[int, ...] | None) -> Any:
        from cudafuse.runtime.prepared import GpuPrepared

        entry = getattr(self._lib, f"cudafuse_{'ha' if op == 'h' else 'ka'}_{name}")
        return GpuPrepared(self._drv, entry, op, label, args, items, cfg, self._thrown)

    def close(self) -> None:
        pass
