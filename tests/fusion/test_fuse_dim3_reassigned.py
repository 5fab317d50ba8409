"""A launch's grid read by value where the variable is later given new sizes (host/byvalue.py)
is printed as a value when the fused code names it elsewhere: for `dim3 grid(a, b);`
libclang's extent of the constructor begins at the variable's name, and the sibling
launcher was passed `grid(a, b)`, a call of the dim3 (exit 3: the fused program did not
parse; seen in Infatoshi/mnist-cuda's backward under --fuse-all). It is now `dim3(a, b)`,
and the side-by-side pair matches the original under emulation at odd sizes.
A component assigned after the declaration (`grid.x = ...;`, as that backward does) is read
too: the launch before it is spelled `dim3(<its x>, <its y>, 1)`, so a producer -> consumer
chain across the resizing fuses (its producer's coverage proven from that value; before,
the assignment split the sequence), and matches; where the consumer's grid is smaller
(chain_shrunk) the group is left unfused, with why."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from equivalence import call_both, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "dim3_reassigned.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("dim3") / "fused.cu"
    return path, fuse_file(PROGRAM, path, fuse_all=True)


def test_first_grid_passed_as_its_value(fused) -> None:
    path, _ = fused
    call = next(line for line in path.read_text().splitlines()
                if "cf_two_shapes_sib0_launch(y," in line)
    assert "dim3((((w + block.x) - 1) / block.x), (((h + block.y) - 1) / block.y)), " \
        "dim3((((h + block.x) - 1) / block.x), (((w + block.y) - 1) / block.y), 1)" in call


def test_chain_across_resizing(fused) -> None:
    _, result = fused
    groups = {(g.host, tuple(g.kernels)) for g in result.groups}
    assert ("chain_resized", ("add_one", "triple")) in groups
    assert not any(host == "chain_shrunk" for host, _ in groups)


@pytest.mark.slow
@pytest.mark.parametrize("w,h", [(37, 5), (1, 1), (20, 33)])
def test_chain_equals_original(fused, w: int, h: int) -> None:
    path, _ = fused
    rng = np.random.default_rng(w * 10 + h)
    bufs = [rng.random(w * h + 8, dtype=np.float32) for _ in range(3)]
    before, after = call_both(PROGRAM, path, "chain_resized", [*bufs, w, h])
    for name, a, b in zip(("x", "t", "y"), before[:3], after[:3], strict=True):
        assert np.array_equal(a, b), f"{w}x{h}: '{name}' differs"


@pytest.mark.slow
@pytest.mark.parametrize("w,h", [(37, 5), (1, 1), (20, 33)])
def test_fused_equals_original(fused, w: int, h: int) -> None:
    path, _ = fused
    rng = np.random.default_rng(w * 100 + h)
    x = rng.random(w * h + 8, dtype=np.float32)
    y = rng.random(w * h + 8, dtype=np.float32)
    z = rng.random(w * h + 8, dtype=np.float32)
    before, after = call_both(PROGRAM, path, "two_shapes", [x, y, z, w, h])
    for name, a, b in zip("xyz", before[:3], after[:3], strict=True):
        assert np.array_equal(a, b), f"{w}x{h}: '{name}' differs"
