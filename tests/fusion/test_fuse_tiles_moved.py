"""Tiles loaded through a pointer parameter the kernel moves first (`src += y * w + x;`, then
`src[i - R - tx]`, ferraiuolo's style): kernel/tile_writers.py follows the pointer's offset in
each thread's run of the staging, so the row pass is recomputed where it is read, by a point
consumer (loop_pipe) and in a column pass's tile loads, halo included (halo_pipe: a centre
load and halo threads, the pointer moved in two steps, the guard an early return after the
barrier, which the reads' bounds now include). Compared with the original under the
emulator, every element, garbage in every buffer, at sizes that are not multiples of the
tile (slow). Refused: the moved pointer also read after the barrier; an update in place
through it. Program: tests/fusion/programs/tiles_moved.cu (ours)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

from cudafuse.frontend.parse import ParseOptions
from cudafuse.passes.vertical.driver import report_dict
from cudafuse.passes.vertical.kernel.respell import parse_for_fusion
from cudafuse.passes.vertical.kernel.staged_copy import StagedCopy
from cudafuse.passes.vertical.kernel.tile_writers import staged_writers

PROGRAM = Path(__file__).parent / "programs" / "tiles_moved.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("tiles_moved") / "fused.cu"
    return out, fuse_file(PROGRAM, out, fuse_all=True)


def _edges(result) -> dict[str, str]:
    return {f"{e['from']}->{e['to']}": "fused" if e["fused"] else e["why"]
            for e in report_dict(result)["edges"]}


def test_moved_pointers_are_followed(fused) -> None:
    out, result = fused
    edges = _edges(result)
    assert edges["rowloop->twice"] == edges["rowhalo->colclamp"] == "fused"
    xys = re.findall(r"float \w+_row(?:loop|halo)_dst_xy\(.*?\n}\n", out.read_text(), re.S)
    assert len(xys) == 2
    for xy in xys:
        assert "__shared__" not in xy and "__syncthreads" not in xy and "src +=" not in xy
        assert "src[((k + x) + (w * y))]" in xy


def test_what_stays_refused_says_why(fused) -> None:
    edges = _edges(fused[1])
    assert "'rowafter' cannot be recomputed: its tile in shared 't' (line 101) stores a " \
        "value that loads through 'src', which the kernel moves (line 98)" in \
        edges["rowafter->twice"]
    assert "'rowinplace' cannot be recomputed: its tile in shared 't' (line 116) stores a " \
        "value that loads 'img', which the kernel writes" in edges["rowinplace->twice"]


def test_an_assigned_sum_moves_the_pointer_too() -> None:
    fn = parse_for_fusion(str(PROGRAM), ParseOptions())[0].unit.function("rowassign")
    got = staged_writers(fn)
    assert isinstance(got, StagedCopy)
    # (each read is the writers' load moved to the reader, under the tests the reader's
    # guard x < w, y < h leaves open)
    assert [t for _, t in got.renamed] == [
        "((((((-2) + x) >= 0) && (y < h)) ? src[(((-2) + x) + (w * y))] : 0.0f))",
        "(((((2 + x) < w) && (y < h)) ? src[((2 + x) + (w * y))] : 0.0f))"]


@pytest.mark.slow
@pytest.mark.parametrize("entry", ["loop_pipe", "halo_pipe"])
@pytest.mark.parametrize(("w", "h"), [(37, 19), (5, 3), (16, 33), (1, 1)])
def test_fused_equals_original(fused, entry: str, w: int, h: int) -> None:
    compare_entry(PROGRAM, fused[0], entry, {"w": w, "h": h})
