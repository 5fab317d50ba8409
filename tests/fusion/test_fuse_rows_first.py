"""Kernels whose grid's x walks the rows (`out[x * cols + y]`, x from blockIdx.x), as many
course and student codes write them: the view takes the coordinate with unit stride as the
element's column, so such kernels fuse like the usual ones. Coverage is read in the launch's
own grid order (x against rows), shared-memory tiles and another block shape are not used
for them, and a group mixing the two mappings is refused. Each fused program is compared
with the original under emulation, every element of every buffer, on odd sizes, with garbage
in every buffer."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import fuse_file
from test_fuse_partial_domains import run_garbage

PROGRAM = Path(__file__).parent / "programs" / "rows_first.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("rows_first") / "fused.cu"
    return path, fuse_file(PROGRAM, path)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == [
        ("p_rows_first", ("gray_rf", "blur_rf"))]


def test_refusals_say_why(fused) -> None:
    _, result = fused
    why = {(e.host, e.dst): e.why for e in result.edges if e.refused}
    assert "its grid does not cover the iteration space in x" in \
        why[("p_rows_first_short", "blur_rf")]
    assert "unguarded border handling" in why[("p_rows_first_unguarded", "next_row_rf")]
    assert "map threads to elements differently" in why[("p_mixed", "square_xy")]


@pytest.mark.parametrize("cols,rows", [(37, 19), (1, 23), (29, 1)])
def test_fused_equals_original(fused, cols: int, rows: int) -> None:
    path, _ = fused
    run_garbage(PROGRAM, path, "p_rows_first", cols, rows)


def test_the_view_reads_the_mapping() -> None:
    from cudafuse.frontend import ParseOptions
    from cudafuse.passes.vertical.kernel.recognise import build_view
    from cudafuse.passes.vertical.kernel.respell import parse_for_fusion

    unit = parse_for_fusion(str(PROGRAM), ParseOptions())[0].unit
    blur = build_view(unit.function("blur_rf"))
    square = build_view(unit.function("square_xy"))
    assert blur.transposed and blur.grid_dims == (1, 0) and not square.transposed
    assert [c.name for c in blur.coords] == ["y", "x"]  # the column first
    # coverage reads the bounds in the grid's order: x against rows
    assert [getattr(b, "name", "") for b in blur.grid_bounds] == ["rows", "cols"]
