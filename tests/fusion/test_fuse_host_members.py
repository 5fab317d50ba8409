"""Host code in C++ member functions: launches in an out-of-line method, a method defined
in its struct's body and a static member are fused like a free function's, with data
members as buffers and values; a member assigned, or a member function called, between two
launches splits them. The fused file is compared with the original element by element under
emulation (each entry builds the object and calls the method), and compiles with nvcc."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from equivalence import fuse_file, run_both

from cudafuse.frontend import parse_file

PROGRAM = Path(__file__).parent / "programs" / "host_members.cu"
ENTRIES = ["class_chain", "struct_inline", "static_member", "member_assigned", "member_called",
           "lambda_chain", "lambda_params"]


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("hm") / "fused.cu"
    return out, fuse_file(PROGRAM, out)


def test_member_functions_are_hosts() -> None:
    unit = parse_file(str(PROGRAM)).unit
    assert [h.name for h in unit.hosts()] == [
        "Pipeline::run", "Stage::launch", "Kernels::chain", "Swapper::assigned",
        "Swapper::called", "lambda_chain", "lambda_params"]
    # Code for a method defined in its class's body goes before the class.
    stage = next(h for h in unit.hosts() if h.name == "Stage::launch")
    assert unit.source.data[unit.anchor(stage):].startswith(b"struct Stage {")


def test_what_fuses(fused) -> None:
    _, result = fused
    groups = sorted((g.host, tuple(g.kernels)) for g in result.groups)
    assert groups == [("Kernels::chain", ("hm_blur", "hm_offset")),
                      ("Pipeline::run", ("hm_blur", "hm_scale", "hm_offset")),
                      ("Stage::launch", ("hm_scale", "hm_blur")),
                      ("lambda_chain", ("hm_blur", "hm_offset"))]
    # Member buffers stay written: the object outlives the call.
    run = next(g for g in result.groups if g.host == "Pipeline::run")
    assert run.stored == ["this->a_", "this->b_"]


def test_refusals(fused) -> None:
    _, result = fused
    breaks = {(h, line): why for h, line, _, why in result.breaks}
    assert "it assigns 'this->b_'" in breaks[("Swapper::assigned", 111)]
    assert "its call to 'flip'" in breaks[("Swapper::called", 119)]
    assert not [g for g in result.groups if g.host.startswith("Swapper")]
    whys = {la.why for la in result.launches if la.host == "Swapper::called"}
    assert "pointer member 'a_' is set from another pointer in 'Swapper::flip'" in whys
    whys = {la.why for la in result.launches if la.host == "lambda_params"}
    assert "pointer 'mid' is a parameter of a lambda (it may name any buffer)" in whys


@pytest.mark.parametrize("entry", ENTRIES)
def test_host_members_match(fused, entry: str) -> None:
    out, _ = fused
    for w, h in ((37, 19), (5, 40)):
        run_both(PROGRAM, out, entry, w, h)


@pytest.mark.nvcc
def test_host_members_fused_compiles(fused, tmp_path: Path) -> None:
    out, _ = fused
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(out), "-o", str(tmp_path / "o.o")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
