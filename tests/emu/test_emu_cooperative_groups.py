"""Cooperative groups on the emulator (emu/include/cooperative_groups.h), against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.diagnostics import CudafuseError
from cudafuse.runtime import KernelError, load


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAMS / "cooperative_groups.cu", opt="-O1") as lib:
        yield lib


def tiles(a: np.ndarray, n: int) -> np.ndarray:
    return a.reshape(-1, n)


def test_fiber_classification(lib):
    # Collectives are member calls (tile.shfl_down), free templates (cg::reduce), and calls
    # on a template parameter's tile in tile_sum<N>: all of them make fiber kernels.
    assert {"block_sum", "tile32_sum", "tile16_sum", "reduce_plus32", "reduce_max16",
            "tile_votes", "tile_scans", "dynamic_tiles", "compact_positive", "label_max",
            "parity_sums", "reduce_blocks", "multi_warp_tiles"} <= lib.built.fiber_kernels


def test_block_reduction_with_thread_block_sync(lib):
    n = 1000
    x = np.random.default_rng(1).random(n, dtype=np.float32)
    out = np.zeros(4, np.float32)
    lib.launch("block_sum", 4, 256, 0, (x, out, n))
    ref = [x[i:i + 256].astype(np.float64).sum() for i in range(0, n, 256)]
    np.testing.assert_allclose(out, ref, rtol=1e-5)


@pytest.mark.parametrize("kernel,size", [("tile32_sum", 32), ("tile16_sum", 16)])
def test_tiled_partition_shfl_down_sum(lib, kernel, size):
    n, block, grid = 500, 128, 4
    x = np.random.default_rng(size).integers(-1000, 1000, n).astype(np.int32)
    out = np.zeros(grid * block // size, np.int32)
    lib.launch(kernel, grid, block, 0, (x, out, n))
    padded = np.zeros(grid * block, np.int64)
    padded[:n] = x
    np.testing.assert_array_equal(out, tiles(padded, size).sum(axis=1))


def test_reduce_plus_over_tiles_of_32(lib):
    x = np.random.default_rng(3).random(256, dtype=np.float32)
    out = np.zeros(256, np.float32)
    lib.launch("reduce_plus32", 2, 128, 0, (x, out))
    ref = np.repeat(tiles(x.astype(np.float64), 32).sum(axis=1), 32)
    np.testing.assert_allclose(out, ref, rtol=1e-5)


def test_reduce_greater_over_tiles_of_16(lib):
    x = np.random.default_rng(4).integers(-10**6, 10**6, 192).astype(np.int32)
    out = np.zeros(192, np.int32)
    lib.launch("reduce_max16", 3, 64, 0, (x, out))
    np.testing.assert_array_equal(out, np.repeat(tiles(x, 16).max(axis=1), 16))


def test_tile_votes_and_shuffles(lib):
    n, thr = 128, 50
    x = np.random.default_rng(5).integers(0, 100, n).astype(np.int32)
    x[8:16] = 99   # a tile where every predicate holds
    x[16:24] = 0   # and one where none does
    ballot = np.zeros(n, np.uint32)
    any_, all_, rotated, xored = (np.zeros(n, np.int32) for _ in range(4))
    lib.launch("tile_votes", 2, 64, 0, (x, thr, ballot, any_, all_, rotated, xored))
    p = tiles(x > thr, 8)
    bits = (p * (1 << np.arange(8))).sum(axis=1)
    np.testing.assert_array_equal(ballot, np.repeat(bits, 8))
    np.testing.assert_array_equal(any_, np.repeat(p.any(axis=1), 8))
    np.testing.assert_array_equal(all_, np.repeat(p.all(axis=1), 8))
    np.testing.assert_array_equal(rotated, np.roll(tiles(x, 8), -1, axis=1).ravel())
    np.testing.assert_array_equal(xored, tiles(x, 8)[:, np.arange(8) ^ 5].ravel())
    assert all_[8:16].all() and not any_[16:24].any()


def test_tile_scans(lib):
    x = np.random.default_rng(6).integers(0, 1 << 20, 64).astype(np.int32)
    inc, exc = np.zeros(64, np.int32), np.zeros(64, np.int32)
    lib.launch("tile_scans", 1, 64, 0, (x, inc, exc))
    np.testing.assert_array_equal(inc, np.cumsum(tiles(x, 32), axis=1).ravel())
    ref = np.bitwise_or.accumulate(tiles(x, 32), axis=1)
    ref = np.concatenate([np.zeros((2, 1), np.int32), ref[:, :-1]], axis=1)
    np.testing.assert_array_equal(exc, ref.ravel())


def test_dynamic_tiled_partition(lib):
    rank, size, neighbour = (np.zeros(128, np.int32) for _ in range(3))
    lib.launch("dynamic_tiles", 1, 128, 0, (rank, size, neighbour))
    t = np.arange(128)
    np.testing.assert_array_equal(rank, t % 16)
    np.testing.assert_array_equal(size, 16)
    np.testing.assert_array_equal(neighbour, 3 * (t - t % 16 + (t % 16 + 1) % 16))


@pytest.mark.parametrize("seed", [0, 7])
def test_coalesced_threads_warp_aggregated_compaction(seed):
    # Warp-aggregated atomics (as in cuda-samples' warpAggregatedAtomicsCG): the group is the
    # warp's threads that took the branch; any thread order must give a valid compaction.
    with load(PROGRAMS / "cooperative_groups.cu", opt="-O1", seed=seed) as lib:
        n = 3000
        x = np.random.default_rng(8).integers(-50, 50, n).astype(np.int32)
        out = np.zeros(n, np.int32)
        counter = np.zeros(1, np.int32)
        lib.launch("compact_positive", 3, 96, 0, (x, out, counter, n))
        k = int((x > 0).sum())
        assert counter[0] == k
        np.testing.assert_array_equal(np.sort(out[:k]), np.sort(x[x > 0]))


def test_labeled_partition_reduce_greater(lib):
    n = 1000
    rng = np.random.default_rng(9)
    x = rng.integers(0, 10**6, n).astype(np.int32)
    label = rng.integers(0, 5, n).astype(np.int32)
    best = np.full(5, -1, np.int32)
    groups = np.zeros(1, np.int32)
    lib.launch("label_max", 2, 64, 0, (x, label, best, groups, n))
    np.testing.assert_array_equal(best, [x[label == b].max() for b in range(5)])
    # one group per (warp, iteration, label) present
    warps = (np.arange(n) % 128) // 32 + 4 * (np.arange(n) // 128)
    assert groups[0] == len({(int(w), int(b)) for w, b in zip(warps, label, strict=True)})


def test_binary_partition(lib):
    x = np.random.default_rng(10).integers(0, 1000, 128).astype(np.int32)
    even, odd = np.zeros(1, np.int32), np.zeros(1, np.int32)
    lib.launch("parity_sums", 2, 64, 0, (x, even, odd))
    assert even[0] == x[x % 2 == 0].sum() and odd[0] == x[x % 2 == 1].sum()


@pytest.mark.parametrize("threads", [64, 256])
def test_sample_style_block_reduction(lib, threads):
    n, blocks = 10_000, 8
    x = np.random.default_rng(threads).random(n)
    out = np.zeros(blocks)
    lib.call("reduce_host", x, out, n, blocks, threads)
    stride = blocks * threads
    ref = [sum(x[b * threads + t::stride].sum() for t in range(threads)) for b in range(blocks)]
    np.testing.assert_allclose(out, ref, rtol=1e-12)
    np.testing.assert_allclose(out.sum(), x.sum(), rtol=1e-12)


GRID_SYNC = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int *a) {
  cg::grid_group grid = cg::this_grid();
  a[grid.thread_rank()] = 1;
  grid.sync();
}
"""


def test_grid_sync_in_a_plain_launch_is_reported(tmp_path):
    # grid.sync() needs a cooperative launch (tests/emu/test_emu_grid_sync.py); in an
    # ordinary launch it is undefined on the GPU and reported here.
    src = tmp_path / "grid_sync.cu"
    src.write_text(GRID_SYNC)
    with load(src) as lib, pytest.raises(KernelError, match=r"grid_sync.cu:6: grid_group::sync"
                                         r"\(\) in a kernel launched with <<<"):
        lib.launch("k", 2, 32, 0, (np.zeros(64, np.int32),))


def test_grid_sync_through_a_template_is_reported_too(tmp_path):
    # g.sync() on a template parameter is not resolved by the front end: the emulator's
    # grid_group::sync reports it when it runs.
    src = tmp_path / "grid_sync_template.cu"
    src.write_text(GRID_SYNC.replace("  grid.sync();\n", "  wait_all(grid);\n").replace(
        "__global__", "template <class G> __device__ void wait_all(const G &g) { g.sync(); }\n"
        "__global__", 1))
    with load(src) as lib, pytest.raises(KernelError, match="grid_group::sync"):
        lib.launch("k", 2, 32, 0, (np.zeros(64, np.int32),))


def test_multi_grid_is_refused(tmp_path):
    src = tmp_path / "multi_grid.cu"
    src.write_text("__global__ void k(int *a) {}\nvoid h(int *a) {\n  void *args[] = {&a};\n"
                   "  cudaLaunchCooperativeKernelMultiDevice(0, 1, 0);\n}\n")
    with pytest.raises(CudafuseError, match="multi-device cooperative launches"):
        load(src)


def test_corpus_file_runs():
    # tests/corpus/cooperative_groups_tiles.cu: match_any/match_all, cg::less and the bit
    # operations, dynamic tiles, memcpy_async + wait, binary and labeled partitions.
    n = 512
    rng = np.random.default_rng(11)
    a = rng.integers(-100, 100, n).astype(np.int32)
    a[:32] = 5  # a warp whose keys all match
    x = rng.random(n, dtype=np.float32)
    sums, mins, bits = np.zeros(n // 16, np.int32), np.zeros(n // 8, np.int32), \
        np.zeros(3 * n // 16, np.int32)
    pos, peers, flags = np.zeros(n // 128, np.int32), np.zeros(n, np.uint32), np.zeros(n, np.int32)
    inc, exc, counts = np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(7, np.int32)
    corpus = PROGRAMS.parents[1] / "corpus" / "cooperative_groups_tiles.cu"
    with load(corpus, opt="-O1") as lib:
        lib.call("run_all", a, sums, mins, bits, pos, peers, flags, x, inc, exc, n, counts)
    t = tiles(a, 16)
    np.testing.assert_array_equal(sums, t.sum(axis=1))
    np.testing.assert_array_equal(mins[0::2], t.min(axis=1))
    np.testing.assert_array_equal(mins[1::2], t.max(axis=1))
    np.testing.assert_array_equal(bits[0::3], np.bitwise_and.reduce(t, axis=1))
    np.testing.assert_array_equal(bits[1::3], np.bitwise_or.reduce(t, axis=1))
    np.testing.assert_array_equal(bits[2::3], np.bitwise_xor.reduce(t, axis=1))
    np.testing.assert_array_equal(pos, (tiles(a, 128) > 0).sum(axis=1))
    w = tiles(a, 32)
    eq = w[:, :, None] == w[:, None, :]  # [warp, lane, other lane]
    np.testing.assert_array_equal(peers, (eq * (1 << np.arange(32, dtype=np.uint64))).sum(axis=2)
                                  .astype(np.uint32).ravel())
    same = np.repeat(eq.all(axis=(1, 2)), 32)
    up = np.concatenate([w[:, :1], w[:, :-1]], axis=1).ravel()
    ref = same + 2 + 4 + 8 * (np.arange(n) % 8 == 0) + 16 * (up == a)
    np.testing.assert_array_equal(flags, ref)
    xs = tiles(x.astype(np.float64), 32)
    np.testing.assert_allclose(inc, np.cumsum(xs, axis=1).ravel(), rtol=1e-5)
    np.testing.assert_allclose(exc, (np.cumsum(xs, axis=1) - xs).ravel(), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(counts, np.bincount(a % 7, minlength=7))


def test_multi_warp_tiles(lib):
    n = 512
    x = np.random.default_rng(12).integers(0, 100, n).astype(np.int32)
    sum_, rotated, votes, scan, neighbour = (np.zeros(n, np.int32) for _ in range(5))
    lib.launch("multi_warp_tiles", 2, 256, 0, (x, sum_, rotated, votes, scan, neighbour))
    t = tiles(x, 64)
    np.testing.assert_array_equal(sum_, np.repeat(t.sum(axis=1), 64))
    np.testing.assert_array_equal(rotated, np.roll(t, 1, axis=1).ravel())
    np.testing.assert_array_equal(neighbour, np.roll(t, -1, axis=1).ravel())
    meta = (np.arange(n) % 256) // 64
    np.testing.assert_array_equal(votes, np.repeat((t > 90).any(axis=1), 64) + 2 + 4 * meta)
    np.testing.assert_array_equal(scan, np.cumsum(t, axis=1).ravel())
