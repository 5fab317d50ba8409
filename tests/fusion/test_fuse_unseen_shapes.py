"""Pipelines in shapes written by others (issue 25): guards written as nested ifs or read by
meaning (scaled by a constant channel count, negated), filter sizes passed as literals at the
launch (the kernel analysed with that constant), 2-D images walked by a 1-D grid (x = i % w,
y = i / w: read as the 2-D accesses they make), interior stencils after whole-image stages
(the intermediate stored before the last kernel's guard, over its producer's bounds), a
stencil staged in shared memory as the last kernel (its tile loads served by the producer's
view) and as a producer (recomputed reading its input where the tile's loads did:
kernel/staged_tile.py), and by-value helpers from an included header. Each fused program is
compared with the original under emulation, every element of every buffer (the
intermediates too: they are not scratch), on odd sizes, with garbage in every buffer; the
cases that must stay unfused say why."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import fuse_file
from test_fuse_partial_domains import run_garbage

PROGRAM = Path(__file__).parent / "programs" / "unseen_shapes.cu"
SIZES = ((37, 19), (1, 41))  # (p_polybench works on 40 elements)
FUSED = {"p_nested": ("nested_scale", "nested_blur"), "p_literal": ("gray", "sobel"),
         "p_interior": ("gray", "laplace"), "p_header_helper": ("square", "square_plus"),
         "p_scaled": ("scaled_copy", "scaled_add"), "p_odd_guard": ("gray", "odd_guard"),
         "p_linear": ("square", "box_linear"), "p_linear_after_2d": ("gray", "box_linear"),
         "p_staged": ("gray", "blur_staged"), "p_polybench": ("pb_scale", "pb_shift"),
         "p_staged_producer": ("blur_staged", "gray")}


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("unseen") / "fused.cu"
    # The fused file includes the helper header by its relative name: keep them together
    # (one directory for every entry: one emulator build of the fused file, not one each).
    (path.parent / "unseen_shapes.cuh").write_bytes(
        (PROGRAM.parent / "unseen_shapes.cuh").read_bytes())
    return path, fuse_file(PROGRAM, path)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == sorted(
        (host, kernels) for host, kernels in FUSED.items())
    assert any("kernel 'sobel' is launched with kernel_size = 3" in a for a in result.assumed)
    assert any("kernel 'pb_shift' is launched with n = 40" in a for a in result.assumed)
    assert not any("'shift'" in a for a in result.assumed)  # launched with 1 and with 0


def test_refusals_say_why(fused) -> None:
    _, result = fused
    why = {(e.host, e.dst): e.why for e in result.edges if e.refused}
    assert "its grid does not cover the iteration space in x" in \
        why[("p_interior_short_grid", "laplace")]
    assert "'laplace' writes only the interior, so the fused kernel must store 't' before " \
        "its guard" in why[("p_interior_short_grid", "laplace")]
    assert any("unguarded border handling" in e.why for e in result.edges
               if e.host == "p_varying" and e.refused)
    assert "'next_linear' reads 't' at offsets 1..1 in x with unguarded border handling" in \
        why[("p_linear_unguarded", "next_linear")]
    assert ("p_staged_producer", "gray") not in why  # (read through its tile's buffer)
    assert "'blur_staged_zero' reads 't' at run-time indices (loop variable 'dx'), and 't' " \
        "may be read after the group" in why[("p_staged_zero", "blur_staged_zero")]
    assert "'scaled_by_param' cannot be recomputed: it has no recognisable bounds guard" in \
        why[("p_scaled_by_param", "scaled_add")]


@pytest.mark.parametrize("entry", sorted(FUSED))
def test_fused_equals_original(fused, entry: str) -> None:
    path, _ = fused
    for w, h in SIZES:
        run_garbage(PROGRAM, path, entry, w, h)


def test_interior_stores_before_the_guard(fused) -> None:
    """The intermediate of p_interior is stored under gray's bounds before laplace's guard
    returns for the border threads."""
    path, _ = fused
    text = path.read_text()
    kernel = text[text.index("void cf_p_interior_fused"):]
    store = kernel.index("if ((x) < (w) && (y) < (h))")
    assert store < kernel.index("if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;")


def test_staged_tile_loads_the_producer(fused) -> None:
    """The staged kernel keeps its tile, its barrier and its guard; its tile loads compute
    the producer through the view (no load of 't' from memory is left)."""
    path, _ = fused
    text = path.read_text()
    kernel = text[text.index("void cf_p_staged_fused"):]
    kernel = kernel[:kernel.index("\n}\n")]
    assert "__syncthreads();" in kernel
    assert "tile[dy][dx] = t.at2(" in kernel
