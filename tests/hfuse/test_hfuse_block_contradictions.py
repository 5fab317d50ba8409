"""A block given with --block1/--block2 that the kernel contradicts is an error (exit 1, at
the `__launch_bounds__` or the construct assuming the size, naming the option and both
numbers, nothing written), in every mode: the fused kernel (and the unfused launchers) would
run the kernel with that block and compute wrong results. More threads than the kernel's
`__launch_bounds__` alone is an error only where the kernel is launched as it is (streams,
sequential: the launch would fail); a part of a fused kernel runs under the fused kernel's
own bound, and the original's is explained (blocksize.bound_waiver)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hfuse_helpers import PROGRAMS, hfuse, library

SRC = PROGRAMS / "blocksizes.cu"


def _at(pattern: str, token: str) -> str:
    lines = SRC.read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if pattern in text)
    return f"{SRC}:{line}:{lines[line - 1].index(token) + 1}: error: "


CASES = [
    # kernels, --block1, where, what the message says
    ("tile256,tunable", "128", _at("int i = threadIdx.x + 256 * blockIdx.x;", "256"),
     "--block1 128 gives blockDim.x == 128, but the indexing of kernel 'tile256' assumes "
     "blockDim.x == 256 (its __launch_bounds__ declares 256)"),
    ("shared256,tunable", "128", _at("shared256(const float", "__launch_bounds__"),
     "--block1 128 gives 128 threads, but kernel 'shared256' declares __launch_bounds__(256) "
     "= 256 and __shared__ 's' (line 13) has 256 elements"),
    ("loop256,tunable", "128", _at("loop256(float", "__launch_bounds__"),
     "declares __launch_bounds__(256) = 256 and a loop runs to 256 (line 21)"),
    ("index128,tunable", "64", _at("int i = blockIdx.x * 128 + threadIdx.x;", "128"),
     "--block1 64 gives blockDim.x == 64, but the indexing of kernel 'index128' assumes "
     "blockDim.x == 128; it would compute wrong results (give --block1 128)"),
]


@pytest.mark.parametrize("mode", ["thread", "block", "sequential"])
@pytest.mark.parametrize("kernels,block1,where,what", CASES, ids=[c[0] for c in CASES])
def test_contradiction_is_an_error(tmp_path: Path, kernels: str, block1: str, where: str,
                                   what: str, mode: str) -> None:
    out = tmp_path / "out.cu"
    res = hfuse(str(SRC), "--kernels", kernels, "--block1", block1, "--block2", "256",
                "--mode", mode, "-o", str(out), "--explain")
    assert res.exit_code == 1, res.output
    assert where in res.output, res.output
    assert what in res.output, res.output
    assert not out.exists()


def test_the_second_option_is_named(tmp_path: Path) -> None:
    res = hfuse(str(SRC), "--kernels", "tunable,tile256", "--block1", "256", "--block2", "64",
                "-o", str(tmp_path / "out.cu"))
    assert res.exit_code == 1
    assert "--block2 64 gives blockDim.x == 64" in res.output
    assert "(give --block2 256)" in res.output


def test_a_smaller_block_is_fine_when_nothing_assumes_the_declared_one(tmp_path: Path) -> None:
    # __launch_bounds__ is a maximum: 64 of at most 256 threads, indexing by blockDim.
    res = hfuse(str(SRC), "--kernels", "tunable,index128", "--block1", "64", "--block2", "128",
                "-o", str(tmp_path / "out.cu"), "--explain")
    assert res.exit_code == 0, res.output
    # The bound itself is no dependence on the block size: nothing in 'tunable' is.
    assert "block 64 from --block1; no dependence on the block size found" in res.output
    assert "it runs as a 128 block, and profiling does not change that size" in res.output


@pytest.mark.parametrize("mode", ["thread", "block"])
def test_consistent_blocks_compute_what_the_originals_do(tmp_path: Path, mode: str) -> None:
    n = 1000
    paths = {}
    for m in (mode, "sequential"):
        paths[m] = tmp_path / f"{m}.cu"
        res = hfuse(str(SRC), "--kernels", "tile256,index128", "--block1", "256", "--block2",
                    "128", "--mode", m, "-o", str(paths[m]))
        assert res.exit_code == 0, res.output
    x = np.random.default_rng(2).random(n, dtype=np.float32)
    outs = []
    for m in (mode, "sequential"):
        o1, o2 = np.zeros(n, np.float32), np.zeros(n, np.float32)
        library(paths[m]).call("tile256_index128_hfused_launch", x, o1, n, x, o2, n,
                               -(-n // 256), -(-n // 128), 0, 0, None)
        outs.append((o1, o2))
    assert np.array_equal(outs[0][0], outs[1][0]) and np.array_equal(outs[0][1], outs[1][1])
    assert np.array_equal(outs[1][1], 2 * x)


@pytest.mark.parametrize("mode", ["sequential", "streams"])
def test_more_threads_than_the_bound_fail_where_the_kernel_is_launched_alone(
        tmp_path: Path, mode: str) -> None:
    out = tmp_path / "out.cu"
    res = hfuse(str(SRC), "--kernels", "tunable,index128", "--block1", "512", "--block2",
                "128", "--mode", mode, "-o", str(out))
    assert res.exit_code == 1, res.output
    assert _at("tunable(float", "__launch_bounds__") + "--block1 512 has 512 threads, but " \
        "kernel 'tunable' declares __launch_bounds__(256): at most 256 threads per block " \
        "(the launch would fail)" in res.output
    assert not out.exists()


def test_more_threads_than_the_bound_are_wrong_where_the_code_is_written_for_it(
        tmp_path: Path) -> None:
    """shared256's __shared__ array has one element per thread of its bound: 512 threads
    would index past it, fused or not."""
    out = tmp_path / "out.cu"
    res = hfuse(str(SRC), "--kernels", "shared256,tunable", "--block1", "512", "--block2",
                "256", "-o", str(out))
    assert res.exit_code == 1, res.output
    assert "--block1 512 gives 512 threads, but kernel 'shared256' declares " \
        "__launch_bounds__(256) = 256 and __shared__ 's' (line 13) has 256 elements" \
        in res.output
    assert not out.exists()


@pytest.mark.parametrize("mode, threads", [
    pytest.param("thread", 512 + 128, marks=pytest.mark.slow), ("block", 512)])
def test_a_part_over_its_kernels_bound_runs_under_the_fused_bound(
        tmp_path: Path, mode: str, threads: int) -> None:
    """'tunable' takes its size from blockDim: at 512 threads (its bound says 256) it fuses;
    the fused kernel declares the bound of the block its launcher launches, and runs there
    under the emulator, which refuses a launch over a kernel's bound as a GPU does."""
    out = tmp_path / f"{mode}.cu"
    res = hfuse(str(SRC), "--kernels", "tunable,index128", "--block1", "512", "--block2",
                "128", "--mode", mode, "-o", str(out), "--explain")
    assert res.exit_code == 0, res.output
    assert "its __launch_bounds__(256) = 256 threads binds 'tunable' launched alone; as a " \
        "part it runs 512 threads under the fused kernel's own __launch_bounds__" in res.output
    text = out.read_text()
    assert f"__global__ void __launch_bounds__({threads}) tunable_index128_hfused(" in text
    assert f"_threads = {threads}u;" in text
    assert f"// __launch_bounds__({threads}) counts the whole fused block; it replaces " \
        "tunable's __launch_bounds__(256) (512 threads here)" in text
    if mode == "block":
        return  # one emulated run is enough: the thread mode's block is the larger
    # (slow: an emulated build; tests/hfuse/test_hfuse_over_bound.py verifies a real pair)
    n = 3000
    x = np.random.default_rng(4).random(n, dtype=np.float32)
    y = x.copy()
    o2 = np.zeros(n, np.float32)
    library(out).call("tunable_index128_hfused_launch", y, n, x, o2, n, -(-n // 512),
                      -(-n // 128), 0, 0, None)
    np.testing.assert_array_equal(y, x + np.float32(1))
    np.testing.assert_array_equal(o2, 2 * x)
