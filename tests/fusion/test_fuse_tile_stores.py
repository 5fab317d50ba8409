"""Live intermediates stored by the tile loads of a last kernel with overlapping tiles
(kernel/tile_stores.py): cs344's two-plane blur (a filter width passed at run time, uchar
planes, a second plane the blur never reads stored at the same elements), a 1-D window in
dynamic shared memory sized at launch (`max(0, min(g, n - 1))`, patches blockDim.x - 2r
wide), a grid of tiles too short for the image (the run-time check fails, the original
launches run), and a tile loaded by half the block (refused, with the reason). The fused
file is compared with the original under the emulator, every element of every buffer, at
sizes that are not multiples of the patch, garbage in every buffer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

from cudafuse.passes.vertical.driver import report_dict

PROGRAM = Path(__file__).parent / "programs" / "tile_stores.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("tile_stores") / "fused.cu"
    return out, fuse_file(PROGRAM, out, fuse_all=True)


def _edges(result) -> dict[tuple[str, str], str]:
    return {(e["host"], e["to"]): "fused" if e["fused"] else e["why"]
            for e in report_dict(result)["edges"]}


def test_what_fuses_and_where_it_stores(fused) -> None:
    out, result = fused
    edges = _edges(result)
    assert edges[("planes_pipe", "blur")] == edges[("window_pipe", "smooth")] == \
        edges[("short_pipe", "smooth")] == "fused"
    why = edges[("half_pipe", "half_tile")]
    assert "which no thread of 'half_tile' owns, and its loads of 'in' are not made by " \
        "every thread, once, before its first barrier or return" in why
    code = out.read_text()
    # Both planes stored where the tile loads r, before the load (the view computes split),
    # by the threads below the patch's width in x and y (one per element).
    (planes,) = re.findall(r"\{ const long long cf_ti = idx; if \(\(int\)threadIdx.x < "
                           r"(.*) && \(int\)threadIdx.y < (.*)\) \{ cf_p7\[cf_ti\] = "
                           r"cf_v1\[cf_ti\]; cf_p6\[cf_ti\] = in\[cf_ti\]; \} \} "
                           r"smem\[threadIdx.y \* BW \+ threadIdx.x\] = in\[idx\];", code)
    assert all("16 - (2 * ((int)((fw / 2))))" in k for k in planes)
    assert "{ const long long cf_ti = max(0, min(g, n - 1)); " in code
    # The check: the storing threads reach [0, numCols) (E(grid - 1, 0) + K - 1 >= numCols
    # - 1), and the patch's width K is at least 1 and at most blockDim.x.
    assert ">= (long long)((((int)(numCols)) - 1))" in code
    assert ">= 1LL &&" in code and "<= (long long)(block).x) &&" in code


@pytest.mark.slow  # (the two emulated builds: 9 CPU-s, the default suite's whole allowance)
@pytest.mark.parametrize(("entry", "sizes"), [
    ("planes_pipe", {"numCols": 37, "numRows": 19, "fw": 5}),
    ("window_pipe", {"n": 203, "r": 2}),
])
def test_fused_equals_original(fused, entry: str, sizes: dict[str, int]) -> None:
    out, _ = fused
    compare_entry(PROGRAM, out, entry, sizes, extra={"filter": 81})


@pytest.mark.slow
@pytest.mark.parametrize(("entry", "sizes"), [
    ("planes_pipe", {"numCols": 5, "numRows": 3, "fw": 9}),
    ("planes_pipe", {"numCols": 1, "numRows": 29, "fw": 1}),
    ("planes_pipe", {"numCols": 33, "numRows": 2, "fw": 3}),
    ("window_pipe", {"n": 5, "r": 3}), ("window_pipe", {"n": 1, "r": 0}),
    ("short_pipe", {"n": 203, "r": 2}),  # 203 / 60 tiles miss y's tail: the original runs
    ("short_pipe", {"n": 120, "r": 2}),  # 120 / 60 tiles reach every element: fused
    ("half_pipe", {"w": 37, "h": 19}),
])
def test_fused_equals_original_at_more_sizes(fused, entry: str, sizes: dict[str, int]
                                             ) -> None:
    out, _ = fused
    compare_entry(PROGRAM, out, entry, sizes, extra={"filter": 81})


@pytest.mark.slow
def test_the_check_is_needed(fused, tmp_path: Path) -> None:
    """short_pipe's fused launch run unconditionally misses y's last elements: the check
    is what keeps the fused program equal."""
    out, _ = fused
    code = out.read_text()
    at = code.index('extern "C" void short_pipe')
    at = code.index("if ((", at)
    forced = tmp_path / "forced.cu"
    forced.write_text(code[:at] + "if (1 || (" + code[at + 5:])
    with pytest.raises(AssertionError, match="y\\["):
        compare_entry(PROGRAM, forced, "short_pipe", {"n": 203, "r": 2})


_SPELLINGS = r"""
#define B 16
__global__ void decl(const float *in, float *out, int w, int h) {
  __shared__ float t[B * B];
  const float v = in[w * min(max((int)(blockIdx.y * (B - 2) + threadIdx.y) - 1, 0), h - 1)
                     + max(0, min(w - 1, (int)(blockIdx.x * (B - 2) + threadIdx.x) - 1))];
  t[threadIdx.y * B + threadIdx.x] = v;
  __syncthreads();
  out[0] = t[0];
}
__global__ void wraps(const float *in, float *out, int n) {
  __shared__ float t[B];
  unsigned g = blockIdx.x * (B - 2) + threadIdx.x - 1;
  t[threadIdx.x] = in[min(max(g, 0u), n - 1u)];
  __syncthreads();
  out[0] = t[0];
}
__global__ void bumps(const float *in, float *out, int n) {
  __shared__ float t[B];
  int g = blockIdx.x * (B - 2) + threadIdx.x - 1;
  t[threadIdx.x] = in[min(max(g++, 0), n - 1)];
  __syncthreads();
  out[0] = t[0] + g;
}
__global__ void late(const float *in, float *out, int n) {
  __shared__ float t[B];
  int g = blockIdx.x * (B - 2) + threadIdx.x - 1;
  if (g >= n) return;
  t[threadIdx.x] = in[min(max(g, 0), n - 1)];
  __syncthreads();
  out[0] = t[0];
}
__global__ void scaled(const float *in, float *out, int n) {
  __shared__ float t[B];
  int g = blockIdx.x * (B - 2) + threadIdx.x - 1;
  t[threadIdx.x] = __expf(in[min(max(g, 0), n - 1)] / 255.0f);
  __syncthreads();
  out[0] = t[0];
}
__global__ void guarded(const float *in, float *out, int n) {
  __shared__ float t[B];
  int g = blockIdx.x * (B - 2) + threadIdx.x - 1;
  t[threadIdx.x] = g >= 0 ? in[min(max(g, 0), n - 1)] : 0.0f;
  __syncthreads();
  out[0] = t[0];
}
__global__ void strided(const float *in, float *out, int n) {
  __shared__ float t[B];
  int g = 2 * threadIdx.x + blockIdx.x * (B - 2);
  t[threadIdx.x] = in[min(max(g, 0), n - 1)];
  __syncthreads();
  out[0] = t[0];
}
"""


@pytest.mark.parametrize(("kernel", "expect"), [
    ("decl", None),  # a declaration's initialiser, y first, min/max in the other order
    ("wraps", "is not a sum of positions clamped into [0, B)"),  # unsigned: wraps at -1
    ("bumps", "its subscript assigns a variable"),
    ("late", "are not made by every thread, once, before its first barrier or return"),
    ("strided", "its position is not threadIdx plus a block offset"),
    ("scaled", None),  # the load inside the value every thread computes
    ("guarded", "are not made by every thread"),  # under ?: (zero padding)
])
def test_which_loads_store(tmp_path: Path, kernel: str, expect: str | None) -> None:
    from cudafuse.frontend.parse import ParseOptions
    from cudafuse.passes.vertical.kernel.respell import parse_for_fusion
    from cudafuse.passes.vertical.kernel.tile_stores import TileStore, tile_store

    src = tmp_path / "k.cu"
    src.write_text(_SPELLINGS)
    fn = parse_for_fusion(str(src), ParseOptions())[0].unit.function(kernel)
    found = tile_store(fn, "in")
    if expect is None:
        assert isinstance(found, TileStore), found
        assert [d.dim for d in found.dims] == (["x", "y"] if kernel == "decl" else ["x"])
        assert (found.stride is not None) == (kernel == "decl")
    else:
        assert isinstance(found, str) and expect in found, found
