"""The emulation worker: a process that loads one emulated library and runs calls on it.

Running user code in its own process turns an emulator report (deadlock, divergence), a
segmentation fault or a stack overflow into a Python exception in the caller, instead of the
end of the caller's process. Started as
`python -c 'from cudafuse.runtime.worker import main; main()' LIB READ_FD WRITE_FD`.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

import numpy as np


def pack_args(items: list[tuple[str, Any]], place: Callable[[np.ndarray], int]
              ) -> tuple[Any, list[Any]]:
    """The void** argument vector of a trampoline call, and the buffers it points into (keep
    them alive while it is used). `place` receives a fresh C-ordered copy of each array
    argument and returns the address to pass (the copy's own, or a device buffer's)."""
    keep: list[Any] = []
    ptrs: list[int] = []
    for kind, value in items:
        if kind == "a":
            buf: Any = ctypes.c_void_p(place(np.array(value, copy=True, order="C")))
        elif kind == "same":
            buf = ctypes.c_void_p(keep[value].value)
        else:
            buf = ctypes.create_string_buffer(bytes(value), max(len(value), 16))
        keep.append(buf)
        ptrs.append(ctypes.addressof(buf))
    return (ctypes.c_void_p * max(len(ptrs), 1))(*ptrs), keep


def _argv(items: list[tuple[str, Any]]) -> tuple[Any, list[Any], list[np.ndarray]]:
    arrays: list[np.ndarray] = []

    def host(arr: np.ndarray) -> int:
        arrays.append(arr)
        return int(arr.ctypes.data)

    argv, keep = pack_args(items, host)
    return argv, keep, arrays


def serve(path: str, rx: Connection, tx: Connection) -> None:
    try:
        lib = ctypes.CDLL(path)
    except OSError as exc:
        tx.send(("error", f"cannot load the emulated library: {exc}"))
        return
    lib.cudafuse_manifest.restype = ctypes.c_char_p
    libc = ctypes.CDLL(None)
    tx.send(("ready", lib.cudafuse_manifest().decode()))
    while True:
        try:
            op, name, items, cfg = rx.recv()
        except EOFError:
            return
        argv, keep, arrays = _argv(items)
        ret = ctypes.create_string_buffer(16)
        if op == "h":
            fn = getattr(lib, f"cudafuse_h_{name}")
            rc = fn(argv, ret)
        else:
            fn = getattr(lib, f"cudafuse_k_{name}")
            dims = (ctypes.c_uint * 6)(*cfg[:6])
            rc = fn(dims, ctypes.c_size_t(cfg[6]), argv)
        libc.fflush(None)
        del keep
        tx.send(("ok", rc, ret.raw, arrays))


def main() -> None:
    path, rfd, wfd = sys.argv[-3], int(sys.argv[-2]), int(sys.argv[-1])
    serve(path, Connection(rfd, writable=False), Connection(wfd, readable=False))


if __name__ == "__main__":
    main()
