"""Error checks written as C++ (issue 31): a checker lambda, the same held by a
std::function, a helper that builds its message in a std::ostringstream before throwing.
Each only reads the error state and reports it, so the launches around it fuse; each fused
program is compared with the original under the emulator, every element of every buffer.
A lambda that clears a device buffer still cuts the sequence, with why."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "error_check_styles.cu"
FUSED = ("p_lambda", "p_ostringstream", "p_std_function")


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("checkers") / "fused.cu"
    return path, fuse_file(PROGRAM, path, fuse_all=True)


def test_checks_that_only_report_do_not_cut(fused) -> None:
    _, result = fused
    hosts = {g.host for g in result.groups}
    assert set(FUSED) <= hosts


def test_a_lambda_that_writes_device_memory_still_cuts(fused) -> None:
    _, result = fused
    assert "p_lambda_clears" not in {g.host for g in result.groups}
    why = [w for host, _, _, w in result.breaks if host == "p_lambda_clears"]
    assert why and "'lambda' calls 'cudaMemset'" in why[0]


@pytest.mark.slow  # (the emulated builds take about 10 s of CPU)
@pytest.mark.parametrize("entry", FUSED)
def test_fused_equals_the_original(fused, entry: str) -> None:
    path, _ = fused
    compare_entry(PROGRAM, path, entry, {"n": 1000})
