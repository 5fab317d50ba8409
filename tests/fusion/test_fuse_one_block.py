"""Kernels launched as one block (`k<<<1, n>>>`, a dim3 of 1): with gridDim 1 at every launch
in the file, blockIdx is 0 and threadIdx.x is the thread's global coordinate; the kernel
analysis reads them so (launchshape.py) and they fuse (an Otsu-style staged bin table, an
item kernel with no guard, threadIdx.x in a subscript, and a clamped neighbour). A kernel
also launched with two blocks keeps its text's meaning, with a located reason; a producer
reading threadIdx.x past its declarations stays unfused (code generation's note). Each
fused program is compared with the original under emulation, every element of every buffer,
on odd sizes, with garbage in every buffer (slow: the two emulated builds take ~35 s)."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import fuse_file
from test_fuse_partial_domains import run_garbage

PROGRAM = Path(__file__).parent / "programs" / "one_block.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    """`p` is scratch (the caller does not read the probabilities), as in Otsu's code."""
    path = tmp_path_factory.mktemp("one_block") / "fused.cu"
    return path, fuse_file(PROGRAM, path, scratch=frozenset({"p"}), fuse_all=True)


def test_what_fuses_and_why_not(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == [
        ("p_items", ("gain_ob", "left_ob")), ("p_otsu", ("probs_ob", "between_ob"))]
    why = {(e.host, e.dst): e.why for e in result.edges if e.refused}
    for host in ("p_mixed", "p_two"):  # (gain2_ob runs as two blocks in p_two)
        assert "its element comes from its launch's shape ('i', line" in why[(host, "half2_ob")]
    # (a producer reading threadIdx.x past its declarations: code generation refuses)
    assert any(x.startswith("p_tid_read: group ['gain3_ob', 'left_ob'] left unfused")
               for x in result.notes)
    notes = "\n".join(result.assumed)
    assert "one_block.cu:16: kernel 'between_ob' is launched as one block at every launch" \
        in notes
    assert "kernel 'gain2_ob' is launched as one block" not in notes


@pytest.mark.slow
@pytest.mark.parametrize("entry", ["p_otsu", "p_items"])
@pytest.mark.parametrize("w,h", [(37, 19), (64, 3), (73, 5)])
def test_fused_equals_original(fused, entry: str, w: int, h: int) -> None:
    path, _ = fused
    run_garbage(PROGRAM, path, entry, w, h, skip=frozenset({"p"}))
