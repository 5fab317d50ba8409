"""Tiles staged by several stores (kernel/tile_writers.py): four corner loads per thread
(ferraiuolo's canny style, blockDim coordinates read with the launches' 16 x 16 block,
kernel/tileblock.py), a 1-D tile with halo threads padded with zeros, a tile loaded in rounds
by the block's linear index with __restrict__ and #pragma unroll, a tile and halo loaded
with if/else by the block's edge threads, halo threads whose loads are clamped on their own
side only. Each producer is recomputed
in its consumer and compared with the original under the emulator at sizes that are not
multiples of the block (every element of every buffer); a tile whose writers disagree at the
image's edge is refused as the race it is."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

from cudafuse.passes.vertical.driver import report_dict

PROGRAM = Path(__file__).parent / "programs" / "staged_writers.cu"


def test_a_halo_tile_is_read_by_its_writers(tmp_path: Path) -> None:
    """The 1-D tile alone (the default suite's cheap check; the rest is slow): its three
    zero-padded loads are one value under both tests, read in the consumer."""
    text = PROGRAM.read_text()
    keep = text[:text.index("// Four corner loads")] + \
        text[text.index("// A 1-D tile with halo"):text.index("// The tile loaded in rounds")] + \
        text[text.index("__global__ void scale1d"):text.index('extern "C" void corner_pipe')] + \
        text[text.index('extern "C" void halo_pipe'):text.index('extern "C" void rounds_pipe')]
    src, out = tmp_path / "pipe.cu", tmp_path / "pipe.fused.cu"
    src.write_text(keep)
    result = fuse_file(src, out, fuse_all=True)
    assert _edges(result) == {"halo_pipe": "fused"}
    (xy,) = re.findall(r"float \w+_smooth1d_out_xy?\(.*?\n}\n", out.read_text(), re.S)
    assert "__shared__" not in xy and "threadIdx" not in xy and "blockIdx" not in xy
    assert "((((i + k) < n) && ((i + k) >= 0)) ? in[(i + k)] : 0.0f)" in xy


@pytest.fixture(scope="module")
def fused(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("staged_writers")
    src, out = tmp / "pipe.cu", tmp / "pipe.fused.cu"
    src.write_text(PROGRAM.read_text())
    return src, out, fuse_file(src, out, fuse_all=True)


def _edges(result) -> dict[str, str]:
    return {e["host"]: "fused" if e["fused"] else e["why"]
            for e in report_dict(result)["edges"]}


@pytest.mark.slow
def test_tiles_read_by_their_writers(fused) -> None:
    _, out, result = fused
    edges = _edges(result)
    assert edges["corner_pipe"] == edges["halo_pipe"] == edges["rounds_pipe"] == \
        edges["ifelse_pipe"] == edges["cross_pipe"] == "fused"
    code = out.read_text()
    for name in ("corners_out", "smooth1d_out", "box2d_out", "edges2d_out", "cross2d_out"):
        (xy,) = re.findall(rf"float \w+_{name}_xy?\(.*?\n}}\n", code, re.S)
        assert "__shared__" not in xy and "__syncthreads" not in xy
        assert "threadIdx" not in xy and "blockIdx" not in xy
    # The halo's three zero-padded loads are one value under both tests.
    assert "((((i + k) < n) && ((i + k) >= 0)) ? in[(i + k)] : 0.0f)" in code
    # The centre's and the halos' one-sided clamps are one value under both.
    assert "in[((min(max(gy, 0), (h - 1)) * w) + min(max((gx + k), 0), (w - 1)))]" in code


@pytest.mark.slow
def test_writers_that_disagree_are_a_race(fused) -> None:
    _, _, result = fused
    why = _edges(result)["race_pipe"]
    assert "'corners_race' cannot be recomputed: its read of shared 's' (line 67): the " \
        "threads that store element" in why and "(a race in the original)" in why


@pytest.mark.slow
@pytest.mark.parametrize(("entry", "sizes"), [
    ("halo_pipe", {"n": 203}), ("rounds_pipe", {"w": 37, "h": 19}),
    ("corner_pipe", {"w": 37, "h": 19}), ("ifelse_pipe", {"w": 37, "h": 19}),
    ("cross_pipe", {"w": 37, "h": 19}),
])
def test_fused_tiles_match_the_original(fused, entry: str, sizes: dict[str, int]) -> None:
    src, out, _ = fused
    compare_entry(src, out, entry, sizes, extra=_padded(entry, sizes))


def _padded(entry: str, sizes: dict[str, int]) -> dict[str, int] | None:
    """The corner loads test only their own side (as canny's do): threads past the image
    read past it, in the original, elements no reader in the image uses; room for them."""
    if entry != "corner_pipe":
        return None
    return {"img": (sizes["h"] + 18) * sizes["w"] + 18}


@pytest.mark.slow
@pytest.mark.parametrize(("entry", "sizes"), [
    ("corner_pipe", {"w": 5, "h": 3}), ("corner_pipe", {"w": 16, "h": 33}),
    ("halo_pipe", {"n": 2}), ("halo_pipe", {"n": 128}),
    ("rounds_pipe", {"w": 5, "h": 3}), ("rounds_pipe", {"w": 61, "h": 2}),
    ("ifelse_pipe", {"w": 5, "h": 3}), ("ifelse_pipe", {"w": 61, "h": 2}),
    ("cross_pipe", {"w": 5, "h": 3}), ("cross_pipe", {"w": 1, "h": 29}),
])
def test_fused_tiles_match_the_original_at_more_sizes(fused, entry: str,
                                                      sizes: dict[str, int]) -> None:
    src, out, _ = fused
    compare_entry(src, out, entry, sizes, extra=_padded(entry, sizes))


@pytest.mark.slow
def test_an_in_place_tile_is_a_race(tmp_path: Path) -> None:
    """A tile of the buffer the kernel writes (canny's hysteresis): other blocks may already
    have stored their new values where this one stages its halo."""
    src, out = tmp_path / "pipe.cu", tmp_path / "pipe.fused.cu"
    text = PROGRAM.read_text()
    for a, b in (("out[y0 * width + x0] = c > 0.1f", "img[y0 * width + x0] = c > 0.1f"),
                 ("scale2d<<<grid, block>>>(t, out, w, h);\n}\n\nextern \"C\" void race",
                  "scale2d<<<grid, block>>>(img, out, w, h);\n}\n\nextern \"C\" void race")):
        assert a in text
        text = text.replace(a, b)
    src.write_text(text)
    why = _edges(fuse_file(src, out, fuse_all=True))["corner_pipe"]
    assert "stores a value that loads 'img', which the kernel writes: other blocks may " \
        "already have stored their new values" in why
