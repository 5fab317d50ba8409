"""Kernels with no bounds guard whose threads own exactly the image only because of their
launches' block and grid (`kernel<<<rows, cols>>>` with `out[blockIdx.x * cols +
threadIdx.x]`, or `c = threadIdx.x; r = blockIdx.x`): the launches' block and grid, as the
host evaluates them, are a fact the kernel analysis uses when every launch of the kernel in
the file shows them equal to parameters it is passed (or to one constant); such kernels fuse
(rows and columns, int and dim3 launches, blockDim read or its value spelled), and so do
a block's threads walking its row (`for (x = threadIdx.x; x < cols; x += blockDim.x)`,
any block) when every grid is the rows. Kernels whose
launches do not show it stay unfused, with a located note. Each fused program is compared
with the original under emulation, every element of every buffer, on odd sizes, with
garbage in every buffer."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import fuse_file, nvcc_error
from test_fuse_partial_domains import run_garbage

PROGRAM = Path(__file__).parent / "programs" / "block_facts.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    """Intermediates live: the fused kernels store them too (every buffer is compared)."""
    path = tmp_path_factory.mktemp("block_facts") / "fused.cu"
    return path, fuse_file(PROGRAM, path)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == [
        ("p_block_stride", ("half_bs", "slope_bs")),
        ("p_cols", ("gain_col", "diff_col")),
        ("p_const", ("lift16", "left16")),
        ("p_rows_dim3", ("split_bf", "blur_bf", "scale_bf")),
        ("p_rows_int", ("split_bf", "blur_bf", "scale_bf"))]


def test_refusals_say_why(fused) -> None:
    _, result = fused
    why = {(e.host, e.dst): e.why for e in result.edges if e.refused}
    for host, dst, var in (("p_block32", "copy_bf", "idx"), ("p_grid2d", "copy2_bf", "c"),
                           ("p_unknown", "copy3_bf", "c")):
        assert f"its element comes from its launch's shape ('{var}', line" in why[(host, dst)]
    notes = "\n".join(result.assumed)
    assert "block_facts.cu:118: kernel 'half_bf' has no bounds guard" in notes
    assert "its launches do not show 'cols' equal to their block's x size" in notes
    assert "block_facts.cu:154 has a grid y size of 2, not 1" in notes
    assert "block_facts.cu:175 passes it no parameter equal to its grid's x size rows" in notes
    assert "kernel 'blur_bf' has no bounds guard; every launch in the file gives it blocks " \
        "of cols threads and a grid of rows blocks: analysed with 'c' in [0, cols) and 'r' " \
        "in [0, rows)" in notes


@pytest.mark.parametrize("entry", ["p_rows_int", "p_rows_dim3", "p_cols", "p_const",
                                   "p_block_stride"])
@pytest.mark.parametrize("cols,rows", [(37, 19), (16, 1), (17, 23)])
def test_fused_equals_original(fused, entry: str, cols: int, rows: int) -> None:
    path, _ = fused
    run_garbage(PROGRAM, path, entry, cols, rows)


@pytest.mark.nvcc
def test_fused_compiles(fused, tmp_path: Path) -> None:
    path, _ = fused
    assert nvcc_error(path, tmp_path) == ""


@pytest.mark.slow
@pytest.mark.parametrize("entry", ["p_rows_int", "p_cols", "p_const", "p_block_stride"])
def test_fused_with_scratch_equals_original(tmp_path: Path, entry: str) -> None:
    """The intermediates dropped (--scratch a,b): the fused kernels store only `out`."""
    path = tmp_path / "scratch.cu"
    fuse_file(PROGRAM, path, scratch=frozenset({"a", "b"}))
    run_garbage(PROGRAM, path, entry, 37, 19, skip=frozenset({"a", "b"}))


def test_the_view_and_coverage_read_the_launch() -> None:
    """The view's bounds are the parameters the launches pass; coverage asks each launch
    for exactly them: a block one thread wider is refused."""
    from cudafuse.frontend import ParseOptions
    from cudafuse.ir import nodes as n
    from cudafuse.passes.vertical.host.coverage import covers
    from cudafuse.passes.vertical.host.hostview import host_locals
    from cudafuse.passes.vertical.host.resolver import Resolver
    from cudafuse.passes.vertical.kernel.constargs import with_launch_constants
    from cudafuse.passes.vertical.kernel.recognise import build_view
    from cudafuse.passes.vertical.kernel.respell import parse_for_fusion

    unit, _ = with_launch_constants(parse_for_fusion(str(PROGRAM), ParseOptions())[0].unit)
    blur = build_view(unit.function("blur_bf"))
    assert [c.name for c in blur.coords] == ["c", "r"] and blur.producer_reason is None
    assert [getattr(b, "name", "") for b in blur.bounds] == ["cols", "rows"]
    assert blur.launch_extents == ("block.x", "grid.x") and blur.transposed  # no tiles
    walk = build_view(unit.function("slope_bs"))  # a block-stride loop over each row
    assert [c.name for c in walk.coords] == ["x", "y"] and walk.grid_stride
    assert walk.producer_reason is None and walk.inner_loop is None
    assert [getattr(b, "name", "") for b in walk.bounds] == ["cols", "rows"]
    gain = build_view(unit.function("gain_col"))
    assert [c.name for c in gain.coords] == ["c", "r"]  # the column first: x from the grid
    assert gain.launch_extents == ("grid.x", "block.x")
    host = unit.function("p_rows_int")
    launch = next(x for x in host.body.walk()
                  if isinstance(x, n.KernelLaunch) and x.kernel == "blur_bf")
    fn = unit.function("blur_bf")
    params = dict(zip((p.decl for p in fn.params), launch.args, strict=True))
    resolver = Resolver(host_locals(host), unit=unit).with_params(params)
    assert covers(resolver, launch.grid, launch.block, blur.grid_bounds) is None
    wider = n.Binary("+", launch.block, n.IntLit(1, type="int"), type="int")
    assert "is not shown to equal cols" in covers(resolver, launch.grid, wider,
                                                  blur.grid_bounds)
