"""Several stores per thread (issue 15): kernels that store a buffer's channels, planar
(`c * plane + i`) or interleaved (`i * K + c`), fuse as producers, as consumers and as the
last kernel. Original and fused programs run under emulation on the same inputs, every
buffer filled with the same garbage first, and every element of every output and stored
intermediate is compared (odd sizes, blocks that do not divide them). Reads the tool cannot
map to a channel, and channels stored in a loop, are refused with the reason."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from equivalence import fuse_file, library

from cudafuse.frontend import parse_file
from cudafuse.passes.vertical.kernel.recognise import build_view

PROGRAM = Path(__file__).parent / "programs" / "channels.cu"
SIZES = ((37, 19), (16, 8), (1, 5), (65, 3))
PAD = 64


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    out = tmp_path_factory.mktemp("channels") / "fused.cu"
    return out, fuse_file(PROGRAM, out, fuse_all=True)


def _args(entry: str, w: int, h: int, seed: int) -> tuple[list, list[str]]:
    fn = parse_file(str(PROGRAM)).unit.function(entry)
    assert fn is not None
    rng = np.random.default_rng(seed)
    args, outputs = [], []
    ints = iter([w, h])
    for p in fn.params:
        size = 4 * w * h + PAD  # room for four channels, and past them
        if p.is_pointer and "unsigned char" in p.type:
            args.append(rng.integers(0, 256, size, dtype=np.uint8))
        elif p.is_pointer:
            args.append(rng.standard_normal(size).astype(np.float32))  # garbage, or input
            if not p.pointee_const:
                outputs.append(p.name)
        elif "int" in p.type:
            args.append(next(ints))
        else:
            args.append(0.5)
    return args, outputs


def _run_both(fused: Path, entry: str, w: int, h: int, seed: int = 1) -> None:
    fn = parse_file(str(PROGRAM)).unit.function(entry)
    assert fn is not None
    args, outputs = _args(entry, w, h, seed)
    results = []
    for path in (PROGRAM, fused):
        call = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        library(path).call(entry, *call)
        results.append({p.name: a for p, a in zip(fn.params, call, strict=True)})
    for name in outputs:
        a, b = results[0][name], results[1][name]
        bad = np.flatnonzero(a != b)
        assert bad.size == 0, f"{entry} {w}x{h}: {name}[{bad[0]}] {a[bad[0]]} != {b[bad[0]]}"


def test_channel_pipelines_fuse(fused) -> None:
    _, result = fused
    groups = sorted(tuple(g.kernels) for g in result.groups)
    assert ("split_planes", "to_gray") in groups
    assert ("split_planes", "gain_planes", "to_gray", "chroma") in groups
    assert ("brighten", "luma") in groups
    assert ("square", "to_rgba") in groups


@pytest.mark.parametrize("entry", ["planar_gray", "planar_chain", "interleaved", "rgba_sink",
                                   "refused"])
def test_channel_pipelines_match(fused, entry: str) -> None:
    path, _ = fused
    for w, h in SIZES:
        _run_both(path, entry, w, h)


def test_scratch_channels_are_not_stored(tmp_path: Path) -> None:
    out = tmp_path / "scratch.cu"
    fuse_file(PROGRAM, out, scratch=frozenset({"planes", "tmp"}), fuse_all=True)
    text = out.read_text()
    planar = text.split("void planar_gray(")[0].split("__global__ void cf_planar_gray_fused0")[1]
    assert "c1_xy(x, y)" in planar and "[(long long)1 *" not in planar
    # Each channel evaluated once per thread: stored and read through one local.
    chain = text.split("__global__ void cf_planar_chain_fused1")[1].split("void planar_chain(")[0]
    for c in range(3):
        assert chain.count(f"planes.c{c}_xy(x, y)") == 1, chain  # (chroma names it planes)


def test_refusals_name_the_reason(fused) -> None:
    _, result = fused
    text = " | ".join(str(e) for e in result.edges)
    assert "'blur_red' reads 'planes' (line 87) other than at a constant channel of its own " \
           "element (planar (c * plane + i) channels, c = 0, 1, 2)" in text
    # (split_loop's loop over c fuses, unrolled: kernel/respell/unroll.py)
    assert any(e.src == "split_loop" and e.dst == "to_gray" and e.fused
               for e in fused[1].edges)


def test_views_recognise_the_layouts() -> None:
    unit = parse_file(str(PROGRAM)).unit
    got = {}
    for name in ("split_planes", "gain_planes", "brighten", "to_rgba"):
        fn = unit.function(name)
        assert fn is not None
        view = build_view(fn)
        assert view.producer_reason is None, (name, view.producer_reason)
        got[name] = {k: v.describe() for k, v in view.channels.items()}
    assert got == {
        "split_planes": {"planes": "planar (c * plane + i) channels, c = 0, 1, 2"},
        "gain_planes": {"out": "planar (c * plane + i) channels, c = 0, 1, 2"},
        "brighten": {"out": "interleaved (i * 3 + c) channels, c = 0, 1, 2"},
        "to_rgba": {"rgba": "interleaved (i * 4 + c) channels, c = 0, 1, 2, 3"}}


REFUSED = r"""
__global__ void k(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  %s
}
"""


@pytest.mark.parametrize("body, why", [
    ("out[(y * w + x) * 3] = 1.0f; out[(y * w + x) * 3] = 2.0f;", "store one channel twice"),
    ("out[(y * w + x) * 3] = 1.0f; out[w * h + y * w + x] = 2.0f;", "not one layout"),
    ("out[(y * w + x) * 2] = 1.0f; out[(y * w + x) * 2 + 1] = out[(y * w + x) * 2];",
     "reads channel 0 (line 6) after storing it"),
])
def test_channel_producers_refused(tmp_path: Path, body: str, why: str) -> None:
    src = tmp_path / "k.cu"
    src.write_text(REFUSED % body)
    fn = parse_file(str(src)).unit.function("k")
    assert fn is not None
    reason = build_view(fn).producer_reason
    assert reason is not None and why in reason, reason


def test_channel_under_a_condition_falls_back_to_memory(tmp_path: Path) -> None:
    """A channel some paths do not store keeps what memory holds there: the view reads it,
    marked partial, and its function falls back to memory (test_fuse_channel_fallback.py)."""
    src = tmp_path / "k.cu"
    src.write_text(REFUSED % "out[y * w + x] = 1.0f; if (in[0] > 0) out[w * h + y * w + x] "
                   "= 2.0f;")
    fn = parse_file(str(src)).unit.function("k")
    assert fn is not None
    view = build_view(fn)
    assert view.producer_reason is None and view.channels["out"].partial


@pytest.mark.nvcc
def test_channels_fused_compiles(fused, tmp_path: Path) -> None:
    path, _ = fused
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(path), "-o", str(tmp_path / "o.o")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize(("name", "why"), [
    ("channels_interior_reader.cu", "row stride"),  # (not provably equal)
    # (its loop over c is unrolled into channel stores: kernel/respell/unroll.py)
    ("channels_loop_reader.cu", "do not map threads to elements alike")])
def test_partial_readers_without_a_row_stride_are_refused(tmp_path: Path, name: str,
                                                          why: str) -> None:
    """A reader with an interior guard whose stores are all channels (or in a loop) has no
    own-element store, so no row stride to compare with its partial producer's: refused with
    the note (this crashed legality, found by the generator)."""
    src = Path(__file__).parent / "programs" / name
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    assert not result.groups
    assert any(why in e.why for e in result.edges)
    assert (tmp_path / "out.cu").read_bytes() == src.read_bytes()
