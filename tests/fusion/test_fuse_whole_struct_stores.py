"""A struct element whose every member one thread stores is a whole-element store (issue 25,
kinap's canny pixel_t; issue 31, a one-member struct): respell/member_stores.py reads the
members from the record (Param.pointee_members) and the stores from the IR, and respells them
as one store of a local copy, which the view reads as the element's value. Programs in
programs/whole_struct_stores.cu: an RGB struct of floats stored out of declaration order with
locals between the stores, a one-member luma (in an if/else of one-statement branches), RGBA
bytes as a struct; refused: a member left to memory, a read of a stored member through a
pointer of the element type between the stores, a struct with padding. The fused files are
run against the original under the emulator on garbage (every byte of every buffer)."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

from cudafuse.frontend.parse import parse_file

PROGRAM = Path(__file__).parent / "programs" / "whole_struct_stores.cu"
SCRATCH = frozenset({"img", "l", "mask", "tmp", "p", "rgba", "q", "z"})
FUSED = {"rgb_pipeline": ("tone", "box_luma", "threshold", "apply"),
         "rgba_pipeline": ("invert", "gray8"), "planes_pipeline": ("recombine", "shade"),
         "tagged_pipeline": ("tag_all", "weigh"), "cplx_pipeline": ("to_cplx", "norm2")}
REFUSED = {"partial_pipeline": "no_alpha", "swizzle_pipeline": "swizzle",
           "padded_pipeline": "tag", "planes_any_pipeline": "recombine_any"}


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("whole_struct") / "fused.cu"
    return path, fuse_file(PROGRAM, path, scratch=SCRATCH, fuse_all=True)


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Fused with every buffer still stored (no scratch): the differential compares them all,
    the struct intermediates the fused kernels store included."""
    path = tmp_path_factory.mktemp("whole_struct_stored") / "fused.cu"
    result = fuse_file(PROGRAM, path, fuse_all=True)
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == sorted(FUSED.items())
    return path


def test_members_from_the_record() -> None:
    params = {(f.name, p.name): p.pointee_members
              for f in parse_file(PROGRAM).unit.kernels for p in f.params}
    assert params[("tone", "img")] == ("red", "green", "blue")
    assert params[("threshold", "mask")] == ("y",)
    assert params[("invert", "dst")] == ("r", "g", "b", "a")
    assert params[("tag", "p")] is None  # (padding: a copy writes bytes no member store did)
    assert params[("tone", "raw")] is None


def test_what_fuses(fused) -> None:
    path, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == sorted(FUSED.items())
    why = {(e.host, e.src): e.why for e in result.edges}
    for host, src in REFUSED.items():
        assert "is written through a member of its element" in why[(host, src)], why
    text = path.read_text()
    # tone's value function builds the element in a local, and returns it rounded as the
    # original's store to memory did, member by member.
    fused_tone = text[text.index("cf1_rgb_pipeline"):]
    assert "rgb cf_img; cf_img.blue = (v * 0.25f);" in fused_tone
    assert "cf_img.green = (v - u * 0.5f); return [&]() { rgb cf1_v = (cf_img); " \
        "cf1_v.red = cf1_round(cf1_v.red);" in fused_tone
    # The one-member struct in an unbraced branch gets a block of its own, one per branch.
    assert "if (in[i].y > t) { luma cf_mask; cf_mask.y = (1.0f); return" in fused_tone
    assert "else { luma cf_mask_; cf_mask_.y = (0.0f); return" in fused_tone
    # The refused kernels keep their member stores as written.
    assert "dst[i].r = src[i].g;" in text and "p[i].tag = 1;" in text


@pytest.mark.slow
@pytest.mark.parametrize("entry,sizes", [
    ("rgb_pipeline", {"w": 37, "h": 19}),
    ("rgba_pipeline", {"n": 301}),
    ("planes_pipeline", {"numCols": 29, "numRows": 11}),
    ("tagged_pipeline", {"n": 517}), ("cplx_pipeline", {"n": 99}),
])
def test_fused_equals_original(stored: Path, entry: str, sizes: dict[str, int]) -> None:
    path = stored
    n = sizes.get("w", sizes.get("n", sizes.get("numCols", 1))) * \
        sizes.get("h", sizes.get("numRows", 1))
    compare_entry(PROGRAM, path, entry, sizes, extra=_extra(n))


def _extra(n: int) -> dict[str, int]:
    """Element counts for the struct buffers: compare_entry gives a struct 8 bytes per count
    plus 64, which must be whole 12-byte rgb elements (3n + 1 counts: 24n + 72 bytes, 2n + 6
    elements, room for the image's n; a 16-byte cplx, 2n counts)."""
    return {"img": 3 * n + 1, "p": 2 * n, "z": 2 * n}


@pytest.mark.slow
@pytest.mark.parametrize("entry,sizes", [
    ("rgb_pipeline", {"w": 5, "h": 41}), ("rgb_pipeline", {"w": 1, "h": 1}),
    ("rgba_pipeline", {"n": 1}), ("partial_pipeline", {"n": 77}),
    ("swizzle_pipeline", {"n": 77}), ("padded_pipeline", {"n": 77}),
    ("planes_pipeline", {"numCols": 1, "numRows": 17}),
    ("planes_any_pipeline", {"numCols": 17, "numRows": 3}),
])
def test_fused_equals_original_more(stored: Path, entry: str, sizes: dict[str, int]
                                    ) -> None:
    path = stored
    n = sizes.get("w", sizes.get("n", sizes.get("numCols", 1))) * \
        sizes.get("h", sizes.get("numRows", 1))
    compare_entry(PROGRAM, path, entry, sizes, extra=_extra(n))
