"""Tiled kernels cudafuse does not recompute, refused for the reason that stands in the way,
read from what the kernel does (kernel/cooperation.py, staged_copy.py, staged_tile.py):

- a tile whose threads each store several elements (NVIDIA's convolutionSeparable,
  ferraiuolo's row and column passes: a loop of STEPS results per thread, or two stores
  spelled out), which the tile readers, one element per thread, do not single out;
- a shared copy passed whole to a helper (ferraiuolo's otsu), whose reads of it are not
  followed: once under a one-block launch, once under a guard (staged_copy.py's own words;
  it used to drop the copy's declaration and keep the call's reference to it);
- a tile loaded through a parameter the kernel moves (`src += y * w + x`), which the tile
  readers do not follow: not an in-place update (the kernel stores nothing through it).
Program: tests/fusion/programs/tiles_steps.cu (ours, in those styles)."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import fuse_file

from cudafuse.frontend.parse import ParseOptions
from cudafuse.passes.vertical.driver import report_dict
from cudafuse.passes.vertical.kernel.respell import parse_for_fusion

PROGRAM = Path(__file__).parent / "programs" / "tiles_steps.cu"


@pytest.fixture(scope="module")
def edges(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("tiles_reasons") / "fused.cu"
    result = fuse_file(PROGRAM, out, fuse_all=True)
    return {f"{e['from']}->{e['to']}": "fused" if e["fused"] else e["why"]
            for e in report_dict(result)["edges"]}


def test_several_results_per_thread_are_named(edges: dict[str, str]) -> None:
    loop = edges["rowsteps->colsteps"]
    assert "'rowsteps' cannot be recomputed: each thread stores 4 elements of 'dst' (line 32; " \
        "8, 16, 24 after its first)" in loop
    assert "one element per thread" in loop and "exchange data" not in loop
    spelled = edges["rowpair->twice"]
    assert "'rowpair' cannot be recomputed: each thread stores 2 elements of 'dst' (lines 87, " \
        "88; 8 after its first)" in spelled


def test_a_shared_copy_passed_to_a_helper_is_named(edges: dict[str, str]) -> None:
    assert "'cumulate' cannot be recomputed: it passes shared 's' to 'prefix' (line 123)" in \
        edges["cumulate->twice"]
    assert "'weigh' cannot be recomputed: it passes shared 's' to 'prefix' (line 135)" in \
        edges["weigh->twice"]


def _kernel(name: str):
    return parse_for_fusion(str(PROGRAM), ParseOptions())[0].unit.function(name)


def test_the_copy_is_not_dropped_under_a_reference() -> None:
    from cudafuse.passes.vertical.kernel.staged_copy import staged_copy

    assert staged_copy(_kernel("weigh")) == (
        "it passes shared 's' to 'prefix' (line 135): which of its elements the callee reads "
        "is not followed, so reading the copied buffer there instead is not shown to read the "
        "same values")


def test_a_moved_parameter_is_not_an_in_place_update() -> None:
    from cudafuse.passes.vertical.kernel.staged_tile import staged_tile

    assert staged_tile(_kernel("rowsteps")) == (
        "its tile in shared 't' (line 21) stores a value that loads through 'src', which the "
        "kernel moves (line 15): the element a load names is not followed")
