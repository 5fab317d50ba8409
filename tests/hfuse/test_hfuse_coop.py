"""Cooperative groups in horizontally fused kernels (hfuse/coop.py): differential tests under
emulation in thread and block mode (the originals launched one after the other against the
fused launcher, in thread order and a seeded random order), nvcc builds of the same outputs
against CUDA's own cooperative_groups.h, and the refusals."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hfuse_helpers import PROGRAMS, fuse_pair, hfuse, library

SRC = PROGRAMS / "coop.cu"
N = 1500
W, H = 70, 33


def _ints(seed: int, n: int = N) -> np.ndarray:
    return np.random.default_rng(seed).integers(-50, 50, n, dtype=np.int32)


# kernel -> (block, grid, arguments: numpy arrays are outputs or inputs, copied per run)
LAUNCHES = {
    "cg_block_sum": ("256", (6,), lambda: (np.zeros(6, np.int32), _ints(1), N)),
    "cg_tile_sum": ("64", (24,), lambda: (np.zeros(48, np.int32), _ints(2), N)),
    "cg_reduce": ("128", (12,), lambda: (np.zeros(12, np.int32), np.zeros(96, np.int32),
                                         _ints(3), N)),
    "cg_reverse": ("64", (24,), lambda: (np.zeros(N, np.int32), _ints(7), N)),
    "cg_dynamic_tile": ("96", (16,), lambda: (np.zeros(N, np.int32), _ints(8), N)),
    "plain_scale": ("96", (16,), lambda: (np.zeros(N, np.int32), _ints(4), N)),
    "cg_helper_2d": ("32x4", (3, 9), lambda: (np.zeros(W * H + 27, np.int32),
                                              _ints(5, W * H), W, H)),
    "cg_coalesced": ("64", (24,), lambda: (np.zeros(1, np.int32), np.zeros(N // 4, np.int32),
                                           _ints(6), N)),
}

PAIRS = [
    # a block reduction at the block group's sync() with a tile shuffle reduction
    ("cg_block_sum", "cg_tile_sum"),
    # cg::reduce with a plain kernel, either way round (part 2 starts at thread 96: its
    # tiles' meta group ranks must count from the part's first thread)
    ("cg_reduce", "plain_scale"),
    ("plain_scale", "cg_reduce"),
    # a part whose only collective is the block group's member sync()
    ("plain_scale", "cg_reverse"),
    # dynamic tiles (thread_group) through a helper, with tiles of the other part's block
    ("cg_tile_sum", "cg_dynamic_tile"),
    # a 2D part with a helper taking the block group; coalesced groups and tiles of tiles
    ("cg_helper_2d", "cg_coalesced"),
]
MODES = ("thread", "block")
# `make test` compares every pair in thread mode (each group kind becomes a part's own type
# there: block group barriers as named barriers, tiles and their meta group ranks counted
# from the part's first thread) and block mode on two pairs: the block group's sync() kept as
# __syncthreads() under a tile shuffle reduction, and a 2D part's helper taking the block
# group beside coalesced groups and tiles of tiles (the nvcc slice's pairs below). Block
# mode gives every group its own block's threads, the same path for the other pairs: `make
# test-slow` runs them (issue 27).
BLOCK_SLICE = {("cg_block_sum", "cg_tile_sum"), ("cg_helper_2d", "cg_coalesced")}


def _dims(block: str) -> tuple[int, ...]:
    return tuple(int(v) for v in block.split("x"))


def _fuse(tmp_path: Path, k1: str, k2: str, mode: str) -> Path:
    return fuse_pair(tmp_path / f"{k1}_{k2}_{mode}.cu", SRC, k1, k2, LAUNCHES[k1][0],
                     LAUNCHES[k2][0], "--mode", mode)


@pytest.mark.parametrize("k1,k2,mode", [
    pytest.param(a, b, m, id=f"{a}+{b}-{m}",
                 marks=pytest.mark.slow if m == "block" and (a, b) not in BLOCK_SLICE else ())
    for m in MODES for a, b in PAIRS])
def test_fused_matches_originals(tmp_path: Path, k1: str, k2: str, mode: str) -> None:
    out = _fuse(tmp_path, k1, k2, mode)
    for seed in (None, 7):
        lib = library(out, seed)
        want = [LAUNCHES[k][2]() for k in (k1, k2)]
        got = [tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
               for args in want]
        for k, args in zip((k1, k2), want, strict=True):
            block, grid, _ = LAUNCHES[k]
            lib.launch(k, grid=grid, block=_dims(block), shared=0, args=args)
        lib.call(f"{k1}_{k2}_hfused_launch", *got[0], *got[1], LAUNCHES[k1][1],
                 LAUNCHES[k2][1], 0, 0, None)
        for w_args, g_args in zip(want, got, strict=True):
            for w, g in zip(w_args, g_args, strict=True):
                if isinstance(w, np.ndarray):
                    assert np.array_equal(w, g), (seed, np.flatnonzero(w != g)[:10])


def test_thread_mode_gives_each_part_its_block_group(tmp_path: Path) -> None:
    text = _fuse(tmp_path, "plain_scale", "cg_reduce", "thread").read_text()
    # Only the part using groups gets a group type; its sync() is the part's barrier.
    assert "struct cf_p1_thread_block" not in text
    assert "void sync(const char * = nullptr, int = 0) const { CUDAFUSE_BAR_SYNC(2, 128); }" \
        in text
    assert "cf_p2_thread_block block = cf_p2_thread_block(threadIdx, blockIdx);" in text
    assert "cg::thread_block_tile<16> tile = cf_p2_tiled_partition<16>(block);" in text
    # cg::reduce and the tiles' types are the real ones
    assert "cg::reduce(tile, v, cg::greater<int>())" in text


def test_helper_taking_the_block_group_is_copied_per_part(tmp_path: Path) -> None:
    text = _fuse(tmp_path, "cg_helper_2d", "cg_coalesced", "thread").read_text()
    assert ("__device__ int cf_p1_row_total([[maybe_unused]] const uint3 threadIdx, "
            "[[maybe_unused]] const dim3 blockDim, [[maybe_unused]] const uint3 blockIdx, "
            "[[maybe_unused]] const dim3 gridDim, cf_p1_thread_block g, int *s, int v)") in text
    assert "cf_p1_row_total(threadIdx, blockDim, blockIdx, gridDim, block, s, v)" in text


def test_block_mode_block_group_keeps_the_block_barrier(tmp_path: Path) -> None:
    text = _fuse(tmp_path, "cg_block_sum", "cg_tile_sum", "block").read_text()
    assert "void sync(const char * = nullptr, int = 0) const { __syncthreads(); }" in text
    assert "CUDAFUSE_BAR_SYNC" not in text
    # part 2 runs 64 of the block's 256 threads: its group says 64
    assert "unsigned size() const { return 64u; }" in text


# nvcc takes about 4 s of CPU a fused file (the cooperative groups headers): `make test`
# compiles one pair in each mode, `make test-slow` every pair in both.
NVCC_SLICE = {("cg_block_sum", "cg_tile_sum", "thread"), ("cg_helper_2d", "cg_coalesced", "block")}


@pytest.mark.nvcc
@pytest.mark.parametrize("k1,k2,mode", [
    pytest.param(a, b, m, id=f"{a}+{b}-{m}",
                 marks=() if (a, b, m) in NVCC_SLICE else pytest.mark.slow)
    for a, b in PAIRS for m in MODES])
def test_fused_compiles_with_nvcc(tmp_path: Path, k1: str, k2: str, mode: str) -> None:
    out = _fuse(tmp_path, k1, k2, mode)
    nvcc = shutil.which("nvcc")
    assert nvcc
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(out), "-o",
                          str(out.with_suffix(".o"))], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr
    assert "warning" not in res.stderr, res.stderr


def _line(pattern: str) -> int:
    lines = SRC.read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if pattern in text)


REFUSED = [
    # (kernels, mode, where (a line's text), what the message says)
    ("cg_grid_rank,plain_scale", "thread", "cg::grid_group grid = cg::this_grid();",
     "cooperative groups' this_grid() is the whole fused grid"),
    ("plain_scale,cg_grid_rank", "block", "cg::grid_group grid = cg::this_grid();",
     "grid groups are not supported"),
    ("plain_scale,cg_grid_in_helper", "thread", "__device__ void grid_helper",
     "helper 'grid_helper' (called from the kernel): cooperative groups' this_grid()"),
    ("cg_big_tile,plain_scale", "thread", "auto tile = cg::tiled_partition<64>",
     "a tile of 64 threads spans several warps"),
    ("cg_block_in_macro,plain_scale", "block", "auto block = THE_BLOCK();",
     "this_thread_block() inside a macro expansion"),
    ("plain_scale,cg_block_as_thread_group", "block", "out[threadIdx.x] = rank_plus(block, 1);",
     "'rank_plus' takes it as 'cg::thread_group': a cooperative_groups::thread_group cannot "
     "hold the part's block group"),
    ("cg_copy_async,plain_scale", "thread", "cg::memcpy_async(block, s,",
     "memcpy_async on the block group"),
    ("cg_return_then_sync,plain_scale", "thread", "if ((int)block.thread_rank() >= n) return;",
     "a group's sync() counts as one"),
]


@pytest.mark.parametrize("kernels,mode,where,what", REFUSED, ids=[c[0] + "-" + c[1]
                                                                  for c in REFUSED])
def test_refused(tmp_path: Path, kernels: str, mode: str, where: str, what: str) -> None:
    out = tmp_path / "out.cu"
    res = hfuse(str(SRC), "--kernels", kernels, "--block1", "64", "--block2", "64",
                "--mode", mode, "-o", str(out))
    assert res.exit_code == 1, res.output
    assert f"{SRC}:{_line(where)}:" in res.output and ": error: " in res.output, res.output
    assert what in res.output, res.output
    assert not out.exists()


def test_block_mode_accepts_a_return_before_the_group_sync(tmp_path: Path) -> None:
    res = hfuse(str(SRC), "--kernels", "cg_return_then_sync,plain_scale", "--block1", "64",
                "--block2", "64", "--mode", "block", "-o", str(tmp_path / "out.cu"))
    assert res.exit_code == 0, res.output
