"""What one emulator build costs, split into what every program pays and what its kernels add.

    .venv/bin/python benchmarks/bench_emu_build.py [--opt -O0] [--repeat 3]

Builds (uncached, the emulator header precompiled as in a test run) a program with no kernel,
one with a kernel launched once between cudaMalloc/cudaMemcpy/cudaFree, the same with 20
kernels, and samples/harris.cu, and prints the CPU seconds g++ spent on each (the median of
--repeat builds, each of a fresh copy: CPU, not wall, so that a busy machine reads the same).
The difference between the first two is what the emulator's headers cost a program that
launches a kernel (the launch templates and what they instantiate); the runtime's functions
that are not templates, and the launch code past the kernel's type (Launch::run_erased), are
compiled once per cache (emu/runtime.cpp, made by the warm-up builds and not counted here).
The test suite's CPU is mostly emulator builds (issue 27, benchmarks/suite_cpu.py).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNEL = ("__global__ void k{i}(float *a, int n) {{\n"
          "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
          "  if (i < n) a[i] = a[i] * {i}.5f + 1.0f;\n}}\n")


def program(kernels: int) -> str:
    if not kernels:
        return "int twice(int n) { return 2 * n; }\n"
    body = "".join(KERNEL.format(i=i) for i in range(kernels))
    launches = "".join(f"  k{i}<<<(n + 127) / 128, 128>>>(d, n);\n" for i in range(kernels))
    return ("#include <cuda_runtime.h>\n" + body + "extern \"C\" void run(float *h, int n) {\n"
            "  float *d;\n  cudaMalloc(&d, n * sizeof(float));\n"
            "  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);\n" + launches +
            "  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);\n"
            "  cudaFree(d);\n}\n")


def children_cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--opt", default="-O0", help="g++ level (the test suite builds at -O0)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cudafuse-bench-build-") as tmp:
        os.environ["CUDAFUSE_CACHE_DIR"] = str(Path(tmp) / "cache")
        from cudafuse.runtime.build import BuildOptions, build  # noqa: PLC0415 - after the env

        opts = BuildOptions(opt=args.opt)
        cases = {"no kernel (a host function)": program(0),
                 "1 kernel, launched, with cudaMalloc/Memcpy": program(1),
                 "20 kernels, each launched": program(20),
                 "samples/harris.cu": (ROOT / "samples" / "harris.cu").read_text()}
        # The precompiled header is made the second time its options are asked for; the
        # prebuilt runtime object (emu/runtime.cpp) the first time.
        for n in range(2):
            warm = Path(tmp) / f"warm{n}.cu"
            warm.write_text(program(1) + f"int warm{n};\n")
            build(str(warm), "emu", opts)
        print(f"emulator build, g++ {args.opt}, CPU seconds (median of {args.repeat})")
        for label, text in cases.items():
            times = []
            for r in range(args.repeat):
                src = Path(tmp) / f"case{len(times)}_{r}_{abs(hash(label))}.cu"
                src.write_text(text + f"// copy {r}\n")  # a new key: never cached
                before = children_cpu()
                build(str(src), "emu", opts)
                times.append(children_cpu() - before)
            print(f"  {statistics.median(times):6.2f}  {label}")


if __name__ == "__main__":
    main()
