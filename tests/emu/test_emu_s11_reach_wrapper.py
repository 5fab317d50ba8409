"""benchmarks/reach.py --survey: a program the emulator does not build is checked with nvcc as
it was built, the survey's wrapper included, so that a wrapper's own error (a definition
of a variable the program's header declares `static`, as kltccp_sepconv's did) is counted as
one nvcc makes too, not as the emulator's gap (issue 31)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _reach():
    spec = importlib.util.spec_from_file_location("reach_s11", ROOT / "benchmarks" / "reach.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["reach_s11"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.nvcc
def test_a_wrappers_own_error_is_nvccs_too(tmp_path):
    (tmp_path / "table.h").write_text("static float table[4];\n")
    program = tmp_path / "prog.cu"
    program.write_text('#include "table.h"\n'
                       "__global__ void k(float *o) { o[threadIdx.x] = table[threadIdx.x]; }\n")
    prog = SimpleNamespace(name="s11_wrapped", path=program, flags=[], spec=None,
                           wrapper="float table[4];\nvoid entry(float *o) { k<<<1, 4>>>(o); }\n")
    row = _reach().survey_run(str(Path(sys.executable).parent / "cudafuse"), prog, 60)
    assert row.emu.startswith("not built") and "table" in row.emu
    assert row.nvcc and "table" in row.nvcc  # nvcc rejects the wrapped program as well
    assert not list(tmp_path.glob(".cf-reach-*"))  # the wrapper's file is removed
