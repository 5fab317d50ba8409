"""A block given with --block1/--block2 that the kernel contradicts is an error (exit 1, at
the `__launch_bounds__` or the construct assuming the size, naming the option and both
numbers, nothing written), in every mode: the fused kernel (and the unfused launchers) would
run the kernel with that block and compute wrong results, or fail to launch."""

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
    ("tunable,tile256", "512", _at("tunable(float", "__launch_bounds__"),
     "--block1 512 has 512 threads, but kernel 'tunable' declares __launch_bounds__(256): at "
     "most 256 threads per block"),
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
    assert "it declares __launch_bounds__(256) = 256 threads, not 64): it runs as a 64 " \
        "block" in res.output
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
