#!/usr/bin/env python3
"""Horizontal fusion on a GPU: the HFuse paper's 16 kernel pairs, profiled by cudafuse.

For each pair of samples/hfuse/pairs.toml:
  1. each kernel's problem is grown (its work size doubled) until the kernel alone takes
     about --target-ms on the GPU, so that the two kernels of a pair take similar time, as
     the paper arranges;
  2. `cudafuse hfuse --profile` runs on the pair at those sizes (every candidate verified
     against the native kernels, then timed), with its report;
  3. the table row: native on two streams, one after the other, the best thread split and
     the best block split (fastest median of each), what --profile chose and its speedup
     over two streams, the split and register cap chosen, and the profiling time.
The paper's speedups (HFuse over native streams, 1080Ti / V100, without and with the
register cap) are printed beside ours.

With --paper aten (or crypto): the HFuse paper's own pairs as their projects write them
(benchmarks/hfuse_library_pairs.py's corpus: PyTorch ATen files of aoli-al/TorchKernel,
ccminer's hash kernels), read from --cache (owner+name folders; on the GPU machine the
carried .device-cache that `gpu_session.py --prepare` fills), each kernel at the paper's
block size. A pair is timed where both kernels have a run spec: the six ATen pairs of im2col,
MaxPoolForward, upsample_bilinear2d_out_frame and batch_norm_collect_statistics_kernel (the
last two take PackedTensorAccessors by value, which their specs give as arrays with tensor
views; --profile runs them through a host function that builds the accessors); the others
are listed with the reason none can be run (kernelHistogram1D's functor deduced from a host
lambda). ccminer's three pairs are timed as well: their files' host code names what
ccminer's other files define, for which the nvcc backend links stand-ins where it finds
those files (src/cudafuse/runtime/standins.py; --prepare carries them, and a repository is
staged with its C++ sources: staged_sources.py).

Each pair's row, its sizes and its whole --profile report are appended to --jsonl as they
are measured, and a run skips the pairs already there (a run stopped part-way is resumed by
running it again); --md rewrites a table of every row after each one. A pair whose
profiling fails gets a row saying so, and the others still run (exit status 1 at the end).

    python benchmarks/bench_hfuse.py                      # on a GPU machine: the table
    python benchmarks/bench_hfuse.py --write docs/benchmarks.md
    python benchmarks/bench_hfuse.py --backend emu --no-calibrate --pairs histogram+maxpool2d
        # anywhere: the same steps under the CPU emulator (the figures mean nothing);
        # with --target-ms 0 instead of --no-calibrate, each kernel's calibration runs
        # there too, once, at the sample's size (the dry GPU session does that)
    python benchmarks/bench_hfuse.py --rehearse-calibration [--paper all --cache DIR]
        # anywhere: every kernel's calibration under the emulator, grown once
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import staged_sources  # noqa: E402
from stamped import run_stamped  # noqa: E402

from cudafuse.runtime.spec import evaluate, load_spec, tomllib  # noqa: E402

SAMPLES = ROOT / "samples" / "hfuse"
MARK = "<!-- bench-hfuse -->"
# The size each kernel's work grows with (the others stay as the sample spec has them).
WORK_SIZE = {"batchnorm_stats_kernel": "n", "histogram_kernel": "n", "maxpool2d_kernel": "nc",
             "upsample_bilinear2d_kernel": "nc", "im2col_kernel": "c", "sha256_kernel": "n",
             "blake256_kernel": "n", "blake2b_kernel": "n", "ethash_like_kernel": "n",
             # The paper's ATen kernels (benchmarks/hfuse_library/tk_*.toml): channels of a
             # small image, images of a batch. Their specs start tiny (90 threads), hence
             # the larger limit on the growth factor.
             "at::native::im2col_kernel<float>": "c",
             "at::native::MaxPoolForward<float, float>": "b",
             # One thread per output pixel, looping over batch and channels: the output's
             # height (more threads, more blocks).
             "at::native::upsample_bilinear2d_out_frame<float, float>": "h2",
             # One block per channel: the channels (more blocks; a block's share stays).
             "at::native::batch_norm_collect_statistics_kernel<InvStd, float, float, float, "
             "int>": "c",
             # ccminer's hash kernels (benchmarks/hfuse_library/cc_*.toml): the nonces, one
             # a thread (the grid grows with them).
             "blake2b_gpu_hash": "n", "sha256d_gpu_hash_shared": "n",
             "sia_blake2b_gpu_hash": "n"}
GROWTH_LIMIT = {k: 1 << 24 for k in WORK_SIZE if k.startswith("at::")}
# The hash kernels read no array per nonce, so growing them costs no memory; 2^16 x their
# 512 nonces (2^25, ~6 ms at the rate below) leaves startNonce + thread far inside 32 bits.
GROWTH_LIMIT.update({k: 1 << 16 for k in ("blake2b_gpu_hash", "sha256d_gpu_hash_shared",
                                          "sia_blake2b_gpu_hash")})
# Where their calibration starts when no earlier session on the device sized them: about
# 1/16 of the 0.5 ms target by their bytes (im2col ~1.5 KB a channel, MaxPool ~2.5 KB an
# image, at ~4 TB/s), so that one measurement and one linear step reach it. Each step runs
# a program built for that launch (the launcher appended to a copy of an ATen file, seconds
# of nvcc), not the dozen x4 steps from the specs' 90 threads.
PAPER_START = {"at::native::im2col_kernel<float>": {"c": 1 << 16},
               "at::native::MaxPoolForward<float, float>": {"b": 1 << 15},
               # upsample: 384 bytes written per output row (2x3 channels of 16 floats):
               # 100 MB. Batch norm: a 512-thread block per channel over 4x37 floats, so
               # bound by blocks, not bytes: 8192 blocks, about 16 waves on an H200.
               "at::native::upsample_bilinear2d_out_frame<float, float>": {"h2": 1 << 18},
               "at::native::batch_norm_collect_statistics_kernel<InvStd, float, float, "
               "float, int>": {"c": 1 << 13},
               # ccminer's hashes are ALU work, no memory: one BLAKE2b compression (12
               # rounds of 8 G mixes on 64-bit words, ~3,000 32-bit instructions) or two
               # SHA-256 ones a nonce. At the H200's ~64 integer lanes x 132 SMs x ~1.9 GHz
               # (~1.6e13 instructions/s) that is ~5e9 nonces/s, as the second session
               # measured for our samples' hashes of that size, which also read and write
               # ~100-200 bytes a hash (blake2b_kernel: 3,276,800 in 0.60 ms; sha256_kernel,
               # two compressions: 4,194,304 in 0.56 ms; 2026-11-28-h200-2/hfuse.jsonl).
               # 0.5 ms is thus ~2.5-3.5 M nonces: start at 2^22 (4,194,304, ~15 waves of
               # 2048 threads on 132 SMs), which reaches the target in one measurement; a
               # kernel up to 2x faster than the estimate takes one x2 step more, a slower
               # one is simply timed longer.
               "blake2b_gpu_hash": {"n": 1 << 22}, "sha256d_gpu_hash_shared": {"n": 1 << 22},
               "sia_blake2b_gpu_hash": {"n": 1 << 22}}
# The paper's kernels -> the sample kernel of pairs.toml that stands for it (for the
# paper's figures printed beside ours).
PAPER_SAMPLE = {"im2col": "im2col", "maxpool": "maxpool2d", "upsample": "upsample_bilinear2d",
                "batchnorm": "batchnorm_stats", "histogram": "histogram", "blake2b": "blake2b",
                "sha256d": "sha256", "sia": "blake256"}


def _side(pair: dict, i: int) -> dict:
    return {"file": str(SAMPLES / pair[f"file{i}"]), "kernel": pair[f"kernel{i}"],
            "spec": str(pair.get(f"spec{i}") or
                        SAMPLES / pair[f"file{i}"].replace(".cu", ".toml")),
            "grid": pair[f"grid{i}"], "block": pair[f"block{i}"],
            "shared": pair.get(f"shared{i}", 0),
            "include_dirs": list(pair.get("include_dirs", []))}


PAPER_SUFFIX = "paper's files)"
def _untimed(keys: tuple[str, str]) -> list[str]:
    """Why the paper's pair `keys` is not timed (nothing when it is): a kernel no run spec
    can describe, or a repository the GPU cannot load yet."""
    import hfuse_library_pairs as lib

    why = [f"{k}: {lib.UNVERIFIABLE[lib.PAPER[k][3]]}" for k in keys
           if lib.PAPER[k][3] in lib.UNVERIFIABLE]
    repo = next((lib.PAPER[k][0] for k in keys if lib.PAPER[k][0] in lib.NOT_LOADABLE), None)
    return why or ([f"{repo}: {lib.NOT_LOADABLE[repo]}"]
                   if repo else [])


def paper_untimed() -> list[str]:
    """The line under the table for each of the paper's pairs (both corpora) that is not
    timed, saying why: what a run of the samples' pairs writes again beside the paper's
    rows it finds (the files are not needed for that)."""
    import hfuse_library_pairs as lib

    lines = []
    for corpus, pairs in (("aten", lib.ATEN_PAIRS), ("crypto", lib.CRYPTO_PAIRS)):
        for a, b in pairs:
            why = _untimed((a, b))
            if why:
                lines.append(f"{a}+{b} ({corpus}, {PAPER_SUFFIX}: not timed: "
                             f"{'; '.join(why)}")
    return lines


def paper_pairs(corpus: str, cache: Path, work: Path) -> tuple[list[dict], list[str]]:
    """The paper's pairs of `corpus` (aten, crypto) that can be timed, as pairs.toml's
    tables (files staged from `cache` into `work`, absolute paths), and a line for each
    that cannot, saying why."""
    import hfuse_library_pairs as lib

    samples = {p["name"]: p for p in tomllib.loads((SAMPLES / "pairs.toml").read_text())["pair"]}
    timed, untimed = [], []
    for a, b in {"aten": lib.ATEN_PAIRS, "crypto": lib.CRYPTO_PAIRS}[corpus]:
        sides = [lib.PAPER[a], lib.PAPER[b]]
        why = _untimed((a, b))
        name = f"{a}+{b} ({corpus}, {PAPER_SUFFIX}"
        if why:
            untimed.append(f"{name}: not timed: {'; '.join(why)}")
            continue
        pair: dict = {"name": name, "include_dirs": [], "defines": []}
        for i, (repo, path, kernel, spec, block) in enumerate(sides, 1):
            root = staged_sources.stage(lib, cache, repo, work)
            launch = tomllib.loads((lib.LIBRARY / spec).read_text())["launch"]
            pair.update({f"file{i}": str(root / path), f"kernel{i}": kernel,
                         f"spec{i}": str(lib.LIBRARY / spec), f"grid{i}": launch["grid"],
                         f"block{i}": [int(x) for x in str(block).split("x")],
                         f"shared{i}": launch.get("shared", 0)})
            pair["include_dirs"] += [str(root / d) for d in lib.REPOS[repo][1]]
            if repo in lib.STANDINS:
                pair["include_dirs"].append(str(lib.STANDINS[repo]))
            pair["defines"] += list(lib.REPOS[repo][2])
        pair["include_dirs"] = list(dict.fromkeys(pair["include_dirs"]))
        pair["defines"] = list(dict.fromkeys(pair["defines"]))
        sample = (samples.get(f"{PAPER_SAMPLE[a]}+{PAPER_SAMPLE[b]}") or
                  samples.get(f"{PAPER_SAMPLE[b]}+{PAPER_SAMPLE[a]}") or {})
        for key in ("paper_speedup_nregcap", "paper_speedup_regcap"):
            if key in sample:
                pair[key] = sample[key]
        timed.append(pair)
    return timed, untimed


def chosen_pairs(arg: str, pairs: list[dict]) -> list[dict]:
    """The pairs `--pairs` names, in its order: each a pair's whole name or, for the
    paper's, the name before " (" ("im2col+upsample"). The paper's names hold a comma
    ("(aten, paper's files)"), so the list is cut only at commas outside parentheses."""
    wanted, depth, part = [], 0, ""
    for ch in arg:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth <= 0:
            wanted.append(part.strip())
            part = ""
        else:
            part += ch
    wanted.append(part.strip())
    by_name = {p["name"]: p for p in pairs}
    by_name.update({p["name"].split(" (")[0]: p for p in pairs
                    if p["name"].endswith(PAPER_SUFFIX)})
    unknown = [w for w in wanted if w not in by_name]
    if unknown:
        raise ValueError(f"unknown pair(s): {'; '.join(unknown)} (known: "
                         f"{'; '.join(p['name'] for p in pairs)})")
    return [by_name[w] for w in wanted]


def kernel_ms(side: dict, sizes: dict, defines: list[str], backend: str = "nvcc") -> float:
    """The native kernel alone at `sizes`: median ms of an event-timed loop on the GPU.
    backend "emu" runs the same path (program, load, prepare, timed loop) under the
    emulator with the host clock: the rehearsal that the GPU path is complete
    (`--rehearse-calibration`; the figures mean nothing)."""
    from cudafuse.profile.stats import summarize
    from cudafuse.profile.timing import TimingPlan, measure
    from cudafuse.runtime import load

    emu = backend == "emu"
    plan = TimingPlan(warmup_iterations=0, warmup_ms=0.0, min_iterations=2, min_total_ms=0.0,
                      max_iterations=2, precision=None) if emu else \
        TimingPlan(min_iterations=10, min_total_ms=20.0, precision=None)
    with tempfile.TemporaryDirectory(prefix="cudafuse-bench-hfuse-alone-") as tmp:
        path, spec, launch = native_program(side, sizes, defines, Path(tmp))
        with load(path, backend=backend, include_dirs=side["include_dirs"],
                  defines=defines) as lib:
            with lib.prepare(spec.entry, *spec.inputs(), **launch) as run:
                if emu:
                    from cudafuse.profile.hostclock import HostClock

                    times = measure(run.run, plan, l2_bytes=0, driver=HostClock)
                else:
                    times = measure(run.run, plan)
    return summarize(times).median


def native_program(side: dict, sizes: dict, defines: list[str], tmp: Path
                   ) -> tuple[str, Any, dict]:
    """The program, spec and launch keywords that run the side's kernel alone. A plain
    kernel is launched itself; a template instantiation or a kernel in a namespace (the
    paper's `at::native::im2col_kernel<float>`), which a built library does not list, by
    the host function `verify --hfuse` appends to a copy of its file (the kernel unchanged,
    the launch as the spec says)."""
    from cudafuse.cli.verify_hfuse import Side, _runnable
    from cudafuse.frontend import ParseOptions

    spec = load_spec(side["spec"], sizes)
    grid = tuple(int(evaluate(g, spec.sizes, "grid")) for g in side["grid"])
    shared = int(evaluate(side["shared"], spec.sizes, "shared"))
    block = tuple(side["block"])
    if "<" not in side["kernel"] and "::" not in side["kernel"]:
        # The spec's entry may be a host wrapper (batchnorm_stats_run); pairs.toml says
        # the spec's arguments are the kernel's, so the kernel itself is what is launched.
        spec = dataclasses.replace(spec, entry=side["kernel"])
        return side["file"], spec, {"grid": grid, "block": block, "shared": shared}
    spec = dataclasses.replace(spec, entry=side["kernel"], grid=grid, block=block,
                               shared=shared)
    path, spec = _runnable(Side(side["file"], spec),
                           ParseOptions(tuple(side["include_dirs"]), tuple(defines)), str(tmp))
    return path, spec, {}


def growth(ms: float, target_ms: float) -> int:
    """How many times more work the next calibration step takes. Far below the target
    (under 1/32 of it) a kernel's time is mostly launch and ramp-up, not work: x4 (the
    sizes are small, each step cheap). Nearer, the power of two that scaling the time
    linearly with the work says reaches the target: past the launch overhead a kernel's
    time grows about linearly with its work (or slower, while the GPU is still filling up:
    then the next step grows it again), so one step, not several doublings that each
    draw and copy inputs of a gigabyte."""
    if ms <= 0 or ms < target_ms / 32:
        return 4
    return 2 ** max(1, math.ceil(math.log2(target_ms / ms)))


def calibrate(side: dict, target_ms: float, defines: list[str], limit: int | None = None,
              start: dict | None = None, backend: str = "nvcc") -> tuple[dict, float]:
    """Sizes at which the kernel takes at least target_ms (its work size grown from the
    sample's, or from `start`: sizes an earlier run on this device found), and that time;
    the growth stops at `limit` times the sample's size (default: the kernel's
    GROWTH_LIMIT, else 2^16)."""
    name = WORK_SIZE[side["kernel"]]
    limit = limit or GROWTH_LIMIT.get(side["kernel"], 1 << 16)
    base = tomllib.loads(Path(side["spec"]).read_text())["sizes"][name]
    factor = max(1, int(start[name]) // base) if start and name in start else 1
    while True:
        sizes = {name: base * factor}
        ms = kernel_ms(side, sizes, defines, backend)
        if ms >= target_ms or factor >= limit:
            return sizes, ms
        factor = min(limit, factor * growth(ms, target_ms))


def rehearse_calibration(pairs: list[dict], defines: list[str], earlier: list[Path],
                         directory: Path) -> int:
    """The calibration path, which only a GPU run takes (native_program, load, prepare,
    the timed loop, a growth step), run for every kernel of `pairs` under the emulator at
    the samples' sizes: two measurements each, at the spec's size and 4x, then each pair's
    spec written with those sizes and read back as `hfuse --profile` reads it; the
    earlier sessions' sizes (--sizes-from) read as a calibration seeded from them reads
    them. The second H200 session's hfuse step failed at once in this path (a spec whose
    entry is a host wrapper launched as a kernel); none of it had run before."""
    from cudafuse.profile.pairspec import load_pair_spec

    bad = 0
    sized: dict[str, dict] = {}
    for pair in pairs:
        for i in (1, 2):
            side = _side(pair, i)
            if side["kernel"] in sized:
                continue
            began = time.perf_counter()
            try:
                sizes, ms = calibrate(side, math.inf, defines + pair.get("defines", []),
                                      limit=4, backend="emu")
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - every kernel is tried
                bad += 1
                sized[side["kernel"]] = {}
                print(f"{side['kernel']} ({pair['name']}): calibration failed: {exc}",
                      file=sys.stderr, flush=True)
                continue
            sized[side["kernel"]] = sizes
            print(f"{side['kernel']}: calibration rehearsed under the emulator at {sizes} "
                  f"({ms:.3g} ms host clock, {time.perf_counter() - began:.1f} s)", flush=True)
        both = (sized[pair["kernel1"]], sized[pair["kernel2"]])
        if all(both):
            try:
                load_pair_spec(str(pair_spec(pair, both, directory)))
            except Exception as exc:  # noqa: BLE001 - reported, the next pair goes on
                bad += 1
                print(f"{pair['name']}: the calibrated pair spec does not load: {exc}",
                      file=sys.stderr, flush=True)
    devices = {str(r.get("device")) for p in earlier for r in read_done(p, "nvcc").values()
               if r.get("device")}
    for device in sorted(devices):
        for kernel, sizes in seeds(earlier, device).items():
            if WORK_SIZE.get(kernel) not in sizes:
                bad += 1
                print(f"{kernel}: the sizes an earlier run on {device} found ({sizes}) do "
                      f"not hold its work size {WORK_SIZE.get(kernel)!r}", file=sys.stderr)
    print(f"calibration rehearsed for {len(sized)} kernel(s) of {len(pairs)} pair(s), "
          f"{len(devices)} earlier device(s) read: {bad} failure(s)", flush=True)
    return 1 if bad else 0


def seeds(paths: list[Path], device: str) -> dict[str, dict]:
    """Kernel -> the sizes an earlier run on `device` grew it to (the last such record;
    a pair whose profiling failed after its kernels were sized counts: the second H200
    session's paper pair faulted in a fused candidate, its calibration had finished)."""
    found: dict[str, dict] = {}
    for path in paths:
        for rec in calibrated(path, "nvcc"):
            if rec.get("device") == device and rec.get("sizes"):
                for i in (1, 2):
                    found[rec[f"kernel{i}"]] = rec["sizes"][i - 1]
    return found


def calibrated(path: Path | None, backend: str) -> list[dict]:
    """The records of `path` whose kernels were sized (grown by calibration), whether or
    not the pair's profiling then succeeded."""
    if path is None or not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:  # a line cut short when a run was stopped
            continue
        if rec.get("backend") == backend and any(rec.get("sizes") or ()):
            out.append(rec)
    return out


def pair_spec(pair: dict, sizes: tuple[dict, dict], directory: Path) -> Path:
    lines = []
    for i, side in ((1, _side(pair, 1)), (2, _side(pair, 2))):
        lines += [f"kernel{i} = {json.dumps(side['kernel'])}",
                  f"spec{i} = {json.dumps(side['spec'])}",
                  f"grid{i} = {json.dumps(side['grid'])}",
                  f"block{i} = {json.dumps(side['block'])}",
                  f"shared{i} = {json.dumps(side['shared'])}"]
        if sizes[i - 1]:
            lines.append(f"sizes{i} = {{ " + ", ".join(
                f"{k} = {v}" for k, v in sizes[i - 1].items()) + " }")
    path = directory / f"{''.join(c if c.isalnum() else '_' for c in pair['name'])}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def profile(pair: dict, spec: Path, backend: str, defines: list[str], directory: Path,
            extra: list[str]) -> tuple[dict | None, float, str]:
    """The --profile report (None when the command failed), the seconds it took, and the
    end of its error output."""
    s1, s2 = _side(pair, 1), _side(pair, 2)
    report = directory / f"{spec.stem}.json"
    exe = Path(sys.executable).parent / "cudafuse"
    cmd = [str(exe) if exe.exists() else "cudafuse", "hfuse", s1["file"], s2["file"],
           "--kernels", f"{s1['kernel']},{s2['kernel']}",
           "--profile", "--spec", str(spec), "--backend", backend, "--no-cache",
           "-o", str(directory / f"{spec.stem}.cu"), "--report", str(report), *extra,
           *(f"-I{d}" for d in s1["include_dirs"]), *(f"-D{d}" for d in defines)]
    start = time.perf_counter()
    rc, said = run_stamped(cmd, subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    if rc != 0 or not report.exists():
        print(f"{pair['name']}: cudafuse hfuse --profile failed (exit status {rc})",
              file=sys.stderr, flush=True)
        return None, seconds, said.strip()[-300:]
    return json.loads(report.read_text()), seconds, ""


def row(pair: dict, report: dict, seconds: float, alone: tuple[float, float] | None) -> str:
    cands = {c["id"]: c for c in report["candidates"]}
    native = tuple((report.get("options") or {}).get("candidates", {}).get("threads") or ())
    names = report.get("kernels") or [pair.get("kernel1", "1"), pair.get("kernel2", "2")]

    def med(c: dict | None) -> float | None:
        return c["timing"]["median_ms"] if c and c.get("timing") else None

    def best(keep: Callable[[dict], bool]) -> dict | None:
        timed = [c for c in cands.values() if keep(c) and c.get("timing")]
        return min(timed, key=lambda c: c["timing"]["median_ms"]) if timed else None

    def ms(v: float | None) -> str:
        return f"{v:.4g}" if v is not None else "-"

    def gain(c: dict | None) -> str:
        return f"{(streams / med(c) - 1) * 100:+.1f}%" if streams and med(c) else "-"

    streams, seq = med(cands.get("streams")), med(cands.get("sequential"))
    thread = best(lambda c: c["kind"] == "thread")
    block = best(lambda c: c["kind"] == "block")
    # Fused at the natives' own block sizes: what fusion gains without giving a part more
    # threads than its native launch has (a grid-stride part runs faster with more).
    same = best(lambda c: c["kind"] in ("thread", "block") and bool(native) and
                tuple(c.get("threads") or ()) == native)
    chosen = cands[report["choice"]["id"]]
    fused = chosen["kind"] not in ("streams", "sequential")
    if fused and chosen.get("verified") is not True:
        # select() never chooses such a candidate; a report that says otherwise is not
        # a measurement to print as a speedup.
        what, speedup = f"{chosen['id']}: NOT VERIFIED against the native kernels", "-"
    else:
        speedup = gain(chosen)
        what = "native (two streams)" if not fused else \
            f"{chosen['kind']} {'+'.join(map(str, chosen['threads']))}, regcap " \
            f"{chosen['regcap'] or 'none'}" + launch_note(chosen, native, names)
    times = f"{alone[0]:.3g} / {alone[1]:.3g}" if alone else "-"
    return (f"| {pair['name']} | {times} | {ms(streams)} | {ms(seq)} | "
            f"{ms(med(thread))} ({thread['id'].split(':', 1)[1] if thread else '-'}) | "
            f"{ms(med(block))} | {ms(med(same))} ({gain(same)}) | {ms(med(chosen))} | "
            f"{speedup} | {what} | {seconds:.0f} s | "
            f"{pair.get('paper_speedup_nregcap', '-')} | {pair.get('paper_speedup_regcap', '-')} |")


def launch_note(chosen: dict, native: tuple, names: list[str]) -> str:
    """'; histogram_kernel at 512 threads a block (native 256)' for each part the chosen
    candidate runs with another block size than its native launch: the comparison with
    the natives is then not at equal launch configurations."""
    threads = chosen.get("threads") or ()
    parts = [f"{names[i]} at {threads[i]} threads a block (native {native[i]})"
             for i in range(min(len(threads), len(native), len(names)))
             if threads[i] != native[i]]
    return "; " + "; ".join(parts) if parts else ""


HEADER = ("| pair | kernels alone (ms) | streams | sequential | best thread split (split:cap) | "
          "best block split | best at native block sizes (vs streams) | chosen | "
          "speedup vs streams | choice | profiling time | "
          "paper, no regcap (1080Ti / V100) | paper, regcap |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def write_section(doc: Path, text: str) -> None:
    body = doc.read_text()
    start, end = body.find(MARK), body.rfind(MARK)
    if start < 0 or start == end:
        body = body.rstrip() + f"\n\n{MARK}\n{text}\n{MARK}\n"
    else:
        body = body[:start] + f"{MARK}\n{text}\n" + body[end:]
    tmp = doc.with_suffix(".tmp")
    tmp.write_text(body)
    os.replace(tmp, doc)


def failed_row(pair: dict, why: str) -> str:
    gist = " ".join(why.split())[:160].replace("|", "/") or "no report"
    return f"| {pair['name']} | failed: {gist} |" + " |" * 11


def read_done(path: Path | None, backend: str) -> dict[str, dict]:
    """The pairs measured so far with this backend (the last record of each)."""
    done: dict[str, dict] = {}
    if path is None or not path.exists():
        return done
    for line in path.read_text().splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:  # a line cut short when a run was stopped
            continue
        if rec.get("backend") == backend and not rec.get("error"):
            done[rec["pair"]] = rec
    return done


def table(rows: list[str], device: str, note: str, backend: str, sizes_note: str,
          untimed: Sequence[str] = ()) -> str:
    date = datetime.date.today().isoformat()
    how = ("CUDA events, L2 flushed before each run" if backend == "nvcc" else
           "host clock around emulated runs: these figures say nothing about a GPU")
    where = f"{device}{f'; {note}' if note else ''}"
    return (f"Measured {date} on {where} ({backend} backend; {sizes_note}; median ms per "
            f"configuration, {how}). Command: `python benchmarks/bench_hfuse.py"
            f"{' --backend emu' if backend == 'emu' else ''}`.\n\n{HEADER}\n"
            + "\n".join(rows) + "".join(f"\n\n- {line}" if i == 0 else f"\n- {line}"
                                         for i, line in enumerate(untimed)))


def plan(pair: dict, defines: list[str], split_step: int) -> str:
    """`cudafuse hfuse-plan` on the pair (every candidate emitted and compiled by nvcc, no
    GPU): a line saying how many candidates it built, or why it failed."""
    s1, s2 = _side(pair, 1), _side(pair, 2)
    exe = Path(sys.executable).parent / "cudafuse"
    with tempfile.TemporaryDirectory(prefix="cudafuse-bench-hfuse-plan-") as tmp:
        report = Path(tmp) / "plan.json"
        cmd = [str(exe) if exe.exists() else "cudafuse", "hfuse-plan", s1["file"],
               s2["file"], "--kernels",
               f"{s1['kernel']},{s2['kernel']}", "--block1", "x".join(map(str, s1["block"])),
               "--block2", "x".join(map(str, s2["block"])), "--split-step", str(split_step),
               "--no-cache", "--report", str(report), "-q",
               *(f"-I{d}" for d in s1["include_dirs"]), *(f"-D{d}" for d in defines)]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0 or not report.exists():
            raise SystemExit(f"{pair['name']}: cudafuse hfuse-plan failed:\n{res.stderr}")
        doc = json.loads(report.read_text())
    cands = doc.get("candidates", doc) if isinstance(doc, dict) else doc
    return f"{pair['name']}: {len(cands)} candidates planned and compiled"


def preflight(pair: dict) -> str:
    """Each native kernel of a paper pair built with the nvcc backend and loaded without a
    GPU, its entry and the spec's arguments checked (gpu_preflight.py): what calibration
    and the baselines load first on the GPU."""
    from gpu_preflight import host_call, kernel_launch, run_check

    from cudafuse.cli.verify_hfuse import _base
    from cudafuse.profile.structs import needs_wrapper, wrapped_program

    said = []
    for i in (1, 2):
        side = _side(pair, i)
        defines = list(pair.get("defines", []))
        with tempfile.TemporaryDirectory(prefix="cudafuse-bench-hfuse-pre-") as tmp:
            path, spec, launch = native_program(side, {}, defines, Path(tmp))
            verify = kernel_launch(spec.entry, spec.inputs(), launch["grid"],
                                   launch["block"]) if launch else \
                host_call(spec.entry, spec.inputs())
            said.append(run_check((side["kernel"], Path(path), tuple(defines), verify),
                                  tuple(side["include_dirs"])) or
                        f"{side['kernel']}: built for the GPU and loaded")
    # The two launchers --profile builds first: the natives on two streams (its baseline)
    # and one thread split, called with both specs' arguments and launches.
    s1, s2 = _side(pair, 1), _side(pair, 2)
    specs = [load_spec(s1["spec"]), load_spec(s2["spec"])]
    grids = [tuple(int(evaluate(g, sp.sizes, "grid")) for g in s["grid"])
             for s, sp in zip((s1, s2), specs, strict=True)]
    args = [*specs[0].inputs(), *specs[1].inputs(), *grids, 0, 0, None]
    exe = Path(sys.executable).parent / "cudafuse"
    with tempfile.TemporaryDirectory(prefix="cudafuse-bench-hfuse-pre-") as tmp:
        for mode in ("streams", "thread"):
            out = Path(tmp) / f"{mode}.cu"
            res = subprocess.run(
                [str(exe) if exe.exists() else "cudafuse", "hfuse", s1["file"], s2["file"],
                 "--kernels", f"{s1['kernel']},{s2['kernel']}", "--block1",
                 "x".join(map(str, s1["block"])), "--block2", "x".join(map(str, s2["block"])),
                 "--mode", mode, "-o", str(out), *(f"-I{d}" for d in s1["include_dirs"])],
                capture_output=True, text=True)
            if res.returncode != 0:
                said.append(f"{mode}: cudafuse hfuse failed: {res.stderr.strip()[:300]}")
                continue
            check = _launcher_call(args)
            if needs_wrapper(specs):
                # Struct parameters given as arrays (tensor views): the launcher is called
                # through the function --profile appends that builds them.
                source, wrapper = wrapped_program(
                    out.read_bytes(), f"{_base(s1['kernel'])}_{_base(s2['kernel'])}"
                    "_hfused_launch", specs, (s1["kernel"], s2["kernel"]))
                out.write_bytes(source)
                check = host_call(wrapper, args)
            said.append(run_check((mode, out, tuple(pair.get("defines", [])), check),
                                  tuple(s1["include_dirs"])) or
                        f"{mode} launcher: built for the GPU and loaded")
    return "; ".join(said)


def _launcher_call(args: list[Any]) -> Callable[[dict, Any], None]:
    """gpu_preflight's check of a host call, on the one `..._hfused_launch` of a program."""
    from gpu_preflight import host_call

    def check(sigs: dict, cdll: Any) -> None:
        names = [n for n, s in sigs.items() if s.kind == "host" and
                 n.endswith("_hfused_launch")]
        if len(names) != 1:
            raise KeyError(f"expected one ..._hfused_launch in the manifest, found {names}")
        host_call(names[0], args)(sigs, cdll)
    return check


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", choices=["nvcc", "emu"], default="nvcc")
    ap.add_argument("--pairs", help="comma-separated pair names, measured in this order "
                    "(default: all 16, in pairs.toml's order); with --paper, e.g. "
                    "im2col+upsample")
    ap.add_argument("--target-ms", type=float, default=0.5,
                    help="grow each kernel until it alone takes this long (GPU)")
    ap.add_argument("--no-calibrate", action="store_true", help="use the samples' sizes")
    ap.add_argument("--sizes-from", type=Path, nargs="*", default=[],
                    help="earlier runs' jsonl files: a kernel sized there on the same device "
                    "starts its calibration at that size (one measurement instead of a "
                    "dozen when it still takes the target time)")
    ap.add_argument("--split-step", type=int, default=128)
    ap.add_argument("--jsonl", type=Path, help="append each pair here; skip pairs already there")
    ap.add_argument("--md", type=Path, help="rewrite this file with the table after each pair")
    ap.add_argument("--note", default="", help="added to the table's header (the driver)")
    ap.add_argument("--write", type=Path, help="replace the table in this markdown file")
    ap.add_argument("--plan-only", action="store_true", help="only `cudafuse hfuse-plan` on "
                    "each pair: every candidate emitted and compiled by nvcc (no GPU); with "
                    "--paper, each native kernel also built and loaded as for the GPU")
    ap.add_argument("--rehearse-calibration", action="store_true", help="no GPU: run each "
                    "kernel's calibration (the program, load, timed loop, one growth step) "
                    "under the emulator at the samples' sizes, and check the pair specs it "
                    "writes and the --sizes-from records")
    ap.add_argument("--paper", choices=["aten", "crypto", "all"], help="the HFuse paper's "
                    "own pairs as their projects write them, instead of the samples (--cache)")
    ap.add_argument("--cache", type=Path, help="with --paper: the folder of owner+name "
                    "checkouts (default $CUDAFUSE_SURVEY_CACHE, else ~/.cache/cudafuse-survey)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cudafuse-bench-hfuse-") as tmp:
        return run(args, Path(tmp))


def run(args: argparse.Namespace, tmp: Path) -> int:
    raw = tomllib.loads((SAMPLES / "pairs.toml").read_text())
    pairs = raw["pair"]
    defines = list(raw.get("defines", []))
    untimed: list[str] = []
    if args.paper:
        cache = args.cache or Path(os.environ.get("CUDAFUSE_SURVEY_CACHE") or
                                   Path.home() / ".cache" / "cudafuse-survey")
        pairs, untimed = [], []
        for corpus in (("aten", "crypto") if args.paper == "all" else (args.paper,)):
            try:
                timed, cannot = paper_pairs(corpus, cache, tmp / "libraries")
            except FileNotFoundError as exc:
                raise SystemExit(f"--paper {corpus}: not in the cache: {exc}") from None
            pairs += timed
            untimed += cannot
        for line in untimed:
            print(line, flush=True)
        defines = []
    if args.pairs:
        try:
            pairs = chosen_pairs(args.pairs, pairs)
        except ValueError as exc:
            raise SystemExit(str(exc)) from None
    if args.rehearse_calibration:
        return rehearse_calibration(pairs, defines, args.sizes_from, tmp)
    if args.plan_only:
        bad = 0
        for pair in pairs:
            print(plan(pair, defines + pair.get("defines", []), args.split_step), flush=True)
            if args.paper:
                said = preflight(pair)
                bad += not all(s.endswith("built for the GPU and loaded")
                               for s in said.split("; "))
                print(said, flush=True)
        return 1 if bad else 0
    # Under the emulator the calibration is a rehearsal of the GPU run's (host clock, the
    # samples' sizes: --target-ms 0 measures each kernel once and keeps its size).
    calibrate_sizes = not args.no_calibrate
    done = read_done(args.jsonl, args.backend)
    # Kernels sized by an earlier run keep their sizes: a resumed run calibrates no kernel
    # twice, and its pairs are measured at the sizes the first part used.
    sized: dict[str, tuple[dict, float]] = {}
    for rec in calibrated(args.jsonl, args.backend):
        for i in (1, 2):
            if rec.get("alone"):
                sized[rec[f"kernel{i}"]] = (rec["sizes"][i - 1], rec["alone"][i - 1])
    started: dict[str, dict] = {}
    gpu = ""  # the device's name, asked when a pair is first measured (not on a resume
    # that has nothing left to do); in every record, a failed pair's too (seeds)
    # This run's pairs in its order, then the other corpus's rows of the same file (the
    # samples' and the paper's pairs share one table).
    names = [p["name"] for p in pairs]
    if not args.paper and any(n.endswith(PAPER_SUFFIX) for n in done):
        untimed = paper_untimed()  # the paper's rows are in the table: their footnotes too
    rows = [done[n]["row"] for n in names + [n for n in done if n not in names] if n in done]
    device = next((str(r["device"]) for r in done.values()), "")
    sizes_note = ("each kernel grown until it alone takes about "
                  f"{args.target_ms:g} ms" if calibrate_sizes else "the samples' sizes") + \
        f"; thread splits in steps of {args.split_step}"
    failures = 0
    for pair in pairs:
        if pair["name"] in done:
            continue
        sizes: list[dict] = [{}, {}]
        alone = None
        began = time.perf_counter()
        if calibrate_sizes and not gpu and args.backend == "nvcc":
            from cudafuse.profile.device import query_device

            gpu = query_device()[0].name
            started = seeds(args.sizes_from, gpu) if args.sizes_from else {}
        if calibrate_sizes:
            for i in (1, 2):
                side = _side(pair, i)
                if side["kernel"] not in sized:
                    start = started.get(side["kernel"]) or PAPER_START.get(side["kernel"])
                    sized[side["kernel"]] = calibrate(
                        side, args.target_ms, defines + pair.get("defines", []),
                        start=start if args.backend == "nvcc" else None,
                        backend=args.backend)
                sizes[i - 1] = sized[side["kernel"]][0]
            alone = (sized[pair["kernel1"]][1], sized[pair["kernel2"]][1])
        calibration = time.perf_counter() - began
        spec = pair_spec(pair, (sizes[0], sizes[1]), Path(tmp))
        report, seconds, why = profile(pair, spec, args.backend,
                                       defines + pair.get("defines", []), Path(tmp),
                                       ["--split-step", str(args.split_step)])
        rec = {"backend": args.backend, "pair": pair["name"], "kernel1": pair["kernel1"],
               "kernel2": pair["kernel2"], "sizes": sizes, "alone": alone,
               **({"device": gpu} if gpu else {}),
               "seconds": seconds, "calibration_seconds": round(calibration, 1),
               "date": datetime.date.today().isoformat()}
        if report is None:
            failures += 1
            rec.update(error=why, row=failed_row(pair, why))
        else:
            device = report["device"]["name"]
            rec.update(device=device, row=row(pair, report, seconds, alone),
                       report=report)
        rows.append(str(rec["row"]))
        if args.jsonl is not None:
            with args.jsonl.open("a") as f:
                f.write(json.dumps(rec) + "\n")
        if args.md is not None:
            args.md.write_text(table(rows, device, args.note, args.backend, sizes_note,
                                     untimed) + "\n")
        print(rows[-1], flush=True)
        print(f"{pair['name']}: calibration {calibration:.1f} s, profiling {seconds:.1f} s",
              flush=True)
    text = table(rows, device, args.note, args.backend, sizes_note, untimed)
    print(text)
    if args.md is not None:
        args.md.write_text(text + "\n")
    if args.write:
        write_section(args.write, text)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
