"""Prepared runs (runtime.prepared): arguments converted once, run many times, results
fetched into the caller's arrays. Under the emulator every run starts from the original
arrays; on a GPU the buffers stay on the device, so repeated runs see earlier results."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cudafuse.runtime import load

SOURCE = r"""
#include <cuda_runtime.h>
__global__ void bump(float *acc, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) acc[i] += in[i];
}
void bump_twice(float *acc, const float *in, int n) {
  bump<<<(n + 63) / 64, 64>>>(acc, in, n);
  bump<<<(n + 63) / 64, 64>>>(acc, in, n);
}
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "bump.cu"
    path.write_text(SOURCE)
    return path


def _arrays(n: int = 100) -> tuple[np.ndarray, np.ndarray]:
    return np.ones(n, np.float32), np.arange(n, dtype=np.float32)


def _runs(lib, acc, inp, n, runs):  # type: ignore[no-untyped-def]
    with lib.prepare("bump_twice", acc, inp, n) as call, \
            lib.prepare("bump", acc, inp, n, grid=(2,), block=(64,)) as launch:
        with pytest.raises(RuntimeError, match="fetch before any run"):
            call.fetch()
        for _ in range(runs):
            call.run()
            launch.run()
        call.fetch()
        return acc.copy(), launch


def test_prepared_runs_under_the_emulator(program: Path) -> None:
    acc, inp = _arrays()
    with load(program, backend="emu") as lib:
        got, _ = _runs(lib, acc, inp, 100, 3)
    # Each emulated run starts from the caller's arrays: the call adds `in` twice.
    assert np.array_equal(got, 1 + 2 * inp)
    assert np.array_equal(acc, got) and np.array_equal(inp, np.arange(100))


def test_prepare_checks_its_arguments(program: Path) -> None:
    with load(program, backend="emu") as lib:
        with pytest.raises(TypeError):
            lib.prepare("bump_twice", np.ones(3, np.float64), np.ones(3, np.float32), 3)
        with pytest.raises(KeyError, match="it is a kernel"):
            lib.prepare("bump", *_arrays(), 100)


@pytest.mark.gpu
def test_prepared_runs_on_the_gpu(program: Path) -> None:
    acc, inp = _arrays()
    with load(program, backend="nvcc") as lib:
        got, _ = _runs(lib, acc, inp, 100, 3)
    # The call's buffers stayed on the device through its three runs (two launches each);
    # the prepared launch has buffers of its own.
    assert np.array_equal(got, 1 + 6 * inp)


@pytest.mark.nvcc
def test_the_gpu_library_exports_entries_that_do_not_wait(program: Path) -> None:
    # What GpuPrepared calls; building needs nvcc, not a GPU.
    import subprocess

    from cudafuse.runtime.build import BuildOptions, build

    built = build(str(program), "nvcc", BuildOptions())
    symbols = subprocess.run(["nm", "-D", str(built.library)], capture_output=True,
                             text=True, check=True).stdout.split()
    for name in ("cudafuse_h_bump_twice", "cudafuse_ha_bump_twice", "cudafuse_k_bump",
                 "cudafuse_ka_bump"):
        assert name in symbols


class _FakeDriver:
    """The pycuda.driver calls GpuPrepared makes, over host memory: device buffers are
    numpy arrays addressed by fake pointers."""

    class Context:
        synced = 0

        @classmethod
        def synchronize(cls) -> None:
            cls.synced += 1

    def __init__(self) -> None:
        self.memory: dict[int, np.ndarray] = {}
        self.freed: list[int] = []

    def mem_alloc(self, size: int):  # type: ignore[no-untyped-def]
        driver = self
        ptr = 0x1000 * (len(self.memory) + 1)
        self.memory[ptr] = np.zeros(size, np.uint8)

        class Allocation:
            def __int__(self) -> int:
                return ptr

            def free(self) -> None:
                driver.freed.append(ptr)

        return Allocation()

    def memcpy_htod(self, dev, host: np.ndarray) -> None:  # type: ignore[no-untyped-def]
        self.memory[int(dev)][: host.nbytes] = host.view(np.uint8).reshape(-1)

    def memcpy_dtoh(self, host: np.ndarray, dev) -> None:  # type: ignore[no-untyped-def]
        host.view(np.uint8).reshape(-1)[:] = self.memory[int(dev)][: host.nbytes]


def test_gpu_prepared_keeps_buffers_and_passes_pointers() -> None:
    # GpuPrepared's bookkeeping without a GPU: the entry sees the device pointers and the
    # scalar bytes, runs do not copy, fetch waits and copies back, close frees.
    import ctypes

    from cudafuse.runtime.prepared import GpuPrepared

    drv = _FakeDriver()
    seen: list[tuple[int, int, int]] = []

    def entry(argv, ret) -> int:  # type: ignore[no-untyped-def]
        ptrs = ctypes.cast(argv, ctypes.POINTER(ctypes.c_void_p))
        acc = ctypes.cast(ptrs[0], ctypes.POINTER(ctypes.c_void_p))[0]
        same = ctypes.cast(ptrs[1], ctypes.POINTER(ctypes.c_void_p))[0]
        n = ctypes.cast(ptrs[2], ctypes.POINTER(ctypes.c_int))[0]
        seen.append((acc, same, n))
        buf = drv.memory[acc].view(np.float32)
        buf[:n] += 1.0
        return 0

    acc = np.zeros(4, np.float32)
    items = [("a", acc), ("same", 0), ("r", (7).to_bytes(4, "little"))]
    prep = GpuPrepared(drv, entry, "h", "call of 'f'", [acc, acc, 7], items, None)
    for _ in range(3):
        prep.run()
    assert seen == [(0x1000, 0x1000, 7)] * 3 and not acc.any()  # nothing copied back yet
    prep.fetch()
    assert drv.Context.synced == 1 and np.array_equal(acc, np.full(4, 3.0, np.float32))
    prep.close()
    assert drv.freed == [0x1000]


def test_gpu_prepared_reports_cuda_errors() -> None:
    from cudafuse.runtime.errors import KernelError
    from cudafuse.runtime.prepared import GpuPrepared

    prep = GpuPrepared(_FakeDriver(), lambda dims, shared, argv: 7, "k", "launch of 'k'", [],
                       [], (1, 1, 1, 32, 1, 1, 0))
    with pytest.raises(KernelError, match="launch of 'k': CUDA error 7"):
        prep.run()


def test_gpu_executor_runs_once_through_a_prepared_call() -> None:
    # GpuExecutor.run (what Library.call uses on the GPU) is one GpuPrepared invocation
    # through the synchronising entry: buffers in, run, results out, buffers freed.
    import ctypes
    from types import SimpleNamespace

    from cudafuse.runtime.gpu import GpuExecutor

    drv = _FakeDriver()

    def entry(argv, ret) -> int:  # type: ignore[no-untyped-def]
        ptrs = ctypes.cast(argv, ctypes.POINTER(ctypes.c_void_p))
        buf = drv.memory[ctypes.cast(ptrs[0], ctypes.POINTER(ctypes.c_void_p))[0]]
        buf.view(np.float32)[:] *= 2.0
        ctypes.memmove(ret, (5).to_bytes(4, "little"), 4)
        return 0

    gpu = object.__new__(GpuExecutor)
    gpu._drv, gpu._lib = drv, SimpleNamespace(cudafuse_h_double=entry)
    rc, ret, arrays = gpu.run("h", "double", [("a", np.arange(4, dtype=np.float32))], None)
    assert rc == 0 and ret[:4] == (5).to_bytes(4, "little")
    assert np.array_equal(arrays[0], [0.0, 2.0, 4.0, 6.0]) and drv.freed == [0x1000]
