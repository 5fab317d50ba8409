"""How cudafuse's own cost grows with the size of its input (issue 27).

Two families of generated inputs, timed in this process (best of --repeat, after one warm-up
of the imports):
  files   generated .cu files of 1k-50k lines (the kernels and host pipelines of
          bench_analyze.py, repeated): `analyze` (parse + every analysis, as
          cudafuse.api.analyze) against a bare libclang parse of the same file
          (libclang's parse with cudafuse's arguments and precompiled shim, no lowering);
  chains  one host function launching a chain of 50-1,000 stage kernels (a point or a 3x3
          stencil each, one buffer per stage; --shape pingpong: two buffers alternating,
          a -> b -> a ...; --shape fanout: one producer, every other stage reading its
          buffer into its own output): `analyze`, `plan` (the vertical pass, nothing
          written) and `fuse` (cudafuse.api.fuse: plan, emit, reparse the output) against the
          bare parse and against `analyze`. `fuse` runs without nvcc (CUDAFUSE_NO_PTXAS,
          CUDAFUSE_NO_NVCC_CHECK): cudafuse's own cost; --nvcc adds a column with nvcc's
          compile of the output and ptxas's figures, cold (an empty cache directory).

Times are CPU seconds of the process and its children (--wall: wall-clock seconds), since
the machines this runs on are shared. Each row prints the seconds and the ratios the issue
sets targets for: analyze within 4x of the bare parse at 20k and 50k lines; plan and fuse
within 4x of analyze on a 200-launch chain and a 1,000-launch chain under a minute.

    .venv/bin/python benchmarks/bench_scale.py            # the whole table (several minutes)
    .venv/bin/python benchmarks/bench_scale.py --quick    # a small slice (about half a minute)
    .venv/bin/python benchmarks/bench_scale.py --lines 20000 --launches 200
"""

from __future__ import annotations

import argparse
import functools
import gc
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_analyze import generate as generate_file  # noqa: E402

import cudafuse  # noqa: E402
from cudafuse.frontend import ParseOptions  # noqa: E402

FILE_LINES = (1000, 5000, 20000, 50000)
CHAIN_LAUNCHES = (50, 200, 400, 1000)
QUICK_LINES = (1000, 5000)
QUICK_LAUNCHES = (50, 100)

POINT = """
__global__ void stage_{i}(const float *in, float *out, int w, int h) {{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[y * w + x] * {a}.5f + 1.0f;
}}
"""

STENCIL = """
__global__ void stage_{i}(const float *in, float *out, int w, int h) {{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += in[min(max(y + dy, 0), h - 1) * w + min(max(x + dx, 0), w - 1)];
  out[y * w + x] = s / 9.0f;
}}
"""


def generate_chain(launches: int) -> str:
    """A host function launching `launches` stages one after another, each reading the
    previous stage's buffer (every third stage a 3x3 stencil, the others point-wise)."""
    kernels = [(STENCIL if i % 3 == 2 else POINT).format(i=i, a=i % 7)
               for i in range(launches)]
    body = ["  dim3 block(16, 16);",
            "  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);",
            "  size_t bytes = (size_t)w * h * sizeof(float);"]
    for i in range(1, launches):
        body.append(f"  float *t{i};")
        body.append(f"  cudaMalloc(&t{i}, bytes);")
    names = ["in", *(f"t{i}" for i in range(1, launches)), "out"]
    for i in range(launches):
        body.append(f"  stage_{i}<<<grid, block>>>({names[i]}, {names[i + 1]}, w, h);")
    for i in range(1, launches):
        body.append(f"  cudaFree(t{i});")
    host = ('extern "C" void pipeline(const float *in, float *out, int w, int h) {\n'
            + "\n".join(body) + "\n}\n")
    return "#include <cuda_runtime.h>\n" + "".join(kernels) + host


def _host(params: str, body: list[str], temps: list[str]) -> str:
    head = ["  dim3 block(16, 16);",
            "  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);",
            "  size_t bytes = (size_t)w * h * sizeof(float);"]
    for t in temps:
        head += [f"  float *{t};", f"  cudaMalloc(&{t}, bytes);"]
    tail = [f"  cudaFree({t});" for t in temps]
    return (f'extern "C" void pipeline({params}, int w, int h) {{\n'
            + "\n".join(head + body + tail) + "\n}\n")


def generate_pingpong(launches: int) -> str:
    """A host function launching `launches` stages that alternate between two buffers
    (a -> b -> a -> b ...): every buffer is written, read and overwritten again, so each
    stage has a true, an anti and an output dependence on its neighbours."""
    kernels = [(STENCIL if i % 3 == 2 else POINT).format(i=i, a=i % 7)
               for i in range(launches)]
    names = ["a", "b"]
    body = [f"  stage_{i}<<<grid, block>>>({names[i % 2]}, {names[(i + 1) % 2]}, w, h);"
            for i in range(launches)]
    return ("#include <cuda_runtime.h>\n" + "".join(kernels)
            + _host("float *a, float *b", body, []))


def generate_fanout(launches: int) -> str:
    """A DAG with fan-out: stage 0 writes one buffer that every other stage reads, each
    writing its own output (one producer, launches - 1 consumers)."""
    kernels = [(STENCIL if i % 3 == 2 else POINT).format(i=i, a=i % 7)
               for i in range(launches)]
    outs = [f"o{i}" for i in range(1, launches)]
    body = ["  stage_0<<<grid, block>>>(in, t, w, h);"]
    body += [f"  stage_{i}<<<grid, block>>>(t, o{i}, w, h);" for i in range(1, launches)]
    params = ", ".join(["const float *in", *(f"float *{o}" for o in outs)])
    return "#include <cuda_runtime.h>\n" + "".join(kernels) + _host(params, body, ["t"])


SHAPES: dict[str, Callable[[int], str]] = {
    "chain": generate_chain,
    "pingpong": generate_pingpong,
    "fanout": generate_fanout,
}


def bare_parse(path: str) -> Callable[[], object]:
    """libclang's parse of `path` with the arguments and shim cudafuse gives it, and nothing
    else: the floor every cudafuse command stands on."""
    from cudafuse.frontend.parse import _parse  # the parse itself, with the shim's PCH

    content = Path(path).read_bytes()
    return lambda: _parse(path, ParseOptions(), content=content)


def cpu_seconds() -> float:
    """CPU time of this process and of the children it waited for (ptxas, a reparse): on a
    shared, loaded machine the wall clock measures the neighbours as much as cudafuse."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


CLOCK: Callable[[], float] = cpu_seconds


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = CLOCK()
        fn()
        times.append(CLOCK() - start)
    return min(times)


def plan(path: str) -> object:
    """The vertical pass on the parsed unit, as `cudafuse plan` runs it (nothing emitted
    is reparsed or written)."""
    from cudafuse.passes import run_pass
    from cudafuse.passes.vertical.driver import FuseOptions
    from cudafuse.passes.vertical.kernel.respell import parse_for_fusion

    options = ParseOptions(included_kernels=True)
    result, _ = parse_for_fusion(path, options)
    return run_pass("vertical", [result.unit], FuseOptions(arch=options.arch))


def front_end(path: str) -> object:
    """The parse and the lowering to the IR, as `analyze` runs them (no analysis)."""
    from cudafuse.frontend.parse import parse_file

    return parse_file(path, ParseOptions(included_kernels=True))


def file_rows(lines: tuple[int, ...], tmp: Path, repeat: int) -> None:
    """`lowered s`: the parse and the lowering (the front end), so that analyze's time
    splits into the parse, the lowering (lowered - parse) and the analyses (analyze -
    lowered)."""
    print(f"{'generated file':<24} {'parse s':>9} {'lowered s':>10} {'analyze s':>10} "
          f"{'ratio':>7}")
    for n in lines:
        path = str(tmp / f"file_{n}.cu")
        Path(path).write_text(generate_file(n))
        bare = best_of(repeat, bare_parse(path))
        low = best_of(repeat, functools.partial(front_end, path))
        ana = best_of(repeat, functools.partial(cudafuse.analyze, path))
        print(f"{n:>7} lines{'':<12} {bare:9.2f} {low:10.2f} {ana:10.2f} {ana / bare:6.1f}x",
              flush=True)


def fuse(path: str, nvcc: bool, tmp: Path) -> object:
    """cudafuse.api.fuse; without nvcc unless `nvcc` (then with a fresh cache directory)."""
    keys = ("CUDAFUSE_NO_PTXAS", "CUDAFUSE_NO_NVCC_CHECK", "CUDAFUSE_CACHE_DIR")
    saved = {k: os.environ.get(k) for k in keys}
    if nvcc:
        os.environ["CUDAFUSE_CACHE_DIR"] = tempfile.mkdtemp(dir=tmp, prefix="cache-")
        os.environ.pop("CUDAFUSE_NO_PTXAS", None)
        os.environ.pop("CUDAFUSE_NO_NVCC_CHECK", None)
    else:
        os.environ["CUDAFUSE_NO_PTXAS"] = os.environ["CUDAFUSE_NO_NVCC_CHECK"] = "1"
    try:
        return cudafuse.fuse(path)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def chain_rows(launches: tuple[int, ...], tmp: Path, repeat: int, do_fuse: bool,
               nvcc: bool, shape: str = "chain") -> None:
    print(f"{shape:<16} {'parse s':>8} {'analyze s':>10} {'plan s':>8} {'fuse s':>8}"
          + (f" {'+nvcc s':>8}" if nvcc else "")
          + f" {'analyze/parse':>14} {'plan/analyze':>13} {'fuse/analyze':>13}")
    nan = float("nan")
    for n in launches:
        path = str(tmp / f"{shape}_{n}.cu")
        Path(path).write_text(SHAPES[shape](n))
        bare = best_of(repeat, bare_parse(path))
        ana = best_of(repeat, functools.partial(cudafuse.analyze, path))
        pln = best_of(repeat, functools.partial(plan, path))
        fus = best_of(repeat, functools.partial(fuse, path, False, tmp)) if do_fuse else nan
        cold = best_of(repeat, functools.partial(fuse, path, True, tmp)) if nvcc else nan
        print(f"{n:>5} launches{'':<2} {bare:8.2f} {ana:10.2f} {pln:8.2f} {fus:8.2f}"
              + (f" {cold:8.2f}" if nvcc else "")
              + f" {ana / bare:13.1f}x {pln / ana:12.1f}x {fus / ana:12.1f}x", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a small slice: "
                    f"files of {QUICK_LINES} lines, chains of {QUICK_LAUNCHES} launches")
    ap.add_argument("--lines", type=int, action="append", help="file sizes (repeatable)")
    ap.add_argument("--launches", type=int, action="append", help="chain lengths (repeatable)")
    ap.add_argument("--repeat", type=int, default=1, help="best of N (default 1)")
    ap.add_argument("--shape", action="append", choices=sorted(SHAPES),
                    help="launch sequences: chain (default; one buffer per stage), pingpong "
                    "(two buffers alternating), fanout (one producer, the others its "
                    "consumers); repeatable")
    ap.add_argument("--no-fuse", action="store_true", help="time analyze and plan only")
    ap.add_argument("--nvcc", action="store_true",
                    help="also time fuse with nvcc's checks of the output, cold")
    ap.add_argument("--wall", action="store_true",
                    help="wall-clock seconds instead of CPU seconds (an idle machine)")
    args = ap.parse_args()
    if args.wall:
        global CLOCK
        CLOCK = time.perf_counter
    print(f"{'wall-clock' if args.wall else 'CPU'} seconds, best of {args.repeat}")
    lines = tuple(args.lines or ()) or (QUICK_LINES if args.quick else FILE_LINES)
    launches = tuple(args.launches or ()) or (QUICK_LAUNCHES if args.quick else CHAIN_LAUNCHES)
    if args.lines and not args.launches:
        launches = ()
    if args.launches and not args.lines:
        lines = ()
    # The collector's thresholds the command line sets (cli/group.py main): the figures are
    # those of `cudafuse analyze/plan/fuse`, not of a library caller's own settings.
    gc.set_threshold(max(gc.get_threshold()[0], 20000), 50, 100)
    with tempfile.TemporaryDirectory(prefix="cudafuse-scale-") as tmp:
        warm = Path(tmp) / "warm.cu"
        warm.write_text(generate_chain(3))
        cudafuse.analyze(str(warm))  # imports and the shim's PCH, outside the figures
        if lines:
            file_rows(lines, Path(tmp), args.repeat)
        for shape in (args.shape or ["chain"]) if launches else ():
            chain_rows(launches, Path(tmp), args.repeat, not args.no_fuse, args.nvcc, shape)
    return 0


if __name__ == "__main__":
    sys.exit(main())
