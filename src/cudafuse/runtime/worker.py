"""The emulation worker: a process that loads one emulated library and runs calls on it.

Running user code in its own process turns an emulator report (deadlock, divergence), a
segmentation fault or a stack overflow into a Python exception in the caller, instead of the
end of the caller's process. Started as
`python -c 'from cudafuse.runtime.worker import main; main()' LIB READ_FD WRITE_FD`.
"""

from __future__ import annotations

import ctypes
import os
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


class ExactBuffers:
    """Under AddressSanitizer: each array argument in a malloc'ed block of exactly its size
    (ASan's malloc, preloaded), so that one element past the end is a reported overflow; the
    blocks' addresses are written to `table` before the call ("index start nbytes" lines,
    index = the argument's position) for the runtime to tell which argument a report is
    about."""

    def __init__(self, table: str, libc: Any):
        self._table, self._libc = table, libc
        self._libc.malloc.restype = ctypes.c_void_p
        self._libc.malloc.argtypes = [ctypes.c_size_t]
        self._libc.free.argtypes = [ctypes.c_void_p]
        self._blocks: list[tuple[int, np.ndarray]] = []

    def argv(self, items: list[tuple[str, Any]]) -> tuple[Any, list[Any]]:
        def place(arr: np.ndarray) -> int:
            addr = self._libc.malloc(max(arr.nbytes, 1))
            ctypes.memmove(addr, arr.ctypes.data, arr.nbytes)
            self._blocks.append((addr, arr))
            return int(addr)

        argv, keep = pack_args(items, place)
        index = [i for i, (kind, _) in enumerate(items) if kind == "a"]
        with open(self._table, "w") as fh:
            for i, (addr, arr) in zip(index, self._blocks, strict=True):
                fh.write(f"{i} {addr} {arr.nbytes}\n")
        return argv, keep

    def results(self) -> list[np.ndarray]:
        out = []
        for addr, arr in self._blocks:
            ctypes.memmove(arr.ctypes.data, addr, arr.nbytes)
            self._libc.free(addr)
            out.append(arr)
        self._blocks = []
        return out


def serve(path: str, rx: Connection, tx: Connection) -> None:
    try:
        lib = ctypes.CDLL(path)
    except OSError as exc:
        tx.send(("error", f"cannot load the emulated library: {exc}"))
        return
    lib.cudafuse_manifest.restype = ctypes.c_char_p
    libc = ctypes.CDLL(None)
    table = os.environ.get("CUDAFUSE_EMU_BUFFERS")
    exact = ExactBuffers(table, libc) if table else None
    tx.send(("ready", lib.cudafuse_manifest().decode()))
    while True:
        try:
            op, name, items, cfg = rx.recv()
        except EOFError:
            return
        if exact is not None:
            argv, keep = exact.argv(items)
        else:
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
        if exact is not None:
            arrays = exact.results()
        tx.send(("ok", rc, ret.raw, arrays))


def main() -> None:
    path, rfd, wfd = sys.argv[-3], int(sys.argv[-2]), int(sys.argv[-1])
    serve(path, Connection(rfd, writable=False), Connection(wfd, readable=False))


if __name__ == "__main__":
    main()
