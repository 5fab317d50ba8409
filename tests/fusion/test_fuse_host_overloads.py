"""Overloaded kernels: each launch is matched to the overload clang resolved (the launch's
referenced declaration), in the sequence splitter, the wrappers and the planner, so a
launch of the second overload is no longer "its argument count does not match the kernel".
The fused programs are compared element by element with the originals under emulation."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_with_api, nvcc_error

PROGRAM = Path(__file__).parent / "programs" / "host_overloads.cu"
ENTRIES = ["ov_double", "ov_float", "ov_arity", "ov_same_name"]


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    return fuse_with_api(PROGRAM, tmp_path_factory.mktemp("ov"))


def test_groups(fused) -> None:
    _, api = fused
    groups = sorted((g.host, tuple(g.kernels)) for g in api.result.groups)
    assert groups == [("ov_arity", ("step", "offset", "scale")),
                      ("ov_double", ("scale", "offset")),
                      ("ov_float", ("scale", "offset"))]
    assert not any("argument count" in la.why for la in api.result.launches)


def test_same_name_in_one_group_is_left_unfused(fused) -> None:
    out, api = fused
    assert any("ov_same_name" in note and "two overloads of 'step'" in note
               for note in api.result.notes)
    body = out.read_text().split("void ov_same_name(")[1]
    assert body.count("step<<<") == 2


@pytest.mark.parametrize("entry", ENTRIES)
def test_fused_matches_original(fused, entry: str) -> None:
    out, _ = fused
    for n in (1, 37, 300):
        compare_entry(PROGRAM, out, entry, {"n": n})


@pytest.mark.nvcc
def test_fused_compiles(fused, tmp_path: Path) -> None:
    assert shutil.which("nvcc")
    out, _ = fused
    assert nvcc_error(out, tmp_path) == ""
