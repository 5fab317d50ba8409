"""CUDA graphs and stream capture on the emulator (cudafuse_emu_graph.h): a captured graph
(copies, kernels on two streams joined by events, a host function) replayed, and a graph
built node by node with dependencies, a child graph and updated kernel parameters, against
numpy."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS, assert_nvcc_compiles

from cudafuse.runtime import load

PROGRAM = PROGRAMS / "graphs.cu"


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAM, opt="-O1") as lib:
        yield lib


def test_captured_graph_replayed_three_times(lib):
    n, launches = 1000, 3
    x = np.random.default_rng(2).random(n, dtype=np.float32)
    acc = np.zeros(n, np.float32)
    sums = np.zeros((n + 127) // 128, np.float32)
    calls = np.zeros(1, np.int32)
    first = np.zeros(1, np.float32)
    r = lib.call("captured", x, acc, sums, n, launches, calls, first)
    # Nothing ran while capturing (0 * 1000); 6 nodes: the copy in, 3 kernels, the copy back
    # to pinned memory and the host function (event records and waits only add edges).
    assert r == 6
    ref = launches * (2 * x.astype(np.float64) + 1)
    np.testing.assert_allclose(acc, ref, rtol=1e-6)
    # block_sums ran after add_into in each replay: the last one sums the final acc.
    padded = np.zeros(sums.size * 128)
    padded[:n] = ref
    np.testing.assert_allclose(sums, padded.reshape(-1, 128).sum(axis=1), rtol=1e-5)
    # The host function ran once per launch, after the copy that precedes it.
    assert calls[0] == launches
    assert first[0] == pytest.approx(2 * x[0] + 1)


def test_explicit_graph_with_dependencies(lib):
    n = 300
    x = np.random.default_rng(3).random(n, dtype=np.float32)
    out1 = np.zeros(n, np.float32)
    out2 = np.zeros(n, np.float32)
    counts = np.zeros(3, np.int32)
    lib.call("explicit_graph", x, out1, out2, n, counts)
    # memset, kernel, child graph, empty, memcpy; roots: memset and kernel; edges:
    # memset->child, kernel->child, child->empty, empty->memcpy.
    assert list(counts) == [5, 2, 4]
    np.testing.assert_allclose(out1, 3 * x + 0.5, rtol=1e-6)
    np.testing.assert_allclose(out2, -3 * x + 0.5, rtol=1e-6)  # dv was 3x


# nvcc checks this test's own program, no cudafuse code: its verdict changes only with the
# program or the toolkit, so `make test-slow` runs it (about 2-11 CPU-s; issue 27).
@pytest.mark.nvcc
@pytest.mark.slow
def test_program_compiles_with_nvcc(tmp_path):
    assert_nvcc_compiles(PROGRAM, tmp_path)
