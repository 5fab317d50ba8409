"""Channels stored by a loop of a few constant iterations (kernel/respell/unroll.py): the
loop is unrolled before the view reads the kernel, each iteration a block with its variable
a constant, so every store is a channel statement (and a loop reading the channels of one
element, a constant channel each). Original and fused programs run under emulation on the
same garbage-filled buffers at odd sizes, and every element of every output is compared.
Loops whose trip is not a constant, that may leave early, or that store a 2 x 2 block per
thread stay loops and are refused with the reason."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from equivalence import fuse_file, library

from cudafuse.frontend import parse_file
from cudafuse.passes.vertical.kernel.respell.unroll import unrolled

PROGRAM = Path(__file__).parent / "programs" / "unrolled_channels.cu"
SIZES = ((37, 19), (1, 5), (65, 3))
PAD = 64


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("unrolled") / "fused.cu"
    return out, fuse_file(PROGRAM, out)


def _run_both(fused: Path, entry: str, w: int, h: int) -> None:
    fn = parse_file(str(PROGRAM)).unit.function(entry)
    assert fn is not None
    rng = np.random.default_rng(w * 100 + h)
    args, outputs = [], []
    ints = iter([w, h])
    for p in fn.params:
        size = 4 * w * h + PAD
        if p.is_pointer and "unsigned char" in p.type:
            args.append(rng.integers(0, 256, size, dtype=np.uint8))
        elif p.is_pointer:
            args.append(rng.standard_normal(size).astype(np.float32))  # input, or garbage
            if not p.pointee_const:
                outputs.append(p.name)
        else:
            args.append(next(ints))
    results = []
    for path in (PROGRAM, fused):
        call = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        library(path).call(entry, *call)
        results.append({p.name: a for p, a in zip(fn.params, call, strict=True)})
    for name in outputs:
        a, b = results[0][name], results[1][name]
        bad = np.flatnonzero(a != b)
        assert bad.size == 0, f"{entry} {w}x{h}: {name}[{bad[0]}] {a[bad[0]]} != {b[bad[0]]}"


def test_channel_loops_fuse(fused) -> None:
    _, result = fused
    groups = sorted(tuple(g.kernels) for g in result.groups)
    assert ("gain_rgb", "rgb_gray") in groups
    assert ("to_planes", "planes_rgba", "rgba_sum") in groups
    assert ("window_rgb", "luma3") in groups
    assert ("window_rgb", "weighted_gray") in groups
    assert ("invert_rgb", "rgb_gray") in groups
    assert ("abs_gain", "max_channel") in groups
    assert ("c89_scale", "luma3") in groups
    assert not any(k in ("scale_n", "first_small") for g in groups for k in g if len(g) > 1
                   and "rgb_gray" in g)


@pytest.mark.slow  # (the two emulated builds: about 12 s of CPU; channels.cu's split_loop,
# unrolled the same way, is compared in the default suite by test_fuse_channels.py)
@pytest.mark.parametrize("entry", ["interleaved", "planar", "refused", "windowed",
                                   "read_loop", "local_count", "reassigned", "c89"])
def test_channel_loops_match(fused, entry: str) -> None:
    path, _ = fused
    for w, h in SIZES:
        _run_both(path, entry, w, h)


def test_loops_left_as_written_name_the_reason(fused) -> None:
    _, result = fused
    text = " | ".join(str(e) for e in result.edges)
    assert "'scale_n' cannot be recomputed: it stores several elements per thread: " \
           "'out[i * 3 + c]' for each value of 'c' in a loop (line 57)" in text
    assert "'first_small' cannot be recomputed: it stores several elements per thread" in text
    assert "'up2' cannot be recomputed: it stores several elements per thread: 'out[(2 * y + " \
           "dy) * 2 * w + 2 * x + dx]' for each value of 'dx, dy' in a loop (line 109)" in text


def test_unrolled_keeps_lines_and_meaning() -> None:
    unit = parse_file(str(PROGRAM)).unit
    data = unit.source.data
    notes = {}
    for fn in unit.kernels:
        edits, note = unrolled(fn, data)
        if edits:
            notes[fn.name] = note
            for e in edits:  # each edit keeps the lines it replaces
                assert e.text.count("\n") == data[e.start:e.end].count(b"\n")
    assert notes == {
        "gain_rgb": "loop over 'c' (line 11, 3 iterations) unrolled: each iteration stores "
                    "an element of its own",
        "to_planes": "loop over 'c' (line 33, 3 iterations) unrolled: each iteration stores "
                     "an element of its own",
        "planes_rgba": "loop over 'c' (line 40, 3 iterations) unrolled: each iteration "
                       "stores an element of its own",
        "window_rgb": "loop over 'c' (line 96, 3 iterations) unrolled: each iteration "
                      "stores an element of its own",
        "weighted_gray": "loop over 'c' (line 137, 3 iterations) unrolled: each iteration "
                         "reads one channel of an interleaved element",
        "invert_rgb": "loop over 'c' (line 155, 3 iterations) unrolled: each iteration "
                      "stores an element of its own",
        "abs_gain": "loop over 'c' (line 170, 3 iterations) unrolled: each iteration "
                    "stores an element of its own",
        "max_channel": "loop over 'c' (line 184, 2 iterations) unrolled: each iteration "
                       "reads one channel of an interleaved element",
        "c89_scale": "loop over 'c' (line 204, 3 iterations) unrolled: each iteration "
                     "stores an element of its own"}


SEPARABLE = Path(__file__).parent / "programs" / "unrolled_separable.cu"


@pytest.mark.slow  # (two emulated builds)
def test_separable_row_pass_matches(tmp_path: Path) -> None:
    """A style of image code no other test has (a row pass per channel with a run-time
    filter width inside, a pitch argument, bytes in and out): fused, and equal to the
    original on garbage-filled buffers at odd sizes, with odd filter widths."""
    fused = tmp_path / "fused.cu"
    result = fuse_file(SEPARABLE, fused)
    assert [tuple(g.kernels) for g in result.groups] == [("blur_rows", "to_bytes")]
    for w, h, kw in ((37, 19, 5), (1, 3, 3), (20, 7, 1)):
        rng = np.random.default_rng(w + h + kw)
        args = [rng.integers(0, 256, 3 * w * h + PAD, dtype=np.uint8),
                rng.standard_normal(3 * w * h + PAD).astype(np.float32),
                rng.integers(0, 256, w * h + PAD, dtype=np.uint8),
                rng.uniform(0.1, 0.3, kw).astype(np.float32), w, h, kw]
        results = []
        for path in (SEPARABLE, fused):
            call = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            library(path).call("run", *call)
            results.append(call)
        for k in (1, 2):  # tmp, out
            a, b = results[0][k], results[1][k]
            assert np.array_equal(a, b), (w, h, kw, k, np.flatnonzero(a != b)[:4])
