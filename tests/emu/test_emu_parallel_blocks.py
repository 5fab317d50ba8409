"""Blocks of a launch on several OS threads (cudafuse_emu_parallel.h, emu/parallel.py): the
same program run with one thread and with four gives identical bytes, printed lines and
error reports; kernels whose blocks' order shows (atomics, printf) stay serial."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.emu.parallel import parallel_kernels, serial_kernels
from cudafuse.frontend.parse import parse_file
from cudafuse.runtime import KernelError, load

PROGRAM = PROGRAMS / "parallel_blocks.cu"


def test_which_kernels_run_in_parallel():
    unit = parse_file(str(PROGRAM)).unit
    assert parallel_kernels(unit) == {"smooth", "block_sums", "scale", "signs", "trap_late"}
    why = serial_kernels(unit)
    assert why["last_block"].startswith("calls __threadfence")
    assert why["float_total"].startswith("calls atomicAdd (float_total, line")
    assert why["claim"].startswith("calls atomicAdd")
    assert why["report"].startswith("calls printf (say, line")  # through a device function


UNSEEN = r"""
__device__ int claim_slot(int *next);  // defined in another file: may use atomics
template <typename F> __global__ void map(const float *in, float *out, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(in[i]);
}
__global__ void order(int *next, int *slot, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) slot[i] = claim_slot(next);
}
__device__ float half_of(float v) { return 0.5f * v; }
__global__ void halve(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = half_of(in[i]);
}
"""


def test_a_call_whose_body_is_not_seen_keeps_the_blocks_in_order(tmp_path):
    src = tmp_path / "unseen.cu"
    src.write_text(UNSEEN)
    unit = parse_file(str(src)).unit
    why = serial_kernels(unit)
    assert why["order"].startswith("calls claim_slot whose body is not seen")
    assert why["map"].startswith("calls f whose body is not seen")  # a callable parameter
    assert "halve" in parallel_kernels(unit)


def run_pipeline(monkeypatch, threads: str, n: int):
    monkeypatch.setenv("CUDAFUSE_EMU_THREADS", threads)
    x = np.random.default_rng(5).standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    sums = np.zeros((n + 255) // 256, np.float32)
    total = np.zeros(1, np.float32)
    nxt = np.zeros(1, np.int32)
    order = np.zeros(n, np.int32)
    bins = np.zeros(2, np.uint32)
    low = np.array([2**31 - 1], np.int32)
    done = np.zeros(1, np.int32)
    flag = np.full(1, -1.0, np.float32)
    with load(PROGRAM, opt="-O1", timeout=60) as lib:
        lib.call("pipeline", x, out, sums, total, nxt, order, bins, low, done, flag, n)
    return out, sums, total, order, bins, low, flag


def test_serial_and_parallel_runs_agree(monkeypatch, capfd):
    n = 3001  # 47 tiles, 24 blocks of 128, 12 of 256: every worker runs several blocks
    serial = run_pipeline(monkeypatch, "1", n)
    printed_serial = capfd.readouterr().out
    parallel = run_pipeline(monkeypatch, "4", n)
    printed_parallel = capfd.readouterr().out
    for a, b in zip(serial, parallel, strict=True):
        assert a.tobytes() == b.tobytes()
    assert printed_serial == printed_parallel
    assert printed_serial.count("\n") == len(range(0, n, 97))
    # The serial kernels' results depend on the order: they did run in block order.
    np.testing.assert_array_equal(parallel[3], np.arange(n))
    x = np.random.default_rng(5).standard_normal(n).astype(np.float32)
    pad = np.concatenate([[0.0], x, [0.0]]).astype(np.float32)
    smooth = (np.float32(0.25) * pad[:-2] + np.float32(0.5) * pad[1:-1]
              + np.float32(0.25) * pad[2:])
    expect = smooth * np.float32(1.5) + (np.arange(n) // 128).astype(np.float32)
    np.testing.assert_allclose(parallel[0], expect, rtol=1e-6)
    # The histogram's blocks ran in parallel, on real atomics.
    assert parallel[4].tolist() == [(parallel[0] < 0).sum(), (parallel[0] >= 0).sum()]
    assert parallel[5][0] == (parallel[0] * np.float32(1000)).astype(np.int32).min()
    assert parallel[6][0] == (n + 127) // 128 - 1  # the last block saw every count


def test_an_error_names_the_block_the_serial_order_reaches_first(monkeypatch):
    monkeypatch.setenv("CUDAFUSE_EMU_THREADS", "4")
    with load(PROGRAM, opt="-O1", timeout=60) as lib:
        with pytest.raises(KernelError, match=r"block \(5,0,0\): a kernel called __trap"):
            lib.launch("trap_late", 16, 32, 0, (np.zeros(512, np.float32), 512))


def test_a_kernel_launched_through_a_variable_keeps_its_own_mode(tmp_path):
    """`kernel<<<g, b>>>(...)` with `kernel` a generic lambda's parameter or a function
    pointer: the kernel it holds is found by address at the launch, so a barrier-free kernel
    still runs its blocks in parallel under its own name (the emulator's list of such
    launches), a float-atomic kernel stays serial, and a template instance, registered where
    its address is taken (emu/rewrite.py, _kernel_addresses), keeps its template's mode too
    (its barriers on fibers, its blocks in parallel); the results are exact."""
    from cudafuse.runtime import races

    n = 1000
    x = np.random.default_rng(3).integers(-8, 8, n).astype(np.float32)
    host, total = x.copy(), np.zeros(1, np.float32)
    log = tmp_path / "parallel.txt"
    with load(PROGRAMS / "pointer_launch.cu", parallel_log=str(log), timeout=60) as lib:
        lib.call("run", host, total, n)
    assert np.array_equal(host, 3 * (x + 1))
    assert total[0] == np.sum(3 * (x + 1), dtype=np.float64)
    assert [(p.kernel, p.line) for p in races.read_log(str(log))] == [("add_one", 29),
                                                                       ("scaled", 33)]
