"""Dynamic parallelism (programs/dynamic_parallelism.cu): child grids run at their launch, to
completion, inside the launching thread, with the parent block's static and dynamic shared
memory kept; tail launches run after the launching grid; nesting stops at CUDA's 24 levels."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import load

PROGRAM = PROGRAMS / "dynamic_parallelism.cu"


@pytest.fixture(scope="module", params=["emu", "emu-seeded"])
def lib(request):
    with load(PROGRAM, seed=5 if request.param == "emu-seeded" else None) as lib:
        yield lib


@pytest.mark.parametrize("blocks, threads, depth", [(2, 3, 3), (1, 33, 2), (3, 1, 4)])
def test_children_see_their_parents_id(lib, blocks, threads, depth):
    total = sum(blocks * (threads * blocks) ** k for k in range(depth))
    parent_of = np.full(total, -7, np.int32)
    depth_of = np.full(total, -7, np.int32)
    assert lib.call("run_family", parent_of, depth_of, blocks, threads, depth) == total
    for level in range(depth):
        assert (depth_of == level).sum() == blocks * (threads * blocks) ** level
    assert (parent_of[depth_of == 0] == -1).all()
    children = np.bincount(parent_of[depth_of > 0], minlength=total)
    # every block above the last level has one child grid per thread, and only those
    np.testing.assert_array_equal(children, np.where(depth_of < depth - 1, threads * blocks, 0))
    np.testing.assert_array_equal(depth_of[parent_of[depth_of > 0]], depth_of[depth_of > 0] - 1)


@pytest.mark.parametrize("threads", [32, 96])
def test_parent_dynamic_shared_memory_survives_a_child(lib, threads):
    blocks = 3
    out = np.zeros(blocks * threads, np.int32)
    scratch = np.zeros(blocks * 2 * threads, np.int32)
    lib.launch("smem_parent", blocks, threads, threads * 4, (out, scratch))
    t = np.arange(threads)
    want = np.concatenate([b * 100 + (t + 1) % threads for b in range(blocks)])
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(scratch, np.tile(-1000 - (threads - 1 - t), 2 * blocks))


def test_tail_launch_runs_after_the_grid(lib):
    blocks = 40
    parts = np.zeros(blocks, np.int32)
    total, early = np.zeros(1, np.int32), np.zeros(1, np.int32)
    lib.launch("parts_then_total", blocks, 1, 0, (parts, total, early))
    assert total[0] == blocks * (blocks + 1) // 2
    assert early[0] == 1  # fire-and-forget: at the launch, when block 0 alone has written


def test_nesting_stops_at_24_levels(lib):
    deepest, error = np.zeros(1, np.int32), np.zeros(1, np.int32)
    lib.launch("dive", 1, 1, 0, (deepest, error, 0))
    assert deepest[0] == 23
    assert error[0] == 65  # cudaErrorLaunchMaxDepthExceeded


@pytest.mark.parametrize("n", [1, 17, 1000, 4096])
def test_recursive_quicksort(lib, n):
    a = np.random.default_rng(n).integers(0, 1 << 20, n).astype(np.uint32)
    b = a.copy()
    lib.call("sort", b, n)
    np.testing.assert_array_equal(b, np.sort(a))
