"""Two input files that define the same names (a helper, a __constant__ table, main): the
second file's are renamed apart, each kernel keeps using its own, and the fused program's
outputs equal the originals' (each original built alone). So do macros both files define
differently, and a macro of the second file whose body names its renamed helper."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hfuse_helpers import PROGRAMS, hfuse

from cudafuse.runtime import load

DIR = PROGRAMS / "rename"
N = 200


def _inputs() -> list:  # type: ignore[type-arg]
    x = np.linspace(-0.5, 1.5, N, dtype=np.float32)
    return [x, np.zeros(N, np.float32), N]


def _each_alone_and_fused(out: Path, first: tuple[str, str], second: tuple[str, str]
                          ) -> list[np.ndarray]:
    """Each original kernel run alone from its own file, then the fused launcher: the same
    outputs. Returns the originals' outputs."""
    want = []
    for src, kernel in (first, second):
        args = _inputs()
        with load(DIR / src, backend="emu") as lib:
            lib.launch(kernel, grid=(4,), block=(64,), args=args)
        want.append(args[1])
    a, b = _inputs(), _inputs()
    with load(out, backend="emu") as lib:
        lib.call(f"{first[1]}_{second[1]}_hfused_launch", *a, *b, (4,), (4,), 0, 0, None)
    assert np.array_equal(a[1], want[0]) and np.array_equal(b[1], want[1])
    return want


# Renaming apart rewrites the second file's text before any mode emits: every test runs in
# thread mode (both bodies in one kernel, beside named barriers), the clashing names also in
# block mode (both bodies under the block's part test); block mode of the macro tests and
# the streams launcher (the kernels as written) run in `make test-slow` (issue 27).
SLOW = pytest.mark.slow


@pytest.mark.parametrize("mode", ["thread", "block", pytest.param("streams", marks=SLOW)])
def test_clashing_names_are_renamed_apart(tmp_path: Path, mode: str) -> None:
    out = tmp_path / "ab.cu"
    res = hfuse(str(DIR / "a.cu"), str(DIR / "b.cu"), "--kernels", "shade,mark", "--block1",
                "64", "--block2", "64", "--mode", mode, "-o", str(out))
    assert res.exit_code == 0, res.output
    for name in ("clamp01", "weights", "main"):
        assert f"'{name}' is defined in both inputs: in the output, this file's is " \
               f"'cf_in2_{name}'" in res.output
    text = out.read_text()
    assert text.count("int main()") == 1 and "int cf_in2_main()" in text
    assert "twice(cf_in2_clamp01(in[i] + cf_in2_weights[i & 3]))" in text
    want = _each_alone_and_fused(out, ("a.cu", "shade"), ("b.cu", "mark"))
    assert not np.array_equal(want[0], want[1])


def test_a_name_in_the_files_own_macro_is_renamed_with_the_macro(tmp_path: Path) -> None:
    # c.cu's SAT(v) expands to its clamp01: both are renamed (each invocation's references
    # counted against the body; tests/hfuse/test_hfuse_miner.py runs such a pair and refuses
    # a macro invoked from another macro's body, where they cannot be counted).
    out = tmp_path / "o.cu"
    res = hfuse(str(DIR / "a.cu"), str(DIR / "c.cu"), "--kernels", "shade,sat", "--block1",
                "64", "--block2", "64", "-o", str(out))
    assert res.exit_code == 0, res.output
    assert "'SAT' is a macro whose body names this file's 'clamp01'" in res.output
    text = out.read_text()
    assert "#define cf_in2_SAT(v) cf_in2_clamp01(v)" in text
    assert "out[i] = cf_in2_SAT(in[i]);" in text


@pytest.mark.nvcc
def test_the_renamed_program_compiles(tmp_path: Path) -> None:
    out = tmp_path / "ab.cu"
    res = hfuse(str(DIR / "a.cu"), str(DIR / "b.cu"), "--kernels", "shade,mark", "--block1",
                "64", "--block2", "64", "-o", str(out))
    assert res.exit_code == 0, res.output
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    done = subprocess.run([nvcc, "-arch=sm_90", str(out), "-o", str(tmp_path / "ab")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_clashing_types_are_renamed_apart(tmp_path: Path) -> None:
    out = tmp_path / "de.cu"
    res = hfuse(str(DIR / "d.cu"), str(DIR / "e.cu"), "--kernels", "mean3,above",
                "--block1", "64", "--block2", "64", "-o", str(out))
    assert res.exit_code == 0, res.output
    assert "'Acc' is defined in both inputs: in the output, this file's is 'cf_in2_Acc'" \
        in res.output
    text = out.read_text()
    assert "struct cf_in2_Acc {" in text and "typedef cf_in2_Acc cf_in2_AccT;" in text
    assert "a.count" in text  # members keep their names
    _each_alone_and_fused(out, ("d.cu", "mean3"), ("e.cu", "above"))


@pytest.mark.parametrize("mode", ["thread", pytest.param("block", marks=SLOW)])
def test_macros_defined_differently_are_renamed_apart(tmp_path: Path, mode: str) -> None:
    out = tmp_path / "fg.cu"
    res = hfuse(str(DIR / "f.cu"), str(DIR / "g.cu"), "--kernels", "grow,shrink",
                "--block1", "64", "--block2", "64", "--mode", mode, "-o", str(out))
    assert res.exit_code == 0, res.output
    for name in ("APPLY", "SCALE", "USE_BIAS"):
        assert f"'{name}' is defined in both inputs: in the output, this file's is " \
               f"'cf_in2_{name}'" in res.output
    text = out.read_text()
    assert "#define cf_in2_APPLY(v) (cf_in2_SCALE * (v) - 3.0f)" in text
    assert "#if defined(cf_in2_USE_BIAS) && cf_in2_USE_BIAS" in text
    want = _each_alone_and_fused(out, ("f.cu", "grow"), ("g.cu", "shrink"))
    assert not np.array_equal(want[0], want[1])


MACRO_SIDE = """\
#define THREAD_N 64
__global__ void spread(const float *in, float *out, int n) {
  int i = blockIdx.x * THREAD_N + threadIdx.x;
  if (i < n) out[i] = in[i] * THREAD_N;
}
"""
IDENTIFIER_SIDE = """\
const int THREAD_N = 3;
struct Cfg { int THREAD_N; };
__device__ float tripled(float v, Cfg c) { return v * THREAD_N + c.THREAD_N; }
__global__ void triple(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Cfg c{1};
  if (i < n) out[i] = tripled(in[i], c);
}
"""


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both sides written once for the module (no test changes them): each original is
    built once, not once per test."""
    path = tmp_path_factory.mktemp("sides")
    (path / "m.cu").write_text(MACRO_SIDE)
    (path / "i.cu").write_text(IDENTIFIER_SIDE)
    return path


@pytest.mark.parametrize("order", ["macro first", "macro second"])
@pytest.mark.parametrize("mode", ["thread", pytest.param("block", marks=SLOW)])
def test_a_macro_of_one_file_that_is_an_identifier_in_the_other(tmp_path: Path, sides: Path,
                                                               order: str, mode: str) -> None:
    # cuda-samples' MonteCarlo `#define THREAD_N` beside fastWalshTransform's
    # `const int THREAD_N`: the second file's side is renamed apart (its identifier, member
    # included, or its macro), and each kernel computes what it did alone.
    first, second = (("m.cu", "spread"), ("i.cu", "triple")) if order == "macro first" else \
        (("i.cu", "triple"), ("m.cu", "spread"))
    out = tmp_path / "out.cu"
    res = hfuse(str(sides / first[0]), str(sides / second[0]), "--kernels",
                f"{first[1]},{second[1]}", "--block1", "64", "--block2", "64", "--mode", mode,
                "-o", str(out))
    assert res.exit_code == 0, res.output
    assert "'THREAD_N' is a macro in one input and an identifier in the other: in the " \
           "output, this file's is 'cf_in2_THREAD_N'" in res.output
    text = out.read_text()
    assert ("const int cf_in2_THREAD_N = 3;" if order == "macro first"
            else "#define cf_in2_THREAD_N 64") in text
    want = []
    for src, kernel in (first, second):
        args = _inputs()
        with load(sides / src, backend="emu") as lib:
            lib.launch(kernel, grid=(4,), block=(64,), args=args)
        want.append(args[1])
    a, b = _inputs(), _inputs()
    with load(out, backend="emu") as lib:
        lib.call(f"{first[1]}_{second[1]}_hfused_launch", *a, *b, (4,), (4,), 0, 0, None)
    assert np.array_equal(a[1], want[0]) and np.array_equal(b[1], want[1])
    assert not np.array_equal(want[0], want[1])


def test_an_identifier_a_header_also_writes_is_refused(tmp_path: Path) -> None:
    # The header follows the first file's #define in the output: the macro would expand in
    # it, so the name cannot be renamed apart in the second file alone.
    (tmp_path / "m.cu").write_text(MACRO_SIDE)
    (tmp_path / "cfg.h").write_text("const int THREAD_N = 3;\n")
    (tmp_path / "i.cu").write_text('#include "cfg.h"\n' + IDENTIFIER_SIDE.split("\n", 1)[1])
    res = hfuse(str(tmp_path / "m.cu"), str(tmp_path / "i.cu"), "--kernels", "spread,triple",
                "--block1", "64", "--block2", "64", "-o", str(tmp_path / "out.cu"))
    assert res.exit_code == 1
    assert f"error: 'THREAD_N' is a macro in {tmp_path / 'm.cu'}, which would expand in the " \
           f"header {tmp_path / 'cfg.h'} that this file includes" in res.output, res.output
    assert not (tmp_path / "out.cu").exists()
