"""Cooperative launches on the emulator (cudafuse_emu_launch.h): cudaLaunchCooperativeKernel
runs every block's threads as fibers so that grid.sync() is a barrier across the grid; the
co-residency limit; grid.sync() in a <<<>>> launch and a block that skips the barrier are
reported instead of hanging."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS, assert_nvcc_compiles

from cudafuse.runtime import KernelError, load

PROGRAM = PROGRAMS / "grid_sync.cu"


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAM, opt="-O1") as lib:
        yield lib


@pytest.mark.parametrize("blocks,threads", [(3, 64), (264, 256)])
def test_grid_sync_reduction_matches_numpy(lib, blocks, threads):
    n, rounds = 50_000, 3
    x = np.random.default_rng(blocks).random(n, dtype=np.float32)
    out = np.zeros(rounds * blocks, np.float32)
    valid = np.zeros(1, np.int32)
    assert lib.call("coop_reduce", x, out, n, blocks, threads, rounds, valid) == 0
    assert valid[0] == 1  # is_valid(), size() and num_blocks() in a cooperative launch
    total = x.astype(np.float64).sum()
    # Every block read every block's partial after the barrier, in each of the rounds.
    ref = np.repeat(np.arange(1, rounds + 1) * total, blocks)
    np.testing.assert_allclose(out, ref, rtol=1e-4)


def test_grid_sync_with_seeded_order(tmp_path):
    n, blocks, threads, rounds = 5000, 8, 64, 2
    x = np.random.default_rng(7).random(n, dtype=np.float32)
    out = np.zeros(rounds * blocks, np.float32)
    valid = np.zeros(1, np.int32)
    with load(PROGRAM, seed=5) as lib:
        assert lib.call("coop_reduce", x, out, n, blocks, threads, rounds, valid) == 0
    ref = np.repeat(np.arange(1, rounds + 1) * x.astype(np.float64).sum(), blocks)
    np.testing.assert_allclose(out, ref, rtol=1e-4)


def test_grid_barrier_after_a_multi_warp_tile_barrier(lib):
    # Half of each block waits at grid.sync() while the other half forms a coalesced group: the
    # waiters must not be taken for a 64-thread tile's barrier (their last tile.sync()) and let
    # go before the other blocks have written what they read after the barrier.
    seen = np.zeros(3, np.int32)
    assert lib.call("run_tile_then_grid", seen, 3) == 0
    assert seen.tolist() == [2, 3, 1]


def test_too_large_grid_is_an_error(lib):
    max_blocks = np.zeros(1, np.int32)
    # cudaErrorCooperativeLaunchTooLarge: more blocks than occupancy x 132 SMs.
    assert lib.call("coop_too_large", 256, max_blocks) == 720
    assert max_blocks[0] == 8 * 132  # 256 threads and 1 KiB of shared memory: 8 per SM


def test_grid_sync_in_a_plain_launch_is_reported(lib):
    with pytest.raises(KernelError, match=r"grid_sync.cu:\d+: grid_group::sync\(\) in a kernel "
                       r"launched with <<<\.\.\.>>>.*cudaLaunchCooperativeKernel"):
        lib.call("launch_plain_grid_sync", np.zeros(64, np.int32))


def test_block_skipping_the_grid_barrier_is_a_deadlock(lib):
    with pytest.raises(KernelError, match=r"deadlock at grid.sync\(\).*1 blocks wait "
                       r"\(\(0,0,0\)\) but 1 blocks have exited.*\(1,0,0\)"):
        lib.call("launch_early_exit", np.zeros(64, np.int32))


# nvcc checks this test's own program, no cudafuse code: its verdict changes only with the
# program or the toolkit, so `make test-slow` runs it (about 2-11 CPU-s; issue 27).
@pytest.mark.nvcc
@pytest.mark.slow
def test_program_compiles_with_nvcc(tmp_path):
    assert_nvcc_compiles(PROGRAM, tmp_path)
