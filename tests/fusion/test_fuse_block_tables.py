"""Producers that read their block's entry of a per-block table (`scan[i] = part[i] +
sums[blockIdx.x]`, the last step of a multi-block scan in course radix sorts): the view
reads blockIdx.x and threadIdx.x past the coordinate declarations as x / blockDim.x and
x % blockDim.x of the element (kernel/view.KernelView.block_reads), so such a producer is
recomputed wherever the fused kernel runs with its block; the group then keeps that block,
and a consumer launched with another is refused. The fused programs are compared with the
originals under emulation, every element of every buffer, at odd sizes that end inside a
block, with garbage in every buffer; two consumers read the element before their own, which
at each block's first thread belongs to the block before, one of them after a producer whose
guard skips the first block (`if (i >= n || blockIdx.x == 0) return;`, kernel/view's
_block_condition: those elements keep their contents)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from equivalence import call_both, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "block_tables.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("blocktables") / "fused.cu"
    return path, fuse_file(PROGRAM, path)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == [
        ("p_block_sums", ("add_block_sums", "twice")),
        ("p_block_sums_neighbour", ("add_block_sums", "difference")),
        ("p_skip_first_block", ("add_previous_sums", "difference"))]
    why = {e.host: e.why for e in result.edges if e.refused}
    assert "'add_block_sums' reads its block index ('blockIdx.x', line 12)" in \
        why["p_other_block"]


def test_block_index_is_the_elements(fused) -> None:
    path, _ = fused
    text = path.read_text()
    at = text[text.index("add_block_sums_scan_xy("):]
    body = at[:at.index("\n}\n")]
    assert "sums[((unsigned int)(i) / blockDim.x)]" in body
    assert "((unsigned int)(i) % blockDim.x)" in body
    assert "blockIdx" not in body and "threadIdx" not in body
    # the fused launch keeps the producer's block
    assert "fused0<<<(n + 127) / 128, 128>>>" in text
    # a guard that skips the first block tests the element's block, memory where it holds
    at = text[text.index("add_previous_sums_scan_xy("):]
    assert "if (i >= n || ((unsigned int)(i) / blockDim.x) == 0) return scan[i];" in \
        at[:at.index("\n}\n")]


@pytest.mark.slow  # (building the two emulated programs takes ~45 s on a loaded CI core)
@pytest.mark.parametrize("entry", ["p_block_sums", "p_block_sums_neighbour",
                                   "p_skip_first_block"])
@pytest.mark.parametrize("n", [1000, 129, 1, 63])
def test_fused_equals_original(fused, entry: str, n: int) -> None:
    path, _ = fused
    rng = np.random.default_rng(n)
    part, sums = (rng.random(n, dtype=np.float32) * 7.0 - 3.0 for _ in range(2))
    out = rng.random(n, dtype=np.float32) * 9.0 + 100.0  # garbage: every element is stored
    a, b = call_both(PROGRAM, path, entry, [part, sums, out, n])
    for k, name in enumerate(("part", "sums", "out")):
        assert np.array_equal(a[k], b[k]), f"{entry} n={n}: '{name}' differs"
    assert not np.array_equal(a[2], out)
