#!/usr/bin/env python3
"""Before a GPU: the programs the GPU tests and benchmarks load, checked as far as no GPU is
needed. Each is built with the nvcc backend (nvcc -shared, the trampolines appended) and
loaded with ctypes (a library built by nvcc loads without a driver); its manifest is read,
the spec's arguments are converted for the entry as the GPU path converts them, and the
entry points the GPU executor looks up (the synchronising one, and the queueing one that
timing uses) are found in the library. A trampoline nvcc rejects, a missing symbol or
arguments of the wrong shape show here, on the CPU, not in the first minutes of a GPU lease.

    python benchmarks/gpu_preflight.py [--jobs N]

Programs: every sample pipeline, unfused and fused (as tests/gpu_session and
bench_vertical fuse them), the nine HFuse kernels, and each of the 16 pairs fused in
thread mode (its launcher called as tests/hfuse_samples calls it on the GPU).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from cudafuse.runtime import convert  # noqa: E402
from cudafuse.runtime.build import BuildOptions, build  # noqa: E402
from cudafuse.runtime.spec import evaluate, load_spec, tomllib  # noqa: E402
from cudafuse.runtime.trampoline import parse_manifest  # noqa: E402

SAMPLES = ROOT / "samples"
HFUSE = SAMPLES / "hfuse"
NAMES = ["harris", "shitomasi", "sobel", "unsharp", "enhance", "night", "blur", "canny"]
NO_MAIN = ("CUDAFUSE_NO_MAIN=1",)


def scratch_of(name: str) -> frozenset[str]:
    text = (SAMPLES / "Makefile").read_text()
    m = re.search(rf"^SCRATCH_{name}\s*:=\s*(.*)$", text, re.M)
    return frozenset(m.group(1).split()) if m else frozenset()


# A check: (label, source path, defines, function taking (signatures, cdll) -> None).
Check = tuple[str, Path, tuple[str, ...], Callable[[dict, Any], None]]


def entry_points(cdll: Any, op: str, symbol: str) -> None:
    """The symbols GpuExecutor.run and .prepare look up for this entry."""
    for prefix in (op, f"{op}a"):
        getattr(cdll, f"cudafuse_{prefix}_{symbol}")  # AttributeError when missing


def host_call(entry: str, args: list[Any]) -> Callable[[dict, Any], None]:
    def check(sigs: dict, cdll: Any) -> None:
        sig = sigs.get(entry)
        if sig is None or sig.kind != "host":
            raise KeyError(f"no host function '{entry}' in the manifest")
        convert.convert(sig, args)
        entry_points(cdll, "h", sig.symbol or entry)
    return check


def kernel_launch(entry: str, args: list[Any], grid: tuple, block: tuple
                  ) -> Callable[[dict, Any], None]:
    def check(sigs: dict, cdll: Any) -> None:
        sig = sigs.get(entry)
        if sig is None or sig.kind != "kernel":
            raise KeyError(f"no kernel '{entry}' in the manifest")
        convert.convert(sig, args)
        convert.scalar_bytes("D", grid, f"{entry}: grid")
        convert.scalar_bytes("D", block, f"{entry}: block")
        entry_points(cdll, "k", sig.symbol or entry)
    return check


def sample_checks(work: Path) -> list[Check]:
    from cudafuse.frontend import parse_file
    from cudafuse.passes.vertical.driver import FuseOptions, fuse_unit

    checks: list[Check] = []
    for name in NAMES:
        spec = load_spec(str(SAMPLES / f"{name}.toml"))
        src = SAMPLES / f"{name}.cu"
        fused = work / f"{name}.fused.cu"
        fused.write_bytes(fuse_unit(parse_file(str(src)).unit,
                                    FuseOptions(scratch=scratch_of(name))).output)
        for label, path in ((name, src), (f"{name} (fused)", fused)):
            checks.append((label, path, NO_MAIN, host_call(spec.entry, spec.inputs())))
    return checks


def hfuse_checks(work: Path) -> list[Check]:
    from click.testing import CliRunner

    from cudafuse.cli import main

    raw = tomllib.loads((HFUSE / "pairs.toml").read_text())
    defines = tuple(raw.get("defines", []))
    checks: list[Check] = []
    seen: set[str] = set()
    for pair in raw["pair"]:
        sides = []
        for i in (1, 2):
            file, kernel = pair[f"file{i}"], pair[f"kernel{i}"]
            spec = load_spec(str(HFUSE / file.replace(".cu", ".toml")))
            where = f"{pair['name']}: side {i}"
            grid = tuple(int(evaluate(g, spec.sizes, where)) for g in pair[f"grid{i}"])
            block = tuple(int(b) for b in pair[f"block{i}"])
            shared = int(evaluate(pair.get(f"shared{i}", 0), spec.sizes, where))
            sides.append((file, kernel, spec, grid, block, shared))
            if kernel not in seen:
                seen.add(kernel)
                checks.append((kernel, HFUSE / file, defines,
                               kernel_launch(kernel, spec.inputs(), grid, block)))
        (f1, k1, s1, g1, b1, sh1), (f2, k2, s2, g2, b2, sh2) = sides
        out = work / f"{pair['name'].replace('+', '_')}.thread.cu"
        res = CliRunner().invoke(main, [
            "hfuse", str(HFUSE / f1), str(HFUSE / f2), "--kernels", f"{k1},{k2}",
            "--block1", "x".join(map(str, b1)), "--block2", "x".join(map(str, b2)),
            "--mode", "thread", "-o", str(out), *(a for d in defines for a in ("-D", d))])
        if res.exit_code != 0:
            raise SystemExit(f"{pair['name']}: cudafuse hfuse failed:\n{res.output}")
        args = [*s1.inputs(), *s2.inputs(), g1, g2, sh1, sh2, None]
        checks.append((f"{pair['name']} (thread)", out, defines,
                       host_call(f"{k1}_{k2}_hfused_launch", args)))
    return checks


def run_check(check: Check, include_dirs: tuple[str, ...] = ()) -> str | None:
    label, path, defines, verify = check
    try:
        built = build(str(path), "nvcc", BuildOptions(include_dirs, defines))
        cdll = ctypes.CDLL(str(built.library))
        cdll.cudafuse_manifest.restype = ctypes.c_char_p
        sigs = parse_manifest(cdll.cudafuse_manifest().decode(),
                              {e.sym: e.name for e in built.entries})
        verify(sigs, cdll)
    except Exception as exc:  # noqa: BLE001 - every program is checked; all failures listed
        first = str(exc).strip().splitlines()
        return f"{label}: {first[0] if first else type(exc).__name__}"
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--only", choices=["samples", "hfuse"], help="one group of programs")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cudafuse-preflight-") as tmp:
        work = Path(tmp)
        checks = ([] if args.only == "hfuse" else sample_checks(work)) + \
            ([] if args.only == "samples" else hfuse_checks(work))
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            results = list(pool.map(run_check, checks))
    failures = [r for r in results if r]
    for (label, _, _, _), result in zip(checks, results, strict=True):
        print(f"{label}: {'ok' if result is None else 'FAILED'}", flush=True)
    for line in failures:
        print(line, file=sys.stderr)
    print(f"{len(checks) - len(failures)} of {len(checks)} programs built for the GPU, "
          "loaded, and their entries and arguments checked")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
