"""The emulation worker: a process that loads one emulated library and runs calls on it.

Running user code in its own process turns an emulator report (deadlock, divergence), a
segmentation fault or a stack overflow into a Python exception in the caller, instead of the
end of the caller's process. Started by emu_exec.py as
`python -I -c 'import runpy, sys; runpy.run_path(sys.argv[1], run_name="__main__")' THIS_FILE
LIB READ_FD WRITE_FD`: run as a file, with the standard library only (no numpy, not the
cudafuse package, whose runtime imports the front end), a worker starts in about 50 ms
instead of 400 ms and holds a fraction of the memory; verify starts three, the test suite
thousands. Array arguments travel as bytes and come back as bytes (emu_exec.py turns them
back into arrays).
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any


def _numpy_copy(value: Any) -> Any:
    import numpy as np  # noqa: PLC0415 - the worker itself never needs numpy

    return np.array(value, copy=True, order="C")


def pack_args(items: list[tuple[str, Any]], place: Callable[[Any], int],
              stage: Callable[[Any], Any] = _numpy_copy) -> tuple[Any, list[Any]]:
    """The void** argument vector of a trampoline call, and the buffers it points into (keep
    them alive while it is used). `place` receives `stage` of each array argument (by
    default a fresh C-ordered numpy copy) and returns the address to pass (the copy's own,
    or a device buffer's)."""
    keep: list[Any] = []
    ptrs: list[int] = []
    for kind, value in items:
        if kind == "a":
            buf: Any = ctypes.c_void_p(place(stage(value)))
        elif kind == "same":
            buf = ctypes.c_void_p(keep[value].value)
        else:
            buf = ctypes.create_string_buffer(bytes(value), max(len(value), 16))
        keep.append(buf)
        ptrs.append(ctypes.addressof(buf))
    return (ctypes.c_void_p * max(len(ptrs), 1))(*ptrs), keep


class ExactBuffers:
    """Each array argument (bytes) in a malloc'ed block of exactly its size (256-byte
    aligned); under AddressSanitizer (ASan's malloc, preloaded) one element past the end is
    then a reported overflow. The blocks' addresses are written to `table`, when there is
    one, before the call ("index start nbytes" lines, index = the argument's position) for
    the runtime to tell which argument a report is about."""

    def __init__(self, table: str | None, libc: Any):
        self._table, self._libc = table, libc
        self._libc.posix_memalign.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t,
                                              ctypes.c_size_t]
        self._libc.free.argtypes = [ctypes.c_void_p]
        self._blocks: list[tuple[int, int]] = []  # address, size in bytes

    def argv(self, items: list[tuple[str, Any]]) -> tuple[Any, list[Any]]:
        extra: list[str] = []

        def place(data: bytes) -> int:
            addr, more = self._place(len(data))
            ctypes.memmove(addr, data, len(data))
            self._blocks.append((addr, len(data)))
            extra.append(more)
            return int(addr)

        try:
            argv, keep = pack_args(items, place, bytes)
        except MemoryError:
            self.results()  # release what was placed
            raise
        if self._table:
            index = [i for i, (kind, _) in enumerate(items) if kind == "a"]
            with open(self._table, "w") as fh:
                for i, (addr, nbytes), more in zip(index, self._blocks, extra, strict=True):
                    fh.write(f"{i} {addr} {nbytes} {more}".rstrip() + "\n")
        return argv, keep

    def _place(self, nbytes: int) -> tuple[int, str]:
        # 256-byte aligned as cudaMalloc's memory is (an int4 store through an int* needs
        # 16); ASan still knows the block's exact size.
        addr = ctypes.c_void_p()
        if self._libc.posix_memalign(ctypes.byref(addr), 256, max(nbytes, 1)) != 0 or \
                not addr.value:
            raise MemoryError(f"cannot allocate {nbytes} bytes for an argument")
        return int(addr.value), ""

    def release(self, addr: int) -> None:
        self._libc.free(addr)

    def results(self) -> list[bytes]:
        """Each array argument's bytes after the call, in order; the blocks released."""
        out = []
        for addr, nbytes in self._blocks:
            out.append(ctypes.string_at(addr, nbytes))
            self.release(addr)
        self._blocks = []
        return out


PAGE = 4096
GUARD_AFTER = 1 << 20  # reserved, never backed: an access up to 1 MiB past the end faults


class GuardedBuffers(ExactBuffers):
    """The default placement: each array argument ends exactly where an inaccessible guard
    region begins (and a guard page precedes its first page), so an access past its end
    faults and emu/guard.cpp records the address. The table's lines add the reserved
    range: "index start nbytes low high". An array's start is then aligned to the largest
    power of two dividing its size (up to a page): enough for every element type whose
    size divides the array's. With `align` (CUDAFUSE_EMU_ALIGN=256, cudaMalloc's
    alignment: emu_exec.py sets it for a program that faulted on a misaligned access) the
    start is rounded down to it, and an access up to align - 1 bytes past the end reads or
    writes the gap before the guard (as on a GPU, whose allocations are rounded up to 256
    bytes) instead of faulting; before the start nothing changes."""

    def __init__(self, table: str, libc: Any, align: int = 0):
        super().__init__(table, libc)
        self._align = align
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int, ctypes.c_long]
        libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        self._maps: list[tuple[int, int]] = []

    def _place(self, nbytes: int) -> tuple[int, str]:
        pages = -(-nbytes // PAGE) * PAGE
        total = PAGE + pages + GUARD_AFTER
        # PROT_NONE reservation (MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE), then the
        # array's pages made accessible.
        base = self._libc.mmap(None, total, 0, 0x02 | 0x20 | 0x4000, -1, 0)
        if base in (None, ctypes.c_void_p(-1).value):
            raise MemoryError(f"cannot map {total} bytes for an argument")
        if pages and self._libc.mprotect(base + PAGE, pages, 0x1 | 0x2) != 0:
            raise MemoryError(f"cannot map {pages} bytes for an argument")
        start = base + PAGE + pages - nbytes
        if self._align:  # base + PAGE is a page's start: rounded down, start stays above it
            start -= start % self._align
        self._maps.append((base, total))
        return start, f"{base} {base + total}"

    def release(self, addr: int) -> None:
        pass

    def results(self) -> list[bytes]:
        out = super().results()
        for base, total in self._maps:
            self._libc.munmap(base, total)
        self._maps = []
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
    placement: ExactBuffers
    if os.environ.get("CUDAFUSE_EMU_GUARDS"):
        placement = GuardedBuffers(table, libc, int(os.environ.get("CUDAFUSE_EMU_ALIGN", "0")))
    else:
        placement = ExactBuffers(table, libc)
    tx.send(("ready", lib.cudafuse_manifest().decode()))
    while True:
        try:
            op, name, items, cfg = rx.recv()
        except EOFError:
            return
        try:
            argv, keep = placement.argv(items)
        except MemoryError as exc:  # an answer, not a traceback on stderr
            tx.send(("error", f"out of memory for the arguments: {exc}"))
            continue
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
        tx.send(("ok", rc, ret.raw, placement.results()))


def main() -> None:
    path, rfd, wfd = sys.argv[-3], int(sys.argv[-2]), int(sys.argv[-1])
    serve(path, Connection(rfd, writable=False), Connection(wfd, readable=False))


if __name__ == "__main__":
    main()
