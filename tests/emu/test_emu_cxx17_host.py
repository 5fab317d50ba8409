"""C++17 host code around kernels builds and runs under the emulator as nvcc builds it (issue
31 audit): launches from lambdas (by reference, generic), std::function, member functions, a
template with deduced arguments; `main` checks every element of the result itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from cudafuse.runtime import load

PROGRAM = Path(__file__).parent / "programs" / "cxx17_host_launches.cu"


@pytest.mark.slow  # a build: about 5 CPU-s; test_emu_host_lambdas covers the common forms
def test_cxx17_host_launches_run_main_to_exit_zero() -> None:
    with load(PROGRAM, opt="-O0") as lib:
        assert lib.call("main") == 0  # 1: an element differs
