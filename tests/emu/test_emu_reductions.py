"""Barriers, warp shuffles and votes on the emulator, against numpy references."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import load

N = 1000


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAMS / "reductions.cu", opt="-O1") as lib:
        yield lib


def test_fiber_classification(lib):
    fibers = lib.built.fiber_kernels
    assert {"block_sum_static", "block_sum_shfl", "shuffles", "votes"} <= fibers


def test_block_sum_static_shared(lib):
    x = np.random.default_rng(1).random(N, dtype=np.float32)
    out = np.zeros(4, np.float32)
    lib.launch("block_sum_static", 4, 256, 0, (x, out, N))
    ref = [x[i:i + 256].astype(np.float64).sum() for i in range(0, N, 256)]
    np.testing.assert_allclose(out, ref, rtol=1e-5)


def test_host_function_launching_a_barrier_kernel(lib):
    x = np.random.default_rng(2).random(N, dtype=np.float32)
    out = np.zeros(4, np.float32)
    lib.call("sum_host", x, out, N)
    np.testing.assert_allclose(out, [x[i:i + 256].sum() for i in range(0, N, 256)], rtol=1e-5)


def test_block_max_dynamic_shared(lib):
    x = np.random.default_rng(3).integers(-10**6, 10**6, N).astype(np.int32)
    out = np.zeros(8, np.int32)
    lib.launch("block_max_dynamic", 8, 128, 128 * 4, (x, out, N))
    ref = [x[i:i + 128].max() for i in range(0, N, 128)]
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("block", [64, 96, 256, 1024])
def test_block_sum_warp_shuffles(lib, block):
    x = np.random.default_rng(block).random(N, dtype=np.float32)
    grid = (N + block - 1) // block
    out = np.zeros(grid, np.float32)
    lib.launch("block_sum_shfl", grid, block, 0, (x, out, N))
    ref = [x[i:i + block].astype(np.float64).sum() for i in range(0, N, block)]
    np.testing.assert_allclose(out, ref, rtol=1e-5)


def test_shuffle_variants(lib):
    n = 128
    v = np.random.default_rng(4).integers(0, 1000, n).astype(np.int32)
    outs = [np.zeros(n, np.int32) for _ in range(4)]
    lib.launch("shuffles", 2, 64, 0, (v, *outs))
    xor16, scan, bcast8, down16 = outs
    lanes = np.arange(n) % 32
    seg16 = v.reshape(-1, 16)
    np.testing.assert_array_equal(xor16, np.repeat(seg16.sum(1), 16))
    np.testing.assert_array_equal(scan, np.cumsum(v.reshape(-1, 32), axis=1).ravel())
    np.testing.assert_array_equal(bcast8, np.repeat(v.reshape(-1, 8)[:, 3], 8))
    src = np.where(lanes % 16 + 5 < 16, np.arange(n) + 5, np.arange(n))
    np.testing.assert_array_equal(down16, v[src])


def test_votes_and_reducing_barriers(lib):
    n = 128  # two blocks of 64: block 0 mixed, block 1 all positive except one warp
    p = np.random.default_rng(5).integers(0, 2, n).astype(np.int32)
    p[64:96] = 1
    p[96:128] = 0
    outs = [np.zeros(n, np.uint32)] + [np.zeros(n, np.int32) for _ in range(5)]
    lib.launch("votes", 2, 64, 0, (p, *outs))
    ballot, any_, all_, count, and_, or_ = outs
    bits = (p.reshape(-1, 32) > 0).astype(np.uint64) << np.arange(32, dtype=np.uint64)
    np.testing.assert_array_equal(ballot, np.repeat(bits.sum(1).astype(np.uint32), 32))
    np.testing.assert_array_equal(any_, np.repeat(p.reshape(-1, 32).any(1), 32))
    np.testing.assert_array_equal(all_, np.repeat(p.reshape(-1, 32).all(1), 32))
    blocks = p.reshape(-1, 64)
    np.testing.assert_array_equal(count, np.repeat(blocks.sum(1), 64))
    np.testing.assert_array_equal(and_, np.repeat(blocks.all(1), 64))
    np.testing.assert_array_equal(or_, np.repeat(blocks.any(1), 64))


def test_half_warp_masks(lib):
    x = np.random.default_rng(6).random(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    lib.launch("half_warps", 1, 64, 0, (x, out))
    np.testing.assert_allclose(out, np.repeat(x.reshape(-1, 16).sum(1), 16), rtol=1e-5)


def test_2d_blocks(lib):
    w, h = 64, 32
    x = np.random.default_rng(7).random(w * h, dtype=np.float32)
    out = np.zeros((h // 16) * (w // 16) * 16, np.float32)
    lib.launch("block2d_sum", (w // 16, h // 16), (16, 16), 0, (x, out, w))
    img = x.reshape(h, w)
    ref = img.reshape(h // 16, 16, w // 16, 16).sum(1).reshape(-1)
    np.testing.assert_allclose(out, ref, rtol=1e-5)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_thread_order_keeps_race_free_results(seed):
    with load(PROGRAMS / "reductions.cu", opt="-O1", seed=seed) as lib:
        x = np.random.default_rng(8).random(N, dtype=np.float32)
        out = np.zeros(8, np.float32)
        lib.launch("block_sum_shfl", 8, 128, 0, (x, out, N))
        np.testing.assert_allclose(out, [x[i:i + 128].sum() for i in range(0, N, 128)],
                                   rtol=1e-5)
