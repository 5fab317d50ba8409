"""Nested-if bounds guards read by meaning (issue 25; the survey's mimnagh_unsharp writes its
guard so, in a header): `if (x < w) { if (y < h) { ... } }`, each if with no else and
nothing else in it, is the guard `x < w && y < h` (view.NestedGuard), read by the view
itself, so kernels of an included header, which the respellings do not reach, fuse too
(programs/kfacts_nested.cuh). A variant spelling the same otherwise fuses as well (rows
first, no braces, a scaled test, three levels, one a lower bound that always holds); nested
tests that bound x twice and y never are refused with the usual reason, and a kernel whose
store is a helper's (the header's call is not respelled) says so. Each fused pipeline
equals the original under the emulator, every element of every buffer filled with garbage,
on odd sizes, and the fused file compiles with nvcc."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_with_api, nvcc_error

PROGRAM = Path(__file__).parent / "programs" / "kfacts_nested.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("kn")
    shutil.copy(PROGRAM.with_suffix(".cuh"), folder)  # (the fused file includes it)
    return fuse_with_api(PROGRAM, folder)


def test_nested_guards_fuse_and_a_guard_missing_y_does_not(fused) -> None:
    _, api = fused
    groups = {g.host: g.kernels for g in api.result.groups}
    assert groups == {"kn_unsharp": ["kn_blur", "kn_blur", "kn_weigh"],
                      "kn_spelled": ["kn_sharp", "kn_blur"]}
    (edge,) = [e for e in api.result.edges if e.host == "kn_leaky"]
    assert edge.refused and "'kn_leak' cannot be recomputed: it has no recognisable bounds " \
        "guard" in edge.why and "(the guard at line 50 bounds no 'y')" in edge.why, edge.why
    (edge,) = [e for e in api.result.edges if e.host == "kn_helped"]
    assert edge.refused and "'kn_helper' cannot be recomputed: its stores are inside a call: " \
        "it passes 'out' to 'kn_store' (line 70)" in edge.why, edge.why


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_fused_file_compiles(fused, tmp_path: Path) -> None:
    out, _ = fused
    assert nvcc_error(out, tmp_path) == ""


@pytest.mark.slow
@pytest.mark.parametrize(("entry", "sizes"), [
    ("kn_unsharp", {"w": 37, "h": 19}), ("kn_unsharp", {"w": 1, "h": 5}),
    ("kn_spelled", {"w": 21, "h": 11}), ("kn_leaky", {"w": 13, "h": 13}),
    ("kn_helped", {"w": 9, "h": 7})])
def test_fused_equals_original(fused, entry: str, sizes: dict[str, int]) -> None:
    out, _ = fused
    compare_entry(PROGRAM, out, entry, sizes)
