"""Differential testing helpers: run an original and a fused .cu on the same inputs."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections import OrderedDict
from pathlib import Path

import numpy as np

from cudafuse.frontend import ParseOptions, parse_file
from cudafuse.passes.vertical.driver import FuseOptions, FuseResult, fuse_unit
from cudafuse.passes.vertical.kernel.respell import parse_for_fusion
from cudafuse.runtime import KernelError, Library, load


def fuse_file(src: Path, out: Path, scratch: frozenset[str] = frozenset(), **kw
              ) -> FuseResult:
    """`src` fused as `cudafuse fuse` parses it (respelled first, passes/vertical/kernel/respell/)
    and written to `out`; when nothing fuses, the file as written (as api.fuse keeps it)."""
    parsed, as_written = parse_for_fusion(str(src), ParseOptions())
    unit = parsed.unit
    result = fuse_unit(unit, FuseOptions(scratch=scratch, **kw))
    if as_written is not None and result.output in (unit.source.data, unit.source.original):
        result = dataclasses.replace(result, output=as_written)
    out.write_bytes(result.output)
    return result


# The libraries kept open for reuse, least recently used first. Each holds an emulation
# worker (a process): keeping every file's for the whole run had dozens alive at once. One
# closed here only stops its worker; a later call on it starts a new one.
_OPEN: OrderedDict[tuple[str, float], Library] = OrderedDict()
MAX_OPEN = 2  # an original and its transformed file


def library(path: Path) -> Library:
    """One emulated build per file version, shared by every test (its worker kept while it
    is among the MAX_OPEN most recently used)."""
    key = (str(path), path.stat().st_mtime)
    lib = _OPEN.pop(key, None) or load(path, backend="emu")
    _OPEN[key] = lib
    while len(_OPEN) > MAX_OPEN:
        with contextlib.suppress(KernelError):  # as before: an open library was never closed
            _OPEN.popitem(last=False)[1].close()
    return lib


@functools.cache
def _unit(path: str, mtime: float):
    return parse_file(path).unit


# Output buffers get this many extra elements past the image, holding a canary: a fused kernel
# that writes outside the image (say, a store that escaped its bounds guard) changes them,
# while the original never touches them.
PAD = 64
CANARY = -12345.0


def pipeline_args(path: Path, entry: str, w: int, h: int, seed: int = 0,
                  garbage: bool = False, sizes: dict[str, int] | None = None):
    """Arguments for an image pipeline `entry(ptrs..., int w, int h, ...)`: const pointers
    get seeded random images, other pointers zeros (plus canaries), or with `garbage` seeded
    random values in [-3, 4) (what a kernel that skips elements must leave there), ints w
    and h, floats 0.5. A buffer named in `sizes` holds that many images (its channels),
    the canaries past them."""
    unit = _unit(str(path), path.stat().st_mtime)
    fn = unit.function(entry)
    assert fn is not None, entry
    rng = np.random.default_rng(seed)
    args, outputs = [], []
    ints = iter([w, h])
    for p in fn.params:
        if p.is_pointer:
            if p.pointee_const:
                args.append(rng.random(w * h, dtype=np.float32))
            else:
                n = (sizes or {}).get(p.name, 1) * w * h
                buf = np.zeros(n + PAD, np.float32)
                if garbage:
                    buf[:n] = rng.random(n, dtype=np.float32) * 7.0 - 3.0
                buf[n:] = CANARY
                args.append(buf)
                outputs.append(p.name)
        elif "int" in p.type:
            args.append(next(ints, 1))
        else:
            args.append(0.5)
    return fn, args, outputs


def call_both(original: Path, fused: Path, entry: str, args: list) -> list[list]:
    """`entry` of each program called on its own copy of `args`: the two argument lists
    afterwards (buffers as the programs left them)."""
    out = []
    for path in (original, fused):
        call = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        library(path).call(entry, *call)
        out.append(call)
    return out


def run_both(original: Path, fused: Path, entry: str, w: int, h: int,
             skip: frozenset[str] = frozenset(), seed: int = 0,
             garbage: bool = False, sizes: dict[str, int] | None = None
             ) -> dict[str, float]:
    """Run both programs on the same arguments (pipeline_args); assert every element of
    every compared output (every channel of a buffer in `sizes`) is identical."""
    fn, args, outputs = pipeline_args(original, entry, w, h, seed, garbage, sizes)
    results = [{p.name: a for p, a in zip(fn.params, call, strict=True)}
               for call in call_both(original, fused, entry, args)]
    report = {}
    for name in outputs:
        a, b = results[0][name], results[1][name]
        n = (sizes or {}).get(name, 1) * w * h
        if not (b[n:] == CANARY).all():
            raise AssertionError(f"{name}: the fused program wrote past the image")
        if name in skip:
            continue
        if not np.array_equal(a, b, equal_nan=True):
            bad = np.flatnonzero(~((a == b) | (np.isnan(a) & np.isnan(b))))
            i = int(bad[0])
            raise AssertionError(f"{name}: {bad.size} elements differ; first at x={i % w}, "
                                 f"y={i // w % h}, image {i // (w * h)}: {a[i]!r} != {b[i]!r}")
        report[name] = float(np.abs(a).sum())
    return report


def compare_entry(original: Path, fused: Path, entry: str, sizes: dict[str, int],
                  seed: int = 1, extra: dict[str, int] | None = None) -> None:
    """Run `entry` of both programs on the same garbage: every pointer gets seeded random
    contents (bytes for char and vector types, floats else) sized from `sizes` (the image
    is numCols/w x numRows/h, or n; a buffer named in `extra` gets that many elements), ints
    by name from `sizes`, floats 0.75; every byte of every buffer must match afterwards."""
    fn = _unit(str(original), original.stat().st_mtime).function(entry)
    assert fn is not None, entry
    rng = np.random.default_rng(seed)
    w = sizes.get("numCols", sizes.get("w", sizes.get("n", 1)))
    h = sizes.get("numRows", sizes.get("h", 1))
    args: list = []
    for p in fn.params:
        lanes = int(p.pointee[-1]) if p.pointee[-1:] in ("2", "3", "4") else 1  # float4
        count = (extra or {}).get(p.name, w * h) * lanes
        if p.is_pointer and any(t in p.pointee for t in ("float", "double")):
            args.append((rng.standard_normal(count + PAD) * 0.2).astype(
                np.float64 if "double" in p.pointee else np.float32))
        elif p.is_pointer:  # char and integer elements, as bytes (8 each is room enough)
            size = 1 if "char" in p.pointee else 8
            args.append(rng.integers(0, 256, size * count + PAD, dtype=np.uint8))
        elif "float" in p.type or "double" in p.type:
            args.append(0.75)
        else:
            args.append(sizes[p.name])
    for p, a, b in zip(fn.params, *call_both(original, fused, entry, args), strict=True):
        if isinstance(a, np.ndarray):
            bad = np.flatnonzero(a != b)
            assert bad.size == 0, f"{entry} {sizes}: {p.name}[{bad[0]}] {a[bad[0]]} != {b[bad[0]]}"


def fuse_with_api(src: Path, folder: Path):
    """`src` fused as `cudafuse fuse --fuse-all` does (cudafuse.api.fuse): (output path, the
    api's Fused)."""
    from cudafuse import api

    out = folder / "fused.cu"
    result = api.fuse(str(src), fuse_all=True)
    out.write_text(result.text)
    return out, result


def nvcc_error(path: Path, tmp: Path) -> str:
    """nvcc's complaints compiling `path` for sm_90 ('' when it compiles)."""
    import shutil
    import subprocess

    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(path), "-o", str(tmp / "o.o")],
                         capture_output=True, text=True)
    return "" if res.returncode == 0 else res.stderr or "nvcc failed"
