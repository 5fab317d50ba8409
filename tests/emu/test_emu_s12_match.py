"""__match_any_sync / __match_all_sync as one warp collective that compares the lanes' bits
(issue 31: cuda-lab's warp-aggregated histogram spent its time in the 32 shuffles a match
was): partial masks, 8-bit, float (bits: -0 is not +0, a NaN matches itself) and 64-bit
values, and a warp-aggregated histogram with a tail warp, against numpy. Our own program."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS, assert_nvcc_compiles

from cudafuse.runtime import load

PROGRAM = PROGRAMS / "s12" / "match.cu"


# A build and a worker: about 12 CPU-s, beyond the default tests' budget
# (test_emu_intrinsics13 keeps a full-mask match in them).
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAM, timeout=120) as lib:
        yield lib


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint32) if a.dtype == np.float32 else a


def test_match_any_and_all_against_numpy(lib):
    rng = np.random.default_rng(31)
    warps = 4
    n = 32 * warps
    masks = np.array([0xFFFFFFFF, 0x0F0F00F1, 0x80000001, 0x00010000], np.uint32)
    c = rng.integers(0, 24, n).astype(np.uint8)
    f = rng.choice(np.array([0.0, -0.0, 1.5, np.nan, -np.nan], np.float32), n)
    w = rng.choice(np.array([1, 1 << 40, (1 << 40) + 1, -1], np.int64), n)
    outs = [np.full(n, 0xDEADBEEF, np.uint32) for _ in range(4)]
    pred = np.full(n, -7, np.int32)
    lib.launch("match", warps, 32, 0, (masks, c, f, w, *outs, pred))
    any_c, any_f, any_w, all_c = outs
    for i in range(n):
        lanes = [32 * (i // 32) + k for k in range(32) if masks[i // 32] >> k & 1]
        if i not in lanes:
            assert any_c[i] == 0xDEADBEEF and pred[i] == -7  # did not call
            continue
        for got, vals in ((any_c, c), (any_f, _bits(f)), (any_w, w)):
            assert got[i] == sum(1 << (j % 32) for j in lanes if vals[j] == vals[i]), i
        same = all(c[j] // 8 == c[i] // 8 for j in lanes)
        assert pred[i] == int(same)
        assert all_c[i] == (masks[i // 32] if same else 0)


def test_warp_aggregated_histogram(lib):
    n = 5000  # the last warp of the grid-stride loop is partial: its ballot narrows the mask
    data = np.random.default_rng(7).integers(0, 256, n).astype(np.uint8)
    data[:700] = 3  # long runs of one value: groups of 32
    hist = np.zeros(256, np.uint32)
    lib.launch("histogram", 3, 96, 0, (data, hist, n))
    np.testing.assert_array_equal(hist, np.bincount(data, minlength=256).astype(np.uint32))


@pytest.mark.nvcc
@pytest.mark.slow
def test_program_compiles_with_nvcc(tmp_path):
    assert_nvcc_compiles(PROGRAM, tmp_path)
