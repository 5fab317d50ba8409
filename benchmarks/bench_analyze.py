"""How long `cudafuse analyze` takes on a realistic ~2,000-line .cu file.

Generates the file (many kernels of the shapes the corpus has, plus host pipelines launching
them) into a temporary directory, then times, best of N:
  parse      cudafuse.frontend.parse_file
  report     cudafuse.analysis.report.build_report on the parsed unit
  cli        `cudafuse analyze FILE --format json` end to end, in a subprocess (also with
             <vector>, <iostream>, <algorithm> and <string> included, as host code does)
and also the bare libclang parse of an empty file with the shim and `cudafuse analyze` of an
empty file (interpreter start-up and imports), to show the fixed costs.

The package's bytecode is compiled first, as `pip install` does for an installed package:
with PYTHONDONTWRITEBYTECODE set (as on some CI machines) an editable install would otherwise
recompile every module on every run, about 55 ms that no user of an installed cudafuse pays.

    .venv/bin/python benchmarks/bench_analyze.py [--lines 2000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import compileall
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import cudafuse
from cudafuse.analysis.report import build_report
from cudafuse.frontend import parse_file

HEADER = """\
#include <cstdio>
#include <cuda_runtime.h>

#define IDX(x, y, w) ((y) * (w) + (x))
#define CLAMP(v, lo, hi) min(max((v), (lo)), (hi))
"""

POINT = """
__global__ void point_{i}(const float *__restrict__ in, float *__restrict__ out, int w, int h,
                          float gain) {{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float v = in[IDX(x, y, w)];
  out[IDX(x, y, w)] = v * gain + {i}.0f;
}}
"""

STENCIL = """
__global__ void blur_{i}(const float *in, float *out, int w, int h) {{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; ++dy) {{
    for (int dx = -1; dx <= 1; ++dx) {{
      int xx = CLAMP(x + dx, 0, w - 1);
      int yy = CLAMP(y + dy, 0, h - 1);
      s += in[IDX(xx, yy, w)];
    }}
  }}
  out[IDX(x, y, w)] = s / 9.0f;
}}
"""

TILED = """
#define TILE_{i} 16
__global__ void tiled_{i}(const float *in, float *out, int w, int h) {{
  __shared__ float tile[TILE_{i} + 2][TILE_{i} + 2];
  int x = blockIdx.x * TILE_{i} + threadIdx.x;
  int y = blockIdx.y * TILE_{i} + threadIdx.y;
  int cx = CLAMP(x, 0, w - 1), cy = CLAMP(y, 0, h - 1);
  tile[threadIdx.y + 1][threadIdx.x + 1] = in[IDX(cx, cy, w)];
  if (threadIdx.x == 0) tile[threadIdx.y + 1][0] = in[IDX(max(cx - 1, 0), cy, w)];
  if (threadIdx.x == TILE_{i} - 1)
    tile[threadIdx.y + 1][TILE_{i} + 1] = in[IDX(min(cx + 1, w - 1), cy, w)];
  __syncthreads();
  if (x >= w || y >= h) return;
  out[IDX(x, y, w)] = 0.25f * (tile[threadIdx.y + 1][threadIdx.x] +
                               2.0f * tile[threadIdx.y + 1][threadIdx.x + 1] +
                               tile[threadIdx.y + 1][threadIdx.x + 2]);
}}
"""

REDUCE = """
__global__ void reduce_{i}(const float *in, float *out, int n) {{
  extern __shared__ float sdata[];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {{
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }}
  if (tid == 0) atomicAdd(out, sdata[0]);
}}
"""

HOST = """
extern "C" void pipeline_{i}(const float *in, float *a, float *b, float *sum, int w, int h) {{
  dim3 block(16, 16);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  point_{i}<<<grid, block>>>(in, a, w, h, 1.5f);
  blur_{i}<<<grid, block>>>(a, b, w, h);
  tiled_{i}<<<grid, block>>>(b, a, w, h);
  reduce_{i}<<<(w * h + 255) / 256, 256, 256 * sizeof(float)>>>(a, sum, w * h);
}}
"""


CXX_INCLUDES = ("vector", "iostream", "algorithm", "string")


def generate(lines: int) -> str:
    parts = [HEADER]
    i = 0
    while sum(p.count("\n") for p in parts) < lines:
        parts += [t.format(i=i) for t in (POINT, STENCIL, TILED, REDUCE, HOST)]
        i += 1
    return "".join(parts)


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    exe = str(Path(sys.executable).parent / "cudafuse")
    compileall.compile_dir(str(Path(cudafuse.__file__).parent), quiet=1)
    with tempfile.TemporaryDirectory(prefix="cudafuse-bench-") as tmp:
        src = Path(tmp) / "bench.cu"
        src.write_text(generate(args.lines))
        empty = Path(tmp) / "empty.cu"
        empty.write_text("")
        cxx = Path(tmp) / "bench_cxx.cu"  # the same with a C++ host side's usual headers
        cxx.write_text("".join(f"#include <{h}>\n" for h in CXX_INCLUDES) + src.read_text())
        unit = parse_file(str(src)).unit
        n_lines = src.read_text().count("\n")
        def cli(path: Path) -> Callable[[], object]:
            return lambda: subprocess.run([exe, "analyze", str(path), "--format", "json"],
                                          check=True, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL)

        rows = [
            ("parse (empty file: shim only)", best_of(args.repeat, lambda: parse_file(str(empty)))),
            ("cudafuse analyze (empty file)", best_of(args.repeat, cli(empty))),
            ("parse_file", best_of(args.repeat, lambda: parse_file(str(src)))),
            ("build_report", best_of(args.repeat, lambda: build_report(unit))),
            ("cudafuse analyze (subprocess)", best_of(args.repeat, cli(src))),
            ("... with " + ", ".join(f"<{h}>" for h in CXX_INCLUDES),
             best_of(args.repeat, cli(cxx))),
        ]
    print(f"{n_lines} lines, {len(unit.kernels)} kernels, {len(unit.launches)} host pipelines; "
          f"best of {args.repeat}")
    for name, secs in rows:
        print(f"  {name:<48} {secs * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
