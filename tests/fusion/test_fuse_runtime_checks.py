"""Groups whose producers' grids cover their domains only at some sizes, or provably only at
run time (host/runtime_check.py): a grid sized from a #define against a parameter bound, a
quotient rounded in float, a dim3 from a helper, a block count assigned after the launches
(not between them: the original launches could not run at the fused launch). The fused
launch runs under the check, the original launches otherwise; both paths are compared with
the original under emulation, every element of every buffer, garbage-filled, at sizes where
the check holds and where it fails."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from equivalence import fuse_file
from test_fuse_partial_domains import run_garbage

PROGRAM = Path(__file__).parent / "programs" / "runtime_checks.cu"
CHECKED = ("p_define_grid", "p_float_ceil", "p_helper_grid", "p_grid_assigned_later")


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("checks") / "fused.cu"
    return path, fuse_file(PROGRAM, path)


def test_what_fuses_and_under_which_check(fused) -> None:
    path, result = fused
    assert sorted(g.host for g in result.groups) == sorted(CHECKED)
    text = path.read_text()
    # (p_helper_grid's dim3 helper has one return, read by the resolver: no check needed)
    assert text.count("} else { /* cudafuse: the original launches */") == 3
    helper = text.split("void p_helper_grid(")[1].split("\n}\n")[0]
    assert "cf_p_helper_grid_fused" in helper and "original launches" not in helper
    assert "(long long)(grid).x * (long long)(block).x >= (long long)(w)" in text
    assumed = " ".join(result.assumed)
    assert "p_define_grid: cf_p_define_grid_fused" in assumed and \
        "the original launches run otherwise" in assumed
    assert any("p_grid_assigned_between: group ['scale1', 'next1'] left unfused: a variable "
               "its launches read is assigned between them" in note for note in result.notes)


@pytest.mark.parametrize("entry", CHECKED)
@pytest.mark.parametrize("w,h", [(37, 19), (47, 1), (53, 50)])  # the last: past NMAX
def test_both_paths_equal_the_original(fused, entry: str, w: int, h: int) -> None:
    path, _ = fused
    run_garbage(PROGRAM, path, entry, w, h)


@pytest.mark.nvcc
def test_the_fused_file_compiles(fused, tmp_path: Path) -> None:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc not on PATH")
    path, _ = fused
    subprocess.run([nvcc, "-c", "-arch=sm_90", str(path), "-o", str(tmp_path / "f.o")],
                   check=True, capture_output=True)
