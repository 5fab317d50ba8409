"""Producers that write only part of their elements (interior-only and lower-bounded guards,
early returns on the border, stores under if/else) and in-place updates at the own element:
fused, every element compared with the original under emulation, borders included, with
every output buffer pre-filled with non-zero garbage (what a producer skips must keep it);
and the refusals, with the buffer and offset that cause them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from equivalence import _unit, call_both, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "partial_domains.cu"
SIZES = ((37, 19), (1, 23), (23, 1), (64, 8), (2, 2))
SCRATCH = frozenset({"t", "a", "e"})
ENTRIES = ("p_interior", "p_cols", "p_rows", "p_select", "p_some", "p_fdtd",
           "p_inplace_point")


def run_garbage(original: Path, fused: Path, entry: str, w: int, h: int,
                skip: frozenset[str] = frozenset()) -> None:
    """Both programs on the same inputs and the same garbage in every writable buffer;
    every buffer but the scratch ones (`skip`) compared."""
    fn = _unit(str(original), original.stat().st_mtime).function(entry)
    assert fn is not None
    rng = np.random.default_rng(w * 1000 + h)
    args: list[object] = []
    ints = iter([w, h])
    for p in fn.params:
        if p.is_pointer:
            args.append(rng.random(w * h, dtype=np.float32) * 7.0 - 3.0)
        else:
            args.append(next(ints))
    for p, a, b in zip(fn.params, *call_both(original, fused, entry, args), strict=True):
        if p.is_pointer and p.name not in skip and not np.array_equal(a, b):
            bad = np.flatnonzero(a != b)
            i = int(bad[0])
            raise AssertionError(f"{entry} {w}x{h}: '{p.name}': {bad.size} elements differ; "
                                 f"first at x={i % w}, y={i // w}: {a[i]!r} != {b[i]!r}")


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, object]]:
    d = tmp_path_factory.mktemp("partial")
    out = {}
    for name, scratch in (("live", frozenset()), ("scratch", SCRATCH)):
        path = d / f"{name}.cu"
        out[name] = (path, fuse_file(PROGRAM, path, scratch=scratch, fuse_all=True))
    return out


def test_what_fuses(fused) -> None:
    groups = {name: sorted((g.host, tuple(g.kernels)) for g in r.groups)
              for name, (_, r) in fused.items()}
    assert groups["live"] == [
        ("p_interior", ("interior", "blur_clamped")),
        ("p_rows", ("below_first_row", "point2")),
        ("p_select", ("select1", "accumulate")),
        ("p_some", ("only_some", "diff1"))]
    assert groups["scratch"] == [
        ("p_cols", ("cols_only", "interior_sink")),
        ("p_inplace_point", ("update_e", "scale_e")),
        ("p_interior", ("interior", "blur_clamped")),
        ("p_rows", ("below_first_row", "point2")),
        ("p_select", ("select1", "accumulate", "diff1")),
        ("p_some", ("only_some", "diff1"))]


def test_refusals_name_the_cause(fused) -> None:
    why = {(e.host, e.src, e.dst): e.why for e in fused["live"][1].edges if e.refused}
    assert "'interior_sink' writes only the interior, so the fused kernel must store 't' " \
        "before its guard, at every element 'cols_only' writes: 'cols_only' too writes only " \
        "part of its elements" in why[("p_cols", "cols_only", "interior_sink")]
    assert "'diff1' reads 'a' at offset -1..+1 in x" in why[("p_select", "accumulate", "diff1")]
    assert "'update_e' updates 'a'" not in why[("p_select", "accumulate", "diff1")]
    assert "'update_h' reads 'e' at offset +0..+1 in x, an element another thread" in \
        why[("p_fdtd", "update_e", "update_h")]
    assert "'update_e' updates 'e' in place and the fused kernel must still store 'e'" in \
        why[("p_inplace_point", "update_e", "scale_e")]
    scratch = {(e.host, e.src, e.dst): e.why for e in fused["scratch"][1].edges
               if e.refused}
    assert "'update_e' reads 'hf' from memory, which the fused kernel writes" in \
        scratch[("p_fdtd", "update_e", "update_h")]


def test_emitted_code_keeps_the_guard(fused) -> None:
    text = fused["live"][0].read_text()
    # The interior producer's value falls back to memory outside its guard.
    assert "if (!(i >= 1 && i < w - 1 && j >= 1 && j < h - 1)) return t[j * (w) + i];" in text
    # An early-return guard is kept as one, returning the element's contents.
    text = fused["scratch"][0].read_text()
    assert "if (x < 1 || x >= w - 1 || y >= h) return t[y * (w) + x];" in text
    # if/else stores return their values; a path with no store returns memory.
    assert "return cf_round(v * 2.0f);" in text and "return cf_round(-v);" in text
    assert "if (in[i] < th) return cf_round(in[i] + 10.0f);" in text
    # a[i] += v becomes a[i] + (v); e[i] = e[i] - ... reads e at the own element.
    assert "return cf_round((a[i]) + (t[i] * 0.5f));" in text


@pytest.mark.parametrize("mode", ["live", "scratch"])
@pytest.mark.parametrize("entry", ENTRIES)
def test_every_element_matches(fused, mode: str, entry: str) -> None:
    path = fused[mode][0]
    for w, h in SIZES:
        run_garbage(PROGRAM, path, entry, w, h, SCRATCH if mode == "scratch" else frozenset())


@pytest.mark.nvcc
@pytest.mark.parametrize("mode", ["live", "scratch"])
def test_fused_file_compiles(fused, mode: str, tmp_path: Path) -> None:
    nvcc = shutil.which("nvcc")
    assert nvcc
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(fused[mode][0]), "-o",
                          str(tmp_path / "o.o")], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
