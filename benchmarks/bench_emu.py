"""Time the emu backend on a 9-kernel image pipeline of 3x3 stencils and point operations.

    .venv/bin/python benchmarks/bench_emu.py [--size 512] [--repeat 3]

Prints a table: build time (cached and uncached) and run time with the kernels' threads as a
plain loop (the default for barrier-free kernels) and with every kernel forced onto fibers.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from cudafuse.runtime import load

STENCIL = """
__global__ void {name}(const float *in, float *out, int w, int h) {{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float acc = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {{
      int xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), h - 1);
      acc += {weight} * in[yy * w + xx];
    }}
  out[y * w + x] = acc;
}}
"""
POINT = """
__global__ void {name}(const float *in, float *out, int w, int h) {{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float v = in[y * w + x];
  out[y * w + x] = {expr};
}}
"""
KERNELS = [
    ("blur1", STENCIL, {"weight": "(1.0f / 9.0f)"}),
    ("gain", POINT, {"expr": "1.5f * v + 0.1f"}),
    ("blur2", STENCIL, {"weight": "((dx == 0 && dy == 0) ? 0.5f : 0.0625f)"}),
    ("logk", POINT, {"expr": "__logf(1.0f + fabsf(v))"}),
    ("sharpen", STENCIL, {"weight": "((dx == 0 && dy == 0) ? 2.0f : -0.125f)"}),
    ("clampk", POINT, {"expr": "fminf(fmaxf(v, 0.0f), 4.0f)"}),
    ("edge", STENCIL, {"weight": "(float)dx"}),
    ("sq", POINT, {"expr": "v * v"}),
    ("blur3", STENCIL, {"weight": "(1.0f / 9.0f)"}),
]


def pipeline_source() -> str:
    parts = ["#include <cuda_runtime.h>"]
    parts += [tpl.format(name=name, **kw) for name, tpl, kw in KERNELS]
    calls = []
    for i, (name, _, _) in enumerate(KERNELS):
        src, dst = ("img", "t0") if i == 0 else (("t0", "t1") if i % 2 else ("t1", "t0"))
        if i == len(KERNELS) - 1:
            dst = "out"
        calls.append(f"  {name}<<<grid, block>>>({src}, {dst}, w, h);")
    parts.append("void pipeline(const float *img, float *out, float *t0, float *t1, int w, "
                 "int h) {\n  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);\n"
                 + "\n".join(calls) + "\n}\n")
    return "\n".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    n = args.size
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("CUDAFUSE_CACHE_DIR", str(Path(tmp) / "cache"))
        src = Path(tmp) / "pipeline9.cu"
        src.write_text(pipeline_source())
        img = np.random.default_rng(0).random(n * n, dtype=np.float32)
        rows = []
        t = time.perf_counter()
        lib = load(src)
        rows.append(("build (g++ -O2, uncached)", time.perf_counter() - t))
        t = time.perf_counter()
        lib.close()
        lib = load(src)
        rows.append(("build (cached) + worker start", time.perf_counter() - t))
        results = {}
        for label, fibers in (("plain loop", False), ("fibers forced", True)):
            if fibers:
                lib.close()
                lib = load(src, fibers=True)
            best = float("inf")
            for _ in range(args.repeat):
                out = np.zeros(n * n, np.float32)
                t0, t1 = np.zeros_like(out), np.zeros_like(out)
                t = time.perf_counter()
                lib.call("pipeline", img, out, t0, t1, n, n)
                best = min(best, time.perf_counter() - t)
            results[label] = out
            rows.append((f"run {n}x{n}, 9 kernels, {label} (best of {args.repeat})", best))
        lib.close()
        same = np.array_equal(results["plain loop"], results["fibers forced"])
    width = max(len(r[0]) for r in rows)
    print(f"{'what':<{width}}  seconds")
    for what, sec in rows:
        print(f"{what:<{width}}  {sec:7.3f}")
    print(f"plain loop and fibers give identical outputs: {same}")


if __name__ == "__main__":
    main()
