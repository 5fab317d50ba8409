"""A producer that stages its input's tile and halo in shared memory before a barrier
(Hipacc's local operators; kernel/staged_tile.py) is recomputed reading the input itself:
each read of the tile becomes the load that filled that element, written over the
coordinates. tests/fusion/programs/staged_tile.cu: a tiled 5x3 stencil read by a point
kernel, by itself (twice), and by a stencil across rows; each entry compared with the
original under the emulator, every element of every buffer, at sizes that are not multiples
of the 8x4 tile (partial blocks at the right and bottom edges, clamped halos). Tiles that
cannot be shown read through their buffer are refused with their reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

from cudafuse.passes.vertical.driver import report_dict

PROGRAM = Path(__file__).parent / "programs" / "staged_tile.cu"


def _edges(result) -> dict[tuple[str, int, int], str]:
    return {(e["host"], e["from_launch"], e["to_launch"]): "fused" if e["fused"] else e["why"]
            for e in report_dict(result)["edges"]}


@pytest.fixture(scope="module")
def fused(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("staged_tile")
    src, out = tmp / "pipe.cu", tmp / "pipe.fused.cu"
    src.write_text(PROGRAM.read_text())
    return src, out, fuse_file(src, out, fuse_all=True)  # (correctness, not the model)


def test_tiled_producers_read_their_input(fused) -> None:
    _, out, result = fused
    assert set(_edges(result).values()) == {"fused"}
    code = out.read_text()
    xys = re.findall(r"float \w+_blur_out_xy\(.*?\n}\n", code, re.S)
    assert len(xys) == 4  # (point: 1, stencil: 2, twice: 1)
    for xy in xys:
        # No tile, barrier or load loop is left in a value function (it runs in one
        # thread); the read is the load that filled the element, over the coordinates.
        assert "__shared__" not in xy and "__syncthreads" not in xy and "tile[" not in xy
        assert "threadIdx" not in xy and "blockIdx" not in xy
        assert "in[((min(max((y + j), 0), (h - 1)) * w) + min(max((x + i), 0), (w - 1)))]" \
            in xy


def test_fused_stages_match_the_original(fused) -> None:
    src, out, _ = fused
    compare_entry(src, out, "stencil", {"w": 37, "h": 19})


@pytest.mark.slow
@pytest.mark.parametrize("entry", ["point", "stencil", "twice"])
@pytest.mark.parametrize(("w", "h"), [(37, 19), (5, 3), (8, 4), (61, 2)])
def test_fused_stages_match_the_original_at_more_sizes(fused, entry: str, w: int,
                                                       h: int) -> None:
    src, out, _ = fused
    compare_entry(src, out, entry, {"w": w, "h": h})


# A halo padded with zeros (Hipacc's CONSTANT border): each element holds `c ? in[..] : 0`,
# read through as that expression over the coordinates.
ZERO = (("      const int gx = min(max((int)(blockIdx.x * TW) + tx - RX, 0), w - 1);\n"
         "      const int gy = min(max((int)(blockIdx.y * TH) + ty - RY, 0), h - 1);\n"
         "      tile[ty][tx] = in[gy * w + gx];"),
        ("      const int gx = (int)(blockIdx.x * TW) + tx - RX;\n"
         "      const int gy = (int)(blockIdx.y * TH) + ty - RY;\n"
         "      tile[ty][tx] = gx >= 0 && gx < w && gy >= 0 && gy < h ? in[gy * w + gx] : 0.0f;"))


@pytest.fixture(scope="module")
def zero_padded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("staged_tile_zero")
    src, out = tmp / "pipe.cu", tmp / "pipe.fused.cu"
    text = PROGRAM.read_text()
    assert ZERO[0] in text
    src.write_text(text.replace(*ZERO))
    return src, out, fuse_file(src, out, fuse_all=True)


def test_zero_padded_tiles_read_their_input(zero_padded) -> None:
    _, out, result = zero_padded
    edges = _edges(result)
    assert edges[("point", 0, 1)] == "fused" and edges[("stencil", 1, 2)] == "fused"
    # (as the last kernel its unclamped loads of an intermediate are not read: docs; its
    # staging loop reads the intermediate at a loop variable, which is said first since
    # kernel/pointwise.py reads such loops)
    assert edges[("twice", 0, 1)] == (
        "not fused: 'blur' reads 'in' at run-time indices (loop variable 'tx'), where 'blur' "
        "shares values between its threads (shared memory)")
    (xy, *_) = re.findall(r"float \w+_blur_out_xy\(.*?\n}\n", out.read_text(), re.S)
    assert "tile[" not in xy and "threadIdx" not in xy
    assert "((((((x + i) >= 0) && ((x + i) < w)) && ((y + j) >= 0)) && ((y + j) < h)) ? " \
        "in[((x + (y * w)) + (i + (j * w)))] : 0.0f)" in xy


@pytest.mark.slow
@pytest.mark.parametrize("entry", ["point", "stencil"])
def test_zero_padded_tiles_match_the_original(zero_padded, entry: str) -> None:
    src, out, _ = zero_padded
    for w, h in ((37, 19), (5, 3)):
        compare_entry(src, out, entry, {"w": w, "h": h})


@pytest.mark.parametrize(("edit", "why"), [
    # The launch's block is not the tile's: x = blockIdx.x * 8 + threadIdx.x is not the
    # thread's element, and the tile would not be the block's.
    (("dim3 block(TW, TH);", "dim3 block(2 * TW, TH);"),
     "'blur' assumes x blocks of 8 threads, which its launch does not provably use"),
    # Rows 4..7 of each 8 are stored by no thread of a 4-row block.
    (("ty += TH)", "ty += 2 * TH)"),
     "'blur' cannot be recomputed: its tile in shared 'tile' (line 19) is stored in a loop "
     "whose step is not a constant of at most the block's 4 threads in y"),
    # A tile one column short: the last thread's right neighbour was never stored.
    (("tx < TW + 2 * RX;", "tx < TW + 2 * RX - 1;"),
     "'blur' cannot be recomputed: its read of shared 'tile' (line 26) may be outside the "
     "elements its block stores (0 to 10): the original reads what no thread stored"),
])
def test_tiles_not_shown_complete_are_refused(tmp_path: Path, edit, why) -> None:
    src, out = tmp_path / "pipe.cu", tmp_path / "pipe.fused.cu"
    text = PROGRAM.read_text()
    assert edit[0] in text
    src.write_text(text.replace(edit[0], edit[1]))
    edges = _edges(fuse_file(src, out, fuse_all=True))
    assert edges[("point", 0, 1)] == f"not fused: {why}"


OVERLAPPING = """
#include <cuda_runtime.h>
#define B 16
__global__ void blur(const float *in, float *out, int w, int h, int r) {
  const int inner = B - 2 * r;
  __shared__ float smem[B * B];
  int px = blockIdx.x * inner + threadIdx.x - r;
  int py = blockIdx.y * inner + threadIdx.y - r;
  int cx = min(max(px, 0), w - 1);
  int cy = min(max(py, 0), h - 1);
  int at = cy * w + cx;
  smem[threadIdx.y * B + threadIdx.x] = in[at];
  __syncthreads();
  if (threadIdx.x < r || threadIdx.y < r || threadIdx.x >= B - r || threadIdx.y >= B - r)
    return;
  float s = 0.f;
  for (int i = -r; i <= r; i++)
    for (int j = -r; j <= r; j++)
      s += smem[(threadIdx.y + j) * B + threadIdx.x + i];
  out[at] = s;
}
__global__ void scale(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = 2.0f * t[y * w + x];
}
extern "C" void pipe(const float *img, float *t, float *out, int w, int h, int r) {
  int inner = B - 2 * r;
  blur<<<dim3(w / inner + 1, h / inner + 1), dim3(B, B)>>>(img, t, w, h, r);
  scale<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(t, out, w, h);
}
"""


def test_overlapping_tiles_storing_at_clamped_positions_are_refused(tmp_path: Path) -> None:
    # The cs344 style of overlapping tiles (each block loads B x B, computes the inner part,
    # stores at the clamped position): threads past the image's edge store its last column
    # and row too, each a blur of a shifted window, so the element's value is a race in the
    # original and no recomputation of one thread's value could match it.
    src, out = tmp_path / "pipe.cu", tmp_path / "pipe.fused.cu"
    src.write_text(OVERLAPPING)
    edges = _edges(fuse_file(src, out, fuse_all=True))
    assert edges[("pipe", 0, 1)] == (
        "not fused: 'blur' cannot be recomputed: its store to 'out' (line 20) is at a clamped "
        "position ('min' of the thread's position): threads past the image's edge store its "
        "edge's elements too, each its own value, so no one thread's value is the element's "
        "(which one lands is a race in the original)")
