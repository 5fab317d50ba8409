"""Horizontal fusion of kernels as libraries write them: per pair and mode, whether hfuse
fuses (its output compiled again before it is written: codegen/compile_check.py), refuses
(with its located reason) or writes an output that does not compile (which would be a bug:
it is an error, exit 1), and whether `verify --hfuse` finds the fused launcher exact against
the original kernels under the CPU emulator.

The corpus is tests/hfuse/programs/aten/ and crypto/: kernels written for cudafuse's tests
in the style of PyTorch ATen (templates in at::native and at::cuda, an anonymous namespace
with the file's own min, an enum template parameter, a template template parameter) and of
ccminer (global kernels, commented-out launch bounds, a helper header pasted under its
include guard). Run from the repository root:

    .venv/bin/python benchmarks/hfuse_library_pairs.py [--nvcc]

(--nvcc: also compile every output with nvcc, as a user's run does; off by default here.)
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "tests" / "hfuse" / "programs"

# (file, kernel as --kernels names it, its run spec, its block)
KERNELS = {
    "im2col": ("aten/im2col.cu", "at::native::im2col_kernel<float>", "aten/im2col.toml", 128),
    "maxpool": ("aten/maxpool.cu", "max_pool_forward_nchw<float, float>", "aten/maxpool.toml",
                256),
    "histogram": ("aten/histogram.cu", "at::cuda::kernelHistogram1D<int, float, int>",
                  "aten/histogram.toml", 256),
    "batchnorm": ("aten/batchnorm.cu",
                  "batch_norm_collect_statistics_kernel<InvStd, float, float, int>",
                  "aten/batchnorm.toml", 128),
    "blake": ("crypto/blakeish.cu", "blake_hash", "crypto/blake.toml", 128),
    "sha256d": ("crypto/shaish.cu", "sha256d_hash", "crypto/sha.toml", 128),
}
PAIRS = [("im2col", "maxpool"), ("im2col", "histogram"), ("batchnorm", "histogram"),
         ("maxpool", "histogram"), ("batchnorm", "maxpool"), ("blake", "sha256d"),
         ("blake", "maxpool"), ("sha256d", "im2col"), ("histogram", "blake")]
MODES = ("thread", "block")


def run_pair(a: str, b: str, mode: str, tmp: Path) -> str:
    import cudafuse
    from cudafuse.cli.verify_hfuse import verify_hfuse
    from cudafuse.diagnostics import CudafuseError
    from cudafuse.frontend import ParseOptions

    (fa, ka, sa, ba), (fb, kb, sb, bb) = KERNELS[a], KERNELS[b]
    out = tmp / f"{a}_{b}_{mode}.cu"
    try:
        fused = cudafuse.hfuse(str(PROGRAMS / fa), str(PROGRAMS / fb), kernels=(ka, kb),
                               block1=ba, block2=bb, mode=mode, output=str(out))
    except CudafuseError as exc:
        first = exc.diagnostics[0].format(caret=False).replace(str(PROGRAMS) + "/", "")
        kind = "output does not compile" if "does not compile" in first else "refused"
        return f"{kind}: {first.replace(str(tmp) + '/', '')}"
    out.write_text(fused.text)
    try:
        ok = verify_hfuse((str(PROGRAMS / fa), str(PROGRAMS / fb), str(out)), None, None,
                          str(PROGRAMS / sa), str(PROGRAMS / sb), "emu", 120.0, False,
                          ParseOptions())
    except CudafuseError as exc:
        return f"fused; verify failed: {exc.diagnostics[0].format(caret=False)}"
    return "fused, verified exact" if ok else "fused, OUTPUTS DIFFER"


def main() -> int:
    if "--nvcc" not in sys.argv:
        os.environ["CUDAFUSE_NO_NVCC_CHECK"] = "1"
    bad = 0
    print("| pair | mode | result | s |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="cudafuse-libpairs-") as tmp:
        for a, b in PAIRS:
            for mode in MODES:
                t0 = time.perf_counter()
                got = run_pair(a, b, mode, Path(tmp))
                bad += got.startswith(("output does not compile", "fused, OUTPUTS", "fused;"))
                print(f"| {a} + {b} | {mode} | {got} | {time.perf_counter() - t0:.0f} |",
                      flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
