"""A consumer whose threads are not one per element (overlapping tiles: each thread loads
the element at its clamped position into shared memory, as cs344 blurs write it) reads a
dead intermediate at run-time positions in no coordinate of its own. A producer that keeps
its guard is exact at any element (memory where its guard does not hold), so legality takes
such a read (legality._any_index_exact) instead of refusing "offsets in dimensions other
than its own coordinates"; an intermediate read after the group is stored where the tiles
load it (kernel/tile_stores.py, tests/fusion/test_fuse_tile_stores.py). The fused program is
compared with the original under emulation, every element of every buffer, at odd sizes with
garbage in every buffer."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import fuse_file
from test_fuse_partial_domains import run_garbage

PROGRAM = Path(__file__).parent / "programs" / "overlapping_tiles.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("anyindex") / "fused.cu"
    return path, fuse_file(PROGRAM, path)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert [(g.host, tuple(g.kernels)) for g in result.groups] == [
        ("p_tiles", ("mix", "box3")), ("p_tiles_live", ("mix", "box3"))]


def test_the_tile_loads_through_the_view(fused) -> None:
    path, _ = fused
    text = path.read_text()
    kernel = text[text.index("__global__ void cf_p_tiles_fused0"):]
    kernel = kernel[:kernel.index("\n}\n")]
    assert "mix_m_view in{" in kernel  # the tile's load of `in[cy * w + cx]` recomputes mix
    assert "__syncthreads();" in kernel


@pytest.mark.slow  # (building the two emulated programs takes ~45 s on a loaded CI core)
@pytest.mark.parametrize("w,h", [(37, 19), (14, 6), (1, 9), (13, 1)])
def test_fused_equals_original(fused, w: int, h: int) -> None:
    path, _ = fused
    run_garbage(PROGRAM, path, "p_tiles", w, h)
    run_garbage(PROGRAM, path, "p_tiles_live", w, h)
