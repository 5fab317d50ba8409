"""Guard-free kernels that choose what to store with an if/else (issue 25): an if with an
else bounds nothing, so such a kernel is read with its launches' block and grid
(kernel/launchshape.py) like one with no if at all; each output's value at an element is
the branch's store, and the fused program is compared with the original under emulation,
every element of every buffer, with garbage in every buffer and several bits. An if with
no else, which could be a guard the plain reading missed, keeps the kernel as written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from equivalence import call_both, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "guard_free_branches.cu"
N = 5 * 64


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("guard_free_branches") / "fused.cu"
    return path, fuse_file(PROGRAM, path, fuse_all=True)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert [(g.host, tuple(g.kernels)) for g in result.groups] == [
        ("p_flags", ("flags", "combine"))]
    why = {e.host: e.why for e in result.edges if e.refused}
    assert "'ones_only' cannot be recomputed" in why["p_ones_only"]


@pytest.mark.parametrize("bit", [0, 7, 31])
def test_fused_equals_original(fused, bit: int) -> None:
    path, _ = fused
    rng = np.random.default_rng(bit)
    args = [rng.integers(0, 2**32, N, dtype=np.uint32) for _ in range(4)] + [bit]
    before, after = call_both(PROGRAM, path, "p_flags", args)
    for k, (a, b) in enumerate(zip(before[:4], after[:4], strict=True)):
        assert np.array_equal(a, b), f"buffer {k} differs"
