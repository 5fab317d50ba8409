"""`cudafuse verify`'s fixed cost: the time of a verify whose programs do almost nothing.

    .venv/bin/python benchmarks/bench_verify.py [--repeat 5]

Writes a two-kernel program (64 floats), fuses it with `cudafuse fuse`, then times
`cudafuse verify ORIGINAL FUSED --spec S` as a user runs it (a fresh process each time):
cold (an empty build cache: both programs compiled) and warm (the cache filled by the cold
run). Each line gives wall time and CPU time (the command and every process it waited for:
g++, the emulation workers), the median of --repeat runs. On a machine shared with other
work the wall time grows with the load; the CPU time is what the tool itself spends.
verify runs three programs: the original twice (fresh device memory filled with 0x00, then
0xff) and the fused one once. The package's bytecode is compiled first, as an install does.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cudafuse

PROGRAM = """#include <cuda_runtime.h>
__global__ void scale(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = 2.0f * in[i];
}
__global__ void shift(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}
void pipeline(const float *in, float *out, float *t, int n) {
  float *din, *dout, *dt;
  cudaMalloc(&din, n * sizeof(float));
  cudaMalloc(&dout, n * sizeof(float));
  cudaMalloc(&dt, n * sizeof(float));
  cudaMemcpy(din, in, n * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<(n + 31) / 32, 32>>>(din, dt, n);
  shift<<<(n + 31) / 32, 32>>>(dt, dout, n);
  cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(din);
  cudaFree(dout);
  cudaFree(dt);
}
"""
SPEC = """entry = "pipeline"
[sizes]
n = 64
[[args]]
name = "in"
dtype = "float32"
count = "n"
init = "uniform(0, 1)"
role = "in"
[[args]]
name = "out"
dtype = "float32"
count = "n"
role = "out"
[[args]]
name = "t"
dtype = "float32"
count = "n"
init = "const(nan)"
role = "in"
[[args]]
name = "n"
value = "n"
"""


def _timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of `cmd` (its children's CPU included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    exe = str(Path(sys.executable).parent / "cudafuse")
    # as `pip install` does (where PYTHONDONTWRITEBYTECODE is set, an editable install
    # otherwise recompiles every module it imports on every run)
    compileall.compile_dir(str(Path(cudafuse.__file__).parent), quiet=1)
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as tmp:
        work = Path(tmp)
        (work / "p.cu").write_text(PROGRAM)
        (work / "p.toml").write_text(SPEC)
        cache = work / "cache"
        env = {**os.environ, "CUDAFUSE_CACHE_DIR": str(cache)}
        subprocess.run([exe, "fuse", str(work / "p.cu"), "-o", str(work / "f.cu"),
                        "--scratch", "t"], env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        verify = [exe, "verify", str(work / "p.cu"), str(work / "f.cu"), "--spec",
                  str(work / "p.toml")]
        cold, warm = [], []
        for _ in range(args.repeat):
            shutil.rmtree(cache, ignore_errors=True)
            cold.append(_timed(verify, env))
            warm.append(_timed(verify, env))
        start = [_timed([sys.executable, "-c", "pass"], env) for _ in range(args.repeat)]
    print(f"verify of a 2-kernel program, 64 floats, median of {args.repeat} "
          f"({os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}):")
    for label, runs in (("cold (empty build cache)", cold), ("warm", warm),
                        ("bare python start, for scale", start)):
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        print(f"  {label:30s} wall {wall:6.2f} s   cpu {cpu:6.2f} s")


if __name__ == "__main__":
    main()
