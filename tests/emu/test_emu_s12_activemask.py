"""__activemask() in a grid-stride loop's tail (issue 31): the lanes that left the loop wait
at a barrier or another collective, never at the call; the mask is the lanes in the loop
together, as a GPU gives for converged code (before the fix: a deadlock)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import load

GRID, BLOCK = 2, 96


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAMS / "activemask_tail.cu", opt="-O1", timeout=60) as lib:
        yield lib


def groups(n):
    """Each element's group: the elements of its warp in its round of the loop."""
    i = np.arange(n)
    stride = GRID * BLOCK
    return (i // stride) * (stride // 32) + (i % stride) // 32


@pytest.mark.parametrize("n", [1000, 200, 7])
def test_tail_reduce_over_lanes_in_the_loop(lib, n):
    rng = np.random.default_rng(n)
    x = rng.integers(-50, 50, n).astype(np.int32)
    part = np.zeros(n, np.int32)
    mask = np.zeros(n, np.uint32)
    total = np.zeros(1, np.int32)
    lib.launch("tail_reduce", GRID, BLOCK, 0, (x, np.int32(n), part, mask, total))
    g = groups(n)
    lane = (np.arange(n) % (GRID * BLOCK)) % 32
    ref_part = np.zeros(n, np.int64)
    ref_mask = np.zeros(n, np.uint32)
    for k in np.unique(g):
        sel = g == k
        ref_part[sel] = x[sel].sum()
        ref_mask[sel] = np.bitwise_or.reduce(np.uint32(1) << lane[sel].astype(np.uint32))
    np.testing.assert_array_equal(part, ref_part)
    np.testing.assert_array_equal(mask, ref_mask)
    assert total[0] == x.sum()


def test_tail_then_other_collective(lib):
    n = 1000
    x = np.arange(n, dtype=np.int32) % 7 + 1
    part = np.zeros(n, np.int32)
    votes = np.zeros(GRID * BLOCK, np.int32)
    lib.launch("tail_then_vote", GRID, BLOCK, 0, (x, np.int32(n), part, votes))
    g = groups(n)
    ref = np.array([x[g == k].sum() for k in g])
    np.testing.assert_array_equal(part, ref)
    np.testing.assert_array_equal(votes, 32)
