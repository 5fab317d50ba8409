"""Differential tests: the original kernels launched one after the other, and the fused
launcher, on the same inputs; every output element must match. The originals run from the
fused file itself (hfuse keeps the inputs unchanged), so each pair costs one emulated build.
A second run of each fused kernel with a seeded random thread order exposes races between
the parts (a barrier that did not wait for the right threads)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hfuse_helpers import PROGRAMS, fuse_pair, hfuse, library

PAIRS = PROGRAMS / "pairs.cu"
N = 1500


def _ints(seed: int, n: int = N) -> np.ndarray:
    return np.random.default_rng(seed).integers(-50, 50, n, dtype=np.int32)


def _check(path: Path, launches: list[tuple[str, tuple, tuple, int, tuple]],
           fused: str, seeds: tuple[int | None, ...] = (None, 7)) -> None:
    """launches: (kernel, grid, block, shared, args) of the two originals, in order; args
    hold numpy arrays, which the fused launcher gets as copies."""
    for seed in seeds:
        lib = library(path, seed)
        originals = [tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
                     for *_, args in launches]
        copies = [tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
                  for *_, args in launches]
        for (kernel, grid, block, shared, _), args in zip(launches, originals, strict=True):
            lib.launch(kernel, grid=grid, block=block, shared=shared, args=args)
        (_, g1, _, s1, _), (_, g2, _, s2, _) = launches
        lib.call(fused, *copies[0], *copies[1], g1, g2, s1, s2, None)
        for want, got in zip(originals, copies, strict=True):
            for w, g in zip(want, got, strict=True):
                if isinstance(w, np.ndarray):
                    assert np.array_equal(w, g), (seed, np.flatnonzero(w != g)[:10])


def test_1d_with_2d_different_grids(tmp_path: Path) -> None:
    # saxpy: grid-stride loop, helper, __constant__; scale2d: 2D block from the macro
    # TID_X, early return. Grids of different shapes, the 2D one larger.
    out = fuse_pair(tmp_path / "f.cu", PAIRS, "saxpy", "scale2d", "128", "32x4")
    w, h = 70, 33
    _check(out, [("saxpy", (3,), (128,), 0, (_ints(1), _ints(2), 3, N)),
                 ("scale2d", (3, 9), (32, 4), 0,
                  (np.zeros(w * h, np.int32), _ints(3, w * h), w, h))],
           "saxpy_scale2d_hfused_launch")


def test_first_grid_larger_and_both_barriers_same_shared_names(tmp_path: Path) -> None:
    # Both declare `__shared__ int tile[256]` and wait at __syncthreads (one in a loop):
    # the barriers must become per-part named barriers and the arrays stay apart.
    out = fuse_pair(tmp_path / "f.cu", PAIRS, "block_sum_static", "reverse_static", "256",
                    "256")
    text = out.read_text()
    assert "CUDAFUSE_BAR_SYNC(1, 256)" in text and "CUDAFUSE_BAR_SYNC(2, 256)" in text
    _check(out, [("block_sum_static", (6,), (256,), 0, (np.zeros(6, np.int32), _ints(4), N)),
                 ("reverse_static", (4,), (256,), 0, (np.zeros(N, np.int32), _ints(5), N))],
           "block_sum_static_reverse_static_hfused_launch")


def test_return_after_the_last_barrier(tmp_path: Path) -> None:
    # stencil_then_return's threads past n return after its only barrier: accepted in
    # thread mode (every thread has passed every barrier by then).
    out = fuse_pair(tmp_path / "f.cu", PAIRS, "stencil_then_return", "block_sum_static", "128",
                    "256")
    _check(out, [("stencil_then_return", (12,), (128,), 0,
                  (np.zeros(N, np.int32), _ints(20), N)),
                 ("block_sum_static", (6,), (256,), 0, (np.zeros(6, np.int32), _ints(21), N))],
           "stencil_then_return_block_sum_static_hfused_launch")


def test_dynamic_shared_both_parts(tmp_path: Path) -> None:
    # int and long long regions; smem1 is not a multiple of 16, so part 2's region must be
    # realigned, and the regions must not overlap.
    out = fuse_pair(tmp_path / "f.cu", PAIRS, "rotate_dynamic", "prefix_dynamic", "128", "64")
    _check(out, [("rotate_dynamic", (12,), (128,), 128 * 4 + 4,
                  (np.zeros(N, np.int32), _ints(6), N)),
                 ("prefix_dynamic", (24,), (64,), 64 * 8,
                  (np.zeros(N, np.int64), _ints(7), N))],
           "rotate_dynamic_prefix_dynamic_hfused_launch")


def test_file_scope_extern_shared_in_part_2(tmp_path: Path) -> None:
    out = fuse_pair(tmp_path / "f.cu", PAIRS, "rotate_dynamic", "shift_file_scope_dynamic",
                    "64", "96")
    x = np.random.default_rng(18).random(N, dtype=np.float32)
    _check(out, [("rotate_dynamic", (24,), (64,), 64 * 4, (np.zeros(N, np.int32), _ints(19), N)),
                 ("shift_file_scope_dynamic", (16,), (96,), 96 * 4,
                  (np.zeros(N, np.float32), x, N))],
           "rotate_dynamic_shift_file_scope_dynamic_hfused_launch")


def test_warp_shuffles_and_atomics(tmp_path: Path) -> None:
    out = fuse_pair(tmp_path / "f.cu", PAIRS, "warp_sum", "histogram", "64", "96")
    _check(out, [("warp_sum", (24,), (64,), 0, (np.zeros(24 * 64 // 32, np.int32), _ints(8), N)),
                 ("histogram", (5,), (96,), 0, (np.zeros(16, np.uint32), _ints(9), N))],
           "warp_sum_histogram_hfused_launch")


def test_helper_with_builtins_barrier_and_static_shared(tmp_path: Path) -> None:
    # Both kernels call block_reduce (threadIdx, blockDim, __shared__ partial[32],
    # __syncthreads, and warp_reduce's shuffles): each part gets its own copies.
    out = fuse_pair(tmp_path / "f.cu", PAIRS, "sum_abs", "sum_sq", "128", "64")
    text = out.read_text()
    assert "cf_p1_block_reduce(threadIdx, blockDim, blockIdx, gridDim, acc)" in text
    assert "cf_p2_block_reduce(threadIdx, blockDim, blockIdx, gridDim, acc)" in text
    _check(out, [("sum_abs", (5,), (128,), 0, (np.zeros(5, np.int32), _ints(16), N)),
                 ("sum_sq", (9,), (64,), 0, (np.zeros(9, np.int32), _ints(17), N))],
           "sum_abs_sum_sq_hfused_launch")


def test_3d_block_and_grid(tmp_path: Path) -> None:
    out = fuse_pair(tmp_path / "f.cu", PAIRS, "fill3d", "saxpy", "8x4x2", "32")
    nx, ny, nz = 19, 9, 5
    _check(out, [("fill3d", (3, 3, 3), (8, 4, 2), 0, (np.zeros(nx * ny * nz, np.int32),
                                                      nx, ny, nz)),
                 ("saxpy", (7,), (32,), 0, (_ints(10), _ints(11), -2, N))],
           "fill3d_saxpy_hfused_launch")


@pytest.mark.parametrize("order", ["small_first", "large_first"])
def test_block_mode_keeps_syncthreads_with_early_return(tmp_path: Path, order: str) -> None:
    # guarded_reverse returns early before a barrier: refused in thread mode, sound in block
    # mode, where surplus threads of the 128-thread part exit and release __syncthreads.
    a = ("guarded_reverse", (16,), (128,), 0, (np.zeros(N, np.int32), _ints(12), N))
    b = ("block_sum_static", (6,), (256,), 0, (np.zeros(6, np.int32), _ints(13), N))
    first, second = (a, b) if order == "small_first" else (b, a)
    out = fuse_pair(tmp_path / "f.cu", PAIRS, first[0], second[0], str(first[2][0]),
                    str(second[2][0]), "--mode", "block")
    assert "CUDAFUSE_BAR_SYNC" not in out.read_text()
    _check(out, [first, second], f"{first[0]}_{second[0]}_hfused_launch")


def test_block_mode_dynamic_shared_and_2d(tmp_path: Path) -> None:
    # Both parts' dynamic regions start at 0 (a block runs one part); a 2D part's block is
    # rebuilt from the linear id of a larger 1D block.
    out = fuse_pair(tmp_path / "f.cu", PAIRS, "prefix_dynamic", "scale2d", "64", "32x4",
                    "--mode", "block")
    w, h = 70, 33
    _check(out, [("prefix_dynamic", (24,), (64,), 64 * 8, (np.zeros(N, np.int64), _ints(22), N)),
                 ("scale2d", (3, 9), (32, 4), 0,
                  (np.zeros(w * h, np.int32), _ints(23, w * h), w, h))],
           "prefix_dynamic_scale2d_hfused_launch")


def test_two_files(tmp_path: Path) -> None:
    # One kernel per file, the same parameter names in both, a macro defined identically.
    (tmp_path / "a.cu").write_text(
        "#include <cuda_runtime.h>\n#define SQ(v) ((v) * (v))\n"
        "__global__ void sq(int *out, const int *in, int n) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) out[i] = SQ(in[i]);\n}\n")
    (tmp_path / "b.cu").write_text(
        "#include <cuda_runtime.h>\n#define SQ(v) ((v) * (v))\n"
        "__global__ void tile_sum(int *out, const int *in, int n) {\n"
        "  __shared__ int t[64];\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  t[threadIdx.x] = i < n ? SQ(in[i]) : 0;\n  __syncthreads();\n"
        "  if (threadIdx.x == 0) { int s = 0; for (int k = 0; k < 64; ++k) s += t[k];\n"
        "    out[blockIdx.x] = s; }\n}\n")
    out = tmp_path / "f.cu"
    res = hfuse(str(tmp_path / "a.cu"), str(tmp_path / "b.cu"), "--block1", "96",
                "--block2", "64", "-o", str(out))
    assert res.exit_code == 0, res.output
    _check(out, [("sq", (16,), (96,), 0, (np.zeros(N, np.int32), _ints(14), N)),
                 ("tile_sum", (24,), (64,), 0, (np.zeros(24, np.int32), _ints(15), N))],
           "sq_tile_sum_hfused_launch")
