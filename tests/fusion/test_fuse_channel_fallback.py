"""Channels a producer does not store on every path fall back to memory (issue 25:
felixchu_poisson's masked channels, pb_adi's in-place channel): where no store runs (an if
without else, an early return), each channel's value function yields that channel of the
element from memory, as the original leaves it; a producer may read a channel of its own
element before storing it or in the value it stores there (an in-place update), never after.
Programs in programs/channel_fallback.cu: 2-D interleaved RGB with two channels stored under a
condition, 1-D interleaved pairs updated in place under a mask, planar planes behind an early
return on data, and a kernel reading a channel it already stored (not recomputed); and
interleaved channels read at other elements (a clamped 3x3 blur of one channel, felixchu's
neighbour index reassigned at the border), served by the channel functions with their guard
kept (exact at any element). Fused with
every buffer stored and with the intermediates scratch; the differential runs (slow) compare
every element of every buffer the caller keeps, on garbage at odd sizes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from equivalence import PAD, call_both, fuse_file

from cudafuse.frontend.parse import parse_file
from cudafuse.passes.vertical.kernel.recognise import build_view

PROGRAM = Path(__file__).parent / "programs" / "channel_fallback.cu"
SCRATCH = frozenset({"rgb", "uv", "planes", "d"})
VERTICAL = {"rgb_masked": ("boost_rgb", "luma_rgb"), "uv_masked": ("masked_gain", "uv_norm"),
            "planes_weighed": ("weigh_planes", "planes_sum"),
            "rgb_blurred": ("gain_rgb", "blur_green"), "uv_west": ("masked_gain", "west_diff")}


@pytest.fixture(scope="module", params=["stored", "scratch"])
def fused(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp(f"chan_fallback_{request.param}") / "fused.cu"
    scratch = SCRATCH if request.param == "scratch" else frozenset()
    return path, fuse_file(PROGRAM, path, scratch=scratch, fuse_all=True), scratch


def test_views() -> None:
    kernels = {f.name: f for f in parse_file(PROGRAM).unit.kernels}
    for name, out, partial in (("boost_rgb", "dst", True), ("masked_gain", "uv", True),
                               ("weigh_planes", "planes", False)):
        view = build_view(kernels[name])
        assert view.producer_reason is None, (name, view.producer_reason)
        assert view.channels[out].partial == partial, name
    assert build_view(kernels["reuse"]).producer_reason == (
        "it stores 'dst' as interleaved (i * 2 + c) channels, c = 0, 1 and reads channel 0 "
        "(line 112) after storing it")


def test_what_fuses(fused) -> None:
    path, result, scratch = fused
    groups = {g.host: tuple(g.kernels) for g in result.groups}
    if scratch:
        assert groups == VERTICAL
    else:
        # An in-place update whose buffer the caller keeps is not recomputed (a read after
        # the fused kernel's store would see the new value): those two run in one thread.
        assert groups == {k: VERTICAL[k] for k in ("rgb_masked", "rgb_blurred")}
    text = path.read_text()
    # boost_rgb's channel 0 yields channel 0 of the element from memory where it stores none.
    assert "if (x >= w || y >= h) return dst[(y * (w) + x) * 3 + 0];" in text
    assert "  return dst[(y * (w) + x) * 3 + 0];\n}" in text
    if scratch:  # (planar: the plane is the guard's bound)
        assert "return planes[1LL * (n) + (i)];" in text
    # A channel read at other pixels (a blur of green): gain_rgb keeps its guard, so that
    # each channel's function is exact at any pixel, and the read decodes the channel.
    assert "if (!(x < w && y < h)) return dst[(y * (w) + x) * 3 + 1]; " in text


def _args(entry: str, n: int, rng: np.random.Generator) -> list:
    fn = parse_file(PROGRAM).unit.function(entry)
    assert fn is not None
    out: list = []
    for p in fn.params:
        if p.is_pointer:
            out.append((rng.standard_normal(3 * n + PAD) * 0.6).astype(np.float32))
        else:
            out.append(n)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("entry,size", [(e, s) for e in (*VERTICAL, "reused")
                                        for s in ((37, 19), (5, 1))])
def test_fused_equals_original(fused, entry: str, size: tuple[int, int]) -> None:
    path, _, scratch = fused
    fn = parse_file(PROGRAM).unit.function(entry)
    assert fn is not None
    rng = np.random.default_rng(size[0])
    w, h = size
    args = _args(entry, w * h, rng)
    if entry in ("rgb_masked", "rgb_blurred"):  # (w, h instead of n)
        args[-2:] = [w, h]
    a, b = call_both(PROGRAM, path, entry, args)
    for p, x, y in zip(fn.params, a, b, strict=True):
        if isinstance(x, np.ndarray) and p.name not in scratch:
            bad = np.flatnonzero(x.view(np.uint32) != y.view(np.uint32))
            assert bad.size == 0, f"{entry} {size}: {p.name}[{bad[0]}] {x[bad[0]]} != {y[bad[0]]}"
