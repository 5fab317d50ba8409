"""Exception classes with written-out constructors (issue 31): members, a what() override,
a message built by std::string concatenation and cudaGetErrorString, two bases (one of the
program's, initialised explicitly), thrown between two launches or by a helper. Each
constructor's initialisers and body touch only the new object and its arguments, so the
launches around the check fuse, and each fused program equals the original under the
emulator. A constructor that writes a global, clears device memory, or leaves a base of the
program's to its default constructor (which writes a global), or holds a member whose
class's default member initialiser writes one, still cuts, with why."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "exception_classes.cu"
FUSED = ("p_members", "p_two_bases", "p_helper")


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("exceptions") / "fused.cu"
    return path, fuse_file(PROGRAM, path, fuse_all=True)


def test_constructors_that_build_only_the_object_do_not_cut(fused) -> None:
    _, result = fused
    assert set(FUSED) <= {g.host for g in result.groups}
    assert not [b for b in result.breaks if b[0] in FUSED]


@pytest.mark.parametrize("host,why", [
    ("p_cut_global", "'CountingError' assigns 'g_failures'"),
    ("p_cut_device", "'ClearingError' calls 'cudaMemset'"),
    ("p_cut_default_base", "'LoggedError' also runs a constructor of the program's"),
    ("p_cut_member_default", "'SequencedError' also runs a constructor of the program's"),
])
def test_a_constructor_that_does_more_still_cuts(fused, host: str, why: str) -> None:
    _, result = fused
    assert host not in {g.host for g in result.groups}
    said = [w for h, _, _, w in result.breaks if h == host and "not fused across" in w]
    assert said and why in said[0], said


@pytest.mark.slow  # (the emulated builds)
@pytest.mark.parametrize("entry", FUSED)
def test_fused_equals_the_original(fused, entry: str) -> None:
    path, _ = fused
    compare_entry(PROGRAM, path, entry, {"n": 1000})
