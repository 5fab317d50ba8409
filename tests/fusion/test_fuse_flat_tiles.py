"""Tiles laid out in rows of a 1-D array (`extern __shared__ float s[]`, sized at launch,
read `s[ty * W + tx + c]`): kernel/tile_writers.py reads them as the [.][W] arrays they are,
so a separable blur's row pass (a row tile) is recomputed in the column pass's tile loads
(the producer computed into the consumer's tile, halo included). Compared with the original
under the emulator, every element, garbage in every buffer, at sizes that are not multiples
of the tile (slow); the column pass's guard as an early return after the barrier is the
same last kernel (kernel/view.py); a read past its row is refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

from cudafuse.passes.vertical.driver import report_dict

PROGRAM = Path(__file__).parent / "programs" / "flat_tiles.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("flat_tiles") / "fused.cu"
    return out, fuse_file(PROGRAM, out, fuse_all=True)


def test_the_row_pass_is_read_through_its_input(fused) -> None:
    out, result = fused
    edges = {e["host"]: "fused" if e["fused"] else e["why"]
             for e in report_dict(result)["edges"]}
    assert edges["sep_pipe"] == edges["ret_pipe"] == "fused"
    assert "'rowpast' cannot be recomputed: its tile in shared 's' (line 61)" in \
        edges["past_pipe"]  # (staged_tile's words; tile_writers' are the next test's)
    xys = re.findall(r"float \w+_rowpass_dst_xy\(.*?\n}\n", out.read_text(), re.S)
    assert len(xys) == 2  # (one per fused group)
    for xy in xys:
        assert "extern __shared__" not in xy and "__syncthreads" not in xy
        assert "src[((min(y, (h - 1)) * w) + min(max((k + x), 0), (w - 1)))]" in xy


@pytest.mark.slow
@pytest.mark.parametrize("entry", ["sep_pipe", "ret_pipe"])
@pytest.mark.parametrize(("w", "h"), [(37, 19), (5, 3), (16, 33), (1, 1)])
def test_fused_equals_original(fused, entry: str, w: int, h: int) -> None:
    out, _ = fused
    compare_entry(PROGRAM, out, entry, {"w": w, "h": h})


def test_a_read_past_its_row_says_so() -> None:
    from cudafuse.frontend.parse import ParseOptions
    from cudafuse.passes.vertical.kernel.respell import parse_for_fusion
    from cudafuse.passes.vertical.kernel.tile_writers import staged_writers

    fn = parse_for_fusion(str(PROGRAM), ParseOptions())[0].unit.function("rowpast")
    assert staged_writers(fn) == (
        "its read of shared 's' (line 64) may be outside its array (element [0, 20] by thread "
        "(15, 0)): the original reads past it")
