"""`__launch_bounds__` written through a macro is the bound clang applies: found by
expanding the head's macros as the unit defines them (frontend/macro_bounds.py), evaluated
for hfuse's default block (analysis/blocksize.py), never read from a comment or a skipped
branch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cudafuse.analysis.blocksize import launch_bound_threads
from cudafuse.analysis.c_constant import evaluate_c
from cudafuse.codegen.templates import KernelRef
from cudafuse.frontend.parse import parse_file

# PyTorch's c10/macros/Macros.h spelling, restated in our own words (the expansion computes
# the bound from constexpr limits).
MACROS = """\
#include <cuda_runtime.h>
constexpr unsigned MAX_BLOCK = 1024;
constexpr unsigned FALLBACK_BLOCK = 256;
constexpr unsigned MAX_SM_THREADS = 2048;
#define CAP_THREADS(v) (((v) <= MAX_BLOCK) ? (v) : FALLBACK_BLOCK)
#define MIN_BLOCKS(t, b) \\
  ((((t) * (b) <= MAX_SM_THREADS) ? (b) : ((MAX_SM_THREADS + (t) - 1) / (t))))
#define BOUNDS_1(t) __launch_bounds__((CAP_THREADS((t))))
#define BOUNDS_2(t, b) \\
  __launch_bounds__((CAP_THREADS((t))), (MIN_BLOCKS((t), (b))))
#define LB __launch_bounds__(256)
#define BOUND(n) __launch_bounds__(n)
"""

KERNELS = MACROS + """\
__global__ void LB plain(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.f;
}
template <typename T>
BOUNDS_1(128)
__global__ void one(T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2;
}
__global__ void BOUNDS_2(4096, 4) two(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = -x[i];
}
__global__ void BOUND(64) arg(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] -= 3.f;
}
__global__ void /* LB */ commented(float *x) { x[threadIdx.x] = 0.f; }
__global__ void __launch_bounds__(256 + -32 % 5) signed_rest(float *x) { x[threadIdx.x] = 2.f; }
#if 0
#define HIDDEN __launch_bounds__(32)
#else
#define HIDDEN
#endif
__global__ void HIDDEN skipped(float *x) { x[threadIdx.x] = 1.f; }
"""


@pytest.fixture(scope="module")
def unit(tmp_path_factory):
    src = tmp_path_factory.mktemp("mb") / "k.cu"
    src.write_text(KERNELS)
    return parse_file(str(src)).unit


def _threads(unit, name: str) -> int | None:
    fn = next(f for f in unit.kernels if f.name == name)
    return launch_bound_threads(unit, KernelRef(fn, tuple((p, "float")
                                                          for p in fn.template_params)))


def test_bounds_through_macros_as_clang_expands_them(unit) -> None:
    bounds = {f.name: f.launch_bounds for f in unit.kernels}
    assert bounds["plain"] == "256"
    assert bounds["arg"] == "64"
    assert bounds["one"] == "(((((128)) <= MAX_BLOCK) ? ((128)) : FALLBACK_BLOCK))"
    assert bounds["two"].count("4096") == 5 and "MIN_BLOCKS" not in bounds["two"]
    # A comment and a definition under #if 0 are nothing clang applies.
    assert bounds["commented"] == "" and bounds["skipped"] == ""


def test_thread_counts_evaluate_over_constexpr_limits(unit) -> None:
    assert [_threads(unit, k) for k in ("plain", "one", "two", "arg", "commented")] == \
        [256, 128, 256, 64, None]  # two: 4096 is over MAX_BLOCK, so FALLBACK_BLOCK
    # C's remainder takes the dividend's sign (Python's the divisor's: 259).
    assert _threads(unit, "signed_rest") == 254


def test_c_constant_expressions() -> None:
    assert evaluate_c("(7 <= N) ? -7 / 2 : 0", {"N": "8u"}) == -3  # C truncates
    assert evaluate_c("0x10 << 2 | 1 && 0 || !0", {}) == 1
    # exact past a double's 53 bits and past its range (no OverflowError): `/` and `%`
    big = 10 ** 400 + 7
    assert evaluate_c(f"-{big} / 3 + {big} % 10", {}) == -(big // 3) + 7
    assert evaluate_c("(1 << 60) * 3 / 7", {}) == (3 << 60) // 7
    for bad in ("N", "1 / 0", "(1", "1 ? 2", "1 2"):
        with pytest.raises(ValueError):
            evaluate_c(bad, {})


def test_hfuse_takes_the_default_block_from_a_macro_bound(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from cudafuse.cli import main

    src = tmp_path / "k.cu"
    src.write_text(KERNELS)
    res = CliRunner().invoke(main, ["hfuse", str(src), "--kernels", "one<float>,arg", "-o",
                                    str(tmp_path / "f.cu"), "--report",
                                    str(tmp_path / "r.json")])
    assert res.exit_code == 0, res.output
    p1, p2 = json.loads((tmp_path / "r.json").read_text())["parts"]
    assert (p1["threads"], p2["threads"]) == (128, 64)


def test_expansion_of_the_head() -> None:
    from cudafuse.frontend.macro_bounds import macro_launch_bounds

    table = {
        "VA": (("...",), ("__launch_bounds__", "(", "__VA_ARGS__", ")")),
        "PASTE": (("a",), ("__launch_bounds__", "(", "a", "##", "0", ")")),
        "SELF": (None, ("SELF",)),
        "TWICE": None,  # defined twice, differently: which applies is not guessed
        "N": (None, ("2", "*", "N2")),
        "N2": (None, ("64",)),
    }
    assert macro_launch_bounds("__global__ void VA(N, 2)", table) == "2 * 64, 2"
    assert macro_launch_bounds("__global__ void PASTE(1)", table) == ""
    assert macro_launch_bounds("__global__ void SELF", table) == ""
    assert macro_launch_bounds("__global__ void TWICE", table) == ""
    assert macro_launch_bounds("__global__ void VA", table) == ""  # not a call
