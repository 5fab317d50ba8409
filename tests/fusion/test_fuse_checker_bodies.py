"""Error checks written as C++ (issue 31): a checker lambda, the same held by a
std::function, a checker class whose operator() reads its own members (the object a local
held by value), throwing a class that only inherits std::runtime_error's constructor, a
helper that builds its message in a std::ostringstream before throwing. Each only reads
the error state and reports it, so the launches around it fuse; each fused program is
compared with the original under the emulator, every element of every buffer. A lambda or
checker class that clears a device buffer still cuts the sequence, with why, as does an
exception class whose member initialiser does."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "error_check_styles.cu"
FUSED = ("p_lambda", "p_exception_class", "p_ostringstream", "p_std_function",
         "p_checker_class")


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("checkers") / "fused.cu"
    return path, fuse_file(PROGRAM, path, fuse_all=True)


def test_checks_that_only_report_do_not_cut(fused) -> None:
    _, result = fused
    hosts = {g.host for g in result.groups}
    assert set(FUSED) <= hosts


@pytest.mark.parametrize("host,why", [
    ("p_lambda_clears", "'lambda' calls 'cudaMemset'"),
    ("p_initialiser_clears", "'ClearingFailure' calls 'cudaMemset'"),
    ("p_checker_clears", "'operator()' calls 'cudaMemset' on 'this.buf'"),
    ("p_rebound", "its call to 'operator()' may touch device memory or variables"),
])
def test_a_check_that_writes_device_memory_still_cuts(fused, host: str, why: str) -> None:
    _, result = fused
    assert host not in {g.host for g in result.groups}
    said = [w for h, _, _, w in result.breaks if h == host]
    assert said and why in said[0], said


@pytest.mark.slow  # (the emulated builds take about 10 s of CPU)
@pytest.mark.parametrize("entry", FUSED)
def test_fused_equals_the_original(fused, entry: str) -> None:
    path, _ = fused
    compare_entry(PROGRAM, path, entry, {"n": 1000})


HEADER_STYLE = Path(__file__).parent / "programs" / "checked_header" / "pipeline.cu"


def test_header_checks_and_a_capturing_lambda_fuse(tmp_path: Path) -> None:
    result = fuse_file(HEADER_STYLE, tmp_path / "fused.cu", fuse_all=True)
    assert not result.breaks, result.breaks
    assert [g.host for g in result.groups] == ["run"]


@pytest.mark.slow
def test_header_style_equals_the_original(tmp_path: Path) -> None:
    fuse_file(HEADER_STYLE, tmp_path / "fused.cu", fuse_all=True)
    (tmp_path / "gpu_check.cuh").write_bytes((HEADER_STYLE.parent / "gpu_check.cuh").read_bytes())
    compare_entry(HEADER_STYLE, tmp_path / "fused.cu", "run", {"n": 5000})
