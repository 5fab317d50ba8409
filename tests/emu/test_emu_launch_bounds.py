"""A launch over the kernel's __launch_bounds__ fails under the emulator as on a GPU: the
launch's error is cudaErrorLaunchOutOfResources, the kernel does not run, and a warning names
the kernel, the block and the bound (emu/launch_bounds.py, cudafuse_emu_launch.h)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest_emu import PROGRAMS, assert_nvcc_compiles

from cudafuse.cli import main
from cudafuse.runtime import load
from cudafuse.runtime.errors import KernelError

PROGRAM = PROGRAMS / "launch_bounds.cu"
N = 300


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAM, opt="-O0") as built:
        yield built


# (threads a block, launches refused (bits of run()), each element afterwards from 1.0)
# bits: 1 scale (#define 128), 2 add_one<128>, 4 add_one<256> (template), 8 negate
# (__maxnreg__ only, 1024 threads), 16 sub3 (64, 1, 1) through cudaLaunchKernel.
CASES = [
    (64, 0, -(1 * 2 + 1 + 1) - 3),  # every bound holds (sub3's at exactly 64)
    (128, 16, -(1 * 2 + 1 + 1)),  # at the bound of scale and add_one<128>
    (256, 1 | 2 | 16, -(1 + 1)),  # only add_one<256> and negate run
]


def test_a_launch_over_the_bound_fails_and_does_not_run(capfd):
    # Its own worker, started while capfd holds stderr (the warning is the worker's).
    with load(PROGRAM, opt="-O0") as lib:
        for threads, refused, value in CASES:
            x = np.ones(N, np.float32)
            assert lib.call("run", x, N, threads) == refused, threads
            np.testing.assert_array_equal(x, np.full(N, value, np.float32))
            err = capfd.readouterr().err
            assert ("warning" in err) == bool(refused), err
            if refused & 1:
                assert (f"launch_bounds.cu:35: launch of 'scale' with block ({threads},1,1) = "
                        f"{threads} threads fails on a GPU: its __launch_bounds__(SCALE_THREADS,"
                        " SCALE_MIN_BLOCKS) (") in err
                assert "launch_bounds.cu:11) allows at most 128 threads a block" in err
                assert "launch_bounds.cu:37: launch of 'add_one" in err
            if refused & 16:
                assert "__launch_bounds__(64, 1, 1)" in err
            assert "'negate'" not in err


def test_a_direct_launch_over_the_bound_is_an_error(lib):
    """From Python or a spec nothing checks the launch's error: it is raised."""
    x = np.ones(N, np.float32)
    with pytest.raises(KernelError, match=r"launch of 'sub3' with block \(65,1,1\) = 65 "
                       r"threads fails on a GPU: its __launch_bounds__\(64, 1, 1\) .* at "
                       r"most 64 threads a block"):
        lib.launch("sub3", grid=(5, 1, 1), block=(65, 1, 1), shared=0, args=(x, N))
    np.testing.assert_array_equal(x, np.ones(N, np.float32))
    lib.launch("sub3", grid=(5, 1, 1), block=(64, 1, 1), shared=0, args=(x, N))
    np.testing.assert_array_equal(x, np.full(N, -2, np.float32))


def test_the_runtime_reports_the_bound_before_a_launch(lib):
    out = np.zeros(6, np.int32)
    lib.call("query", out)
    # scale: at most 128; its best block for occupancy is then 128; sub3 (64, 1, 1) by its
    # address; negate (__maxnreg__ only) the device's 1024; no block of 256 is resident.
    assert out[:4].tolist() == [128, 128, 64, 1024]
    assert out[4] == 0 and out[5] > 0


def test_run_of_a_program_over_the_bound_fails_with_the_bound(tmp_path: Path, capfd) -> None:
    """The program's own check sees the error and exits 1; the warning says why. (The
    program itself, not a copy: its build is the one the tests above made.)"""
    (tmp_path / "lb.toml").write_text('entry = "main"\n')
    res = CliRunner().invoke(main, ["run", str(PROGRAM), "--spec", str(tmp_path / "lb.toml")])
    assert res.exit_code == 1, res.output
    err = capfd.readouterr().err
    assert "CUDA error cudaErrorLaunchOutOfResources" in err
    assert ("launch of 'scale' with block (256,1,1) = 256 threads fails on a GPU: its "
            "__launch_bounds__(SCALE_THREADS, SCALE_MIN_BLOCKS)") in err


# nvcc checks this test's own program, no cudafuse code: its verdict changes only with the
# program or the toolkit, so `make test-slow` runs it (about 2-11 CPU-s; issue 27).
@pytest.mark.nvcc
@pytest.mark.slow
def test_program_compiles_with_nvcc(tmp_path):
    assert_nvcc_compiles(PROGRAM, tmp_path)


SKIPPED = """
#define MAXOF(a, b) ((a) > (b) ? (a) : (b))
constexpr int threads = 128;
__global__ void __launch_bounds__(threads) shadowed(float *x, int threads) { x[0] = threads; }
__global__ void __launch_bounds__(MAXOF(64, 128)) nested(float *x) { x[0] = 1; }
__global__ void __launch_bounds__(threads, 2) checked(float *x) { x[0] = 2; }
namespace ns { __global__ void outside(float *x); }
__global__ void __launch_bounds__(64) ns::outside(float *x) { x[0] = 3; }
"""


def test_the_check_is_left_out_where_the_body_cannot_evaluate_the_bound(tmp_path: Path):
    """A parameter named like the bound's constant would hide it in the body: no check (the
    launch runs). A bound with parentheses of its own (a function-like macro) is checked."""
    from cudafuse.emu.rewrite import rewrite
    from cudafuse.frontend.parse import parse_file

    src = tmp_path / "s.cu"
    src.write_text(SKIPPED)
    text = rewrite(parse_file(str(src)).unit).text
    assert text.count("__CF_LAUNCH_BOUNDS(") == 3
    assert 'nested(float *x) { __CF_LAUNCH_BOUNDS("MAXOF(64, 128)", MAXOF(64, 128)) ' \
        'x[0] = 1; } __CF_BOUNDS_OF(nested, MAXOF(64, 128))' in text
    assert 'checked(float *x) { __CF_LAUNCH_BOUNDS("threads, 2", threads, 2) x[0] = 2; } ' \
        '__CF_BOUNDS_OF(checked, threads, 2)' in text
    # Defined by its qualified name: checked in its body, not registered by a plain name.
    assert '__CF_LAUNCH_BOUNDS("64", 64) x[0] = 3; }\n' in text
    assert text.count("__CF_BOUNDS_OF(") == 2


CHAIN = """
#include <cuda_runtime.h>
#define PRODUCER_BLOCK 512
__global__ void __launch_bounds__(PRODUCER_BLOCK) produce(const float *in, float *tmp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = in[i] * 3.0f;
}
__global__ void __launch_bounds__(64, 2) consume(const float *tmp, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tmp[i] + 1.0f;
}
extern "C" void chain(const float *in, float *tmp, float *out, int n) {
  produce<<<(n + 511) / 512, 512>>>(in, tmp, n);
  consume<<<(n + 63) / 64, 64>>>(tmp, out, n);
}
"""
CHAIN_SPEC = """
entry = "chain"
[sizes]
n = 1000
[[args]]
name = "in"
dtype = "float32"
count = "n"
init = "uniform(-1, 1)"
[[args]]
name = "tmp"
dtype = "float32"
count = "n"
role = "out"
[[args]]
name = "out"
dtype = "float32"
count = "n"
role = "out"
[[args]]
name = "n"
value = "n"
"""


# The same bounds written through macros, a variadic one inside an object-like one.
MACRO_CHAIN = CHAIN.replace(
    "#define PRODUCER_BLOCK 512", "#define PRODUCER_BLOCK 512\n"
    "#define BOUNDED(...) __launch_bounds__(__VA_ARGS__)\n"
    "#define LB_PRODUCER BOUNDED(PRODUCER_BLOCK)").replace(
    "__launch_bounds__(PRODUCER_BLOCK) produce", "LB_PRODUCER produce").replace(
    "__launch_bounds__(64, 2) consume", "BOUNDED(64, 2) consume")


@pytest.mark.slow
@pytest.mark.parametrize("program", [CHAIN, MACRO_CHAIN], ids=["literal", "macro"])
def test_a_vertically_fused_kernel_keeps_a_bound_its_launch_meets(tmp_path: Path,
                                                                   monkeypatch,
                                                                   program: str) -> None:
    """Kernels bounded 512 and 64, fused: the fused kernel's bound and launch agree, which
    the emulator now checks (a bound under its launch would make verify fail)."""
    monkeypatch.chdir(tmp_path)
    Path("c.cu").write_text(program)
    Path("c.toml").write_text(CHAIN_SPEC)
    res = CliRunner().invoke(main, ["fuse", "c.cu", "-o", "f.cu"])
    assert res.exit_code == 0, res.output
    fused = Path("f.cu").read_text()
    assert "__launch_bounds__(64, 2) cf_chain_fused0(" in fused
    assert "cf_chain_fused0<<<(n + 63) / 64, 64>>>" in fused
    res = CliRunner().invoke(main, ["verify", "c.cu", "f.cu", "--spec", "c.toml"])
    assert res.exit_code == 0, res.output
    # The same file with a bound under its launch: the fused launch fails, as on a GPU.
    Path("bad.cu").write_text(fused.replace("__launch_bounds__(64, 2) cf_chain_fused0(",
                                            "__launch_bounds__(32) cf_chain_fused0("))
    res = CliRunner().invoke(main, ["verify", "c.cu", "bad.cu", "--spec", "c.toml"])
    assert res.exit_code == 1, res.output



def test_a_bound_written_through_a_macro_is_checked(lib) -> None:
    """`BOUNDS_1(128)` (PyTorch's C10_LAUNCH_BOUNDS_1 spelling), `BOUND(32)`, `LB`: the
    check carries the expanded bound, which g++ evaluates in the kernel's scope."""
    from cudafuse.emu.rewrite import rewrite
    from cudafuse.frontend.parse import parse_file

    text = rewrite(parse_file(str(PROGRAM)).unit).text
    assert '__CF_LAUNCH_BOUNDS("32", 32)' in text
    assert '__CF_LAUNCH_BOUNDS("(((((128)) <= MAX_BLOCK) ? ((128)) : FALLBACK_BLOCK))", ' \
        "(((((128)) <= MAX_BLOCK) ? ((128)) : FALLBACK_BLOCK)))" in text
    x = np.ones(N, np.float32)
    for kernel, bound in (("capped", 128), ("counted", 32), ("plain", 96)):
        with pytest.raises(KernelError, match=rf"launch of '{kernel}' with block "
                           rf"\({bound + 1},1,1\) .* at most {bound} threads a block"):
            lib.launch(kernel, grid=(3, 1, 1), block=(bound + 1, 1, 1), shared=0,
                       args=(x, N))
        np.testing.assert_array_equal(x, np.ones(N, np.float32))  # it did not run
    lib.launch("capped", grid=(3, 1, 1), block=(128, 1, 1), shared=0, args=(x, N))
    np.testing.assert_array_equal(x, np.full(N, 2, np.float32))
