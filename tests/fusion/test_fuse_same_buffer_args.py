"""A last kernel given one buffer for two parameters (read as one name, written as the
other): the fused kernel has one parameter for the buffer and declares the other name from
it. Before, the second name was left undeclared and the output did not parse (exit 3).
Compared with the original under emulation, garbage-filled, at odd sizes."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import fuse_file
from test_fuse_partial_domains import run_garbage

PROGRAM = Path(__file__).parent / "programs" / "same_buffer_args.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("same") / "fused.cu"
    return path, fuse_file(PROGRAM, path, fuse_all=True)


def test_one_parameter_two_names(fused) -> None:
    path, result = fused
    assert [tuple(g.kernels) for g in result.groups] == [("ka", "kb")]
    assert "const float *aux = out;" in path.read_text()


@pytest.mark.parametrize("w,h", [(37, 3), (1, 1)])
def test_fused_equals_original(fused, w: int, h: int) -> None:
    path, _ = fused
    run_garbage(PROGRAM, path, "p_same_buffer", w, h)
