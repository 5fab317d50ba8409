"""Prepared runs: one call or launch with its arguments converted once, to run many times.

Timing needs this: `Library.call` copies every array to the device and back around each
call and waits for the GPU, which is the right thing for a test and the wrong thing to
time. A prepared run on the GPU keeps its buffers on the device and `run()` only queues the
work (through the trampolines' `cudafuse_ha_`/`cudafuse_ka_` entries, which do not wait);
`fetch()` waits and copies the arrays back into the ones given to `prepare`.

Under the emulator there is nothing to queue: `run()` runs the whole call, from the
original arrays each time, and `fetch()` hands back the last run's results.

Repeated GPU runs work on the same buffers: a kernel that accumulates (a histogram, an
in-place update) sees its own earlier results. Fetch after the first run to check results;
later runs are for timing only.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from cudafuse.runtime import convert
from cudafuse.runtime.convert import Item
from cudafuse.runtime.standins import THROWN
from cudafuse.runtime.worker import pack_args


class Prepared:
    """The backend-independent part: the caller's arguments and where results go."""

    def __init__(self, label: str, args: Sequence[Any], items: list[Item]):
        self.label = label
        self.args = args
        self.items = items
        self.runs = 0

    def run(self) -> None:
        raise NotImplementedError

    def _results(self) -> list[np.ndarray]:
        raise NotImplementedError

    def fetch(self) -> None:
        """Wait for the queued work and copy every array argument back into the caller's."""
        if self.runs == 0:
            raise RuntimeError(f"{self.label}: fetch before any run")
        convert.copy_back(self.args, self.items, self._results())

    def close(self) -> None:
        pass

    def __enter__(self) -> Prepared:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EmuPrepared(Prepared):
    def __init__(self, executor: Any, op: str, name: str, label: str, args: Sequence[Any],
                 items: list[Item], cfg: tuple[int, ...] | None):
        super().__init__(label, args, items)
        self._exec, self._op, self._name, self._cfg = executor, op, name, cfg
        self._arrays: list[np.ndarray] = []

    def run(self) -> None:
        from cudafuse.runtime.errors import KernelError

        rc, _, arrays = self._exec.run(self._op, self._name, self.items, self._cfg)
        if rc:
            raise KernelError.cuda(self.label, rc)
        self._arrays = arrays
        self.runs += 1

    def _results(self) -> list[np.ndarray]:
        return self._arrays


class GpuPrepared(Prepared):
    """Device buffers allocated and filled once; `run()` queues without waiting."""

    def __init__(self, drv: Any, entry: Any, op: str, label: str, args: Sequence[Any],
                 items: list[Item], cfg: tuple[int, ...] | None,
                 thrown: Callable[[], str] | None = None):
        super().__init__(label, args, items)
        self._drv, self._entry, self._op, self._thrown = drv, entry, op, thrown
        self._buffers: list[tuple[Any, np.ndarray]] = []

        def device(host: np.ndarray) -> int:
            dev = drv.mem_alloc(max(host.nbytes, 1))
            drv.memcpy_htod(dev, host)
            self._buffers.append((dev, host))
            return int(dev)

        try:
            self._argv, self._keep = pack_args(items, device)
        except BaseException:
            self.close()
            raise
        self._ret = ctypes.create_string_buffer(16)
        if cfg is not None:
            self._dims = (ctypes.c_uint * 6)(*cfg[:6])
            self._shared = ctypes.c_size_t(cfg[6])

    def invoke(self) -> int:
        """Call the entry once; its CUDA error code (0: none). KernelError when the
        program's host code threw (a stand-in for what another of its files defines:
        runtime/standins.py)."""
        self.runs += 1
        if self._op == "h":
            rc = int(self._entry(self._argv, self._ret))
        else:
            rc = int(self._entry(self._dims, self._shared, self._argv))
        if rc == THROWN and self._thrown is not None:
            from cudafuse.runtime.errors import KernelError

            raise KernelError(f"{self.label}: {self._thrown()}")
        return rc

    @property
    def returned(self) -> bytes:
        """The host function's return value, as bytes (after a run)."""
        return self._ret.raw

    def run(self) -> None:
        from cudafuse.runtime.errors import KernelError

        rc = self.invoke()
        if rc:
            raise KernelError.cuda(self.label, rc)

    def results(self) -> list[np.ndarray]:
        """Wait for the queued work; the array arguments' contents, in order."""
        return self._results()

    def _results(self) -> list[np.ndarray]:
        drv = self._drv
        drv.Context.synchronize()
        for dev, host in self._buffers:
            drv.memcpy_dtoh(host, dev)
        return [host for _, host in self._buffers]

    def close(self) -> None:
        for dev, _ in self._buffers:
            dev.free()
        self._buffers = []
