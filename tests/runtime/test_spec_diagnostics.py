"""Mistakes in a spec or in `run`'s options are diagnostics naming the spec file and the key
(exit 1), or usage errors (exit 2); never an internal error (exit 3). Outputs (--save) are
checked before the run and written exactly where asked."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner, Result

from cudafuse.cli import main

PROG = """#include <cuda_runtime.h>
__global__ void scale(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
void pipeline(const float *in, float *out, int n) {
  scale<<<(n + 31) / 32, 32>>>(in, out, n);
}
"""
IN = '[[args]]\nname = "in"\ndtype = "float32"\ncount = "n"\ninit = "ramp"\n'
OUT = '[[args]]\nname = "out"\ndtype = "float32"\ncount = "n"\nrole = "out"\n'
N = '[[args]]\nname = "n"\nvalue = "n"\n'
GOOD = 'entry = "pipeline"\n[sizes]\nn = 40\n' + IN + OUT + N


def invoke(*args: object) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def prog(tmp_path: Path) -> Path:
    path = tmp_path / "prog.cu"
    path.write_text(PROG)
    return path


def run_with(tmp_path: Path, prog: Path, spec_text: str | bytes) -> tuple[Result, Path]:
    spec = tmp_path / "s.toml"
    if isinstance(spec_text, bytes):
        spec.write_bytes(spec_text)
    else:
        spec.write_text(spec_text)
    return invoke("run", prog, "--spec", spec), spec


@pytest.mark.parametrize("text,needle", [
    (b"\x89PNG\r\n\x1a\n\x00\x00\xff", "not a text file (a spec is TOML in UTF-8; byte 0"),
    ('entry = "pipeline"\n[sizes]\nn = "4 / 0"\n' + IN, "sizes.n: division by zero"),
    ('entry = "pipeline"\n[sizes]\nn = 4\n' + IN.replace('"n"', '"n % (n - n)"'),
     "args[0] 'in'.count: division by zero"),
    ('entry = "pipeline"\n[sizes]\nn = "2 ** 100000"\n', "sizes.n: exponent 100000 out of"),
    ('entry = "pipeline"\n[sizes]\nn = "(-1) ** 0.5"\n', "sizes.n: -1 ** 0.5 is not a real"),
    ('entry = "pipeline"\n[sizes]\nn = 2.5\n' + IN,
     "args[0] 'in'.count: expected a whole number, got 2.5"),
    ('entry = "pipeline"\n[sizes]\nn = "3 - 7"\n' + IN, "args[0] 'in'.count: -4 is negative"),
    ('entry = "pipeline"\n[sizes]\nn = 4\n' + IN.replace("float32", "flaot32"),
     "args[0] 'in'.dtype: unknown dtype 'flaot32'; did you mean float32"),
    ('entry = "pipeline"\n[sizes]\nn = 4\n' + IN.replace("float32", "object"),
     "args[0] 'in'.dtype: unknown dtype 'object'"),
    ('entry = "pipeline"\n[sizes]\nn = 4\n' + IN.replace('"float32"', "[1]"),
     "args[0] 'in'.dtype: unknown dtype [1]"),
    ('entry = "pipeline"\n[sizes]\nn = 4\n' + IN.replace("float32", "float"),
     "args[0] 'in'.dtype: 'float' is float64 in numpy, but C's float is usually float32"),
    ('entry = "pipeline"\n[sizes]\nn = "1 << 40"\n' + IN,
     "args[0] 'in'.count: 1099511627776 x float32 is 4 TiB"),
    ('entry = "pipeline"\n[sizes]\nn = 4\n' + IN.replace('"ramp"', '"uniform(0)"'),
     "args[0] 'in'.init: uniform takes 2 parameter(s), got 1"),
    ('entry = "pipeline"\n[sizes]\nn = 4\n' + IN.replace('"ramp"', '"const(x)"'),
     "args[0] 'in'.init: the parameters of 'const(x)' must be numbers"),
    ('entry = "pipeline"\n[sizes]\nn = 4\n' + IN.replace('"ramp"', '"gauss"'),
     "unknown init 'gauss'"),
    ('entry = "pipeline"\n[sizes]\nn = 4\n' + IN.replace('"ramp"', '"uniform(3, 1)"'),
     "the low end exceeds the high end"),
    ('entry = "pipeline"\n[sizes]\nn = 4\n' + IN.replace('count = "n"\n', ""),
     "args[0] 'in': an array needs 'count' (its number of elements)"),
    ('entry = "pipeline"\nlaunch = 3\n', "launch: expected a table, got int 3"),
    ('entry = "pipeline"\nsizes = [1]\n', "sizes: expected a table"),
    ('entry = "pipeline"\nargs = [1, 2]\n', "args: expected [[args]] tables"),
    ('entry = "pipeline"\nseed = "x"\n', "seed: expected a non-negative integer"),
    ('entry = "pipeline"\n[sizes]\nn = 4\n' + IN + IN, "the name 'in' is already given to args[0]"),
])
def test_spec_mistakes_are_diagnostics(tmp_path, prog, text, needle):
    res, spec = run_with(tmp_path, prog, text)
    assert res.exit_code == 1, res.output
    assert f"{spec}: error: " in res.stderr and needle in res.stderr, res.stderr
    assert "internal error" not in res.output


def test_toml_syntax_error_is_located(tmp_path, prog):
    res, spec = run_with(tmp_path, prog, 'entry = "pipeline"\n[sizes\nn = 4\n')
    assert res.exit_code == 1
    assert f"{spec}:2:7: error: invalid TOML: " in res.stderr, res.stderr
    assert "[sizes\n      ^" in res.stderr


@pytest.mark.parametrize("text,needle", [
    (GOOD.replace('name = "in"', 'name = "inp"'),
     "args[0] 'inp': 'inp' is no parameter of pipeline(float *in, float *out, int n)"),
    ('entry = "pipeline"\n[sizes]\nn = 4\n' + IN + OUT,
     "no [[args]] table for parameter 'n' of pipeline(float *in, float *out, int n)"),
    (GOOD.replace("float32", "float64", 1),
     "args[0] 'in': pipeline(): parameter 1 'in' (float *): cannot pass a float64 array"),
    (GOOD.replace('value = "n"', "value = 2.5"),
     "args[2] 'n': pipeline(): parameter 3 'n' (int): expected an integer"),
    (GOOD.replace('entry = "pipeline"', 'entry = "pipe"'),
     "entry: {prog} has no callable host function 'pipe' (available: pipeline)"),
    (GOOD.replace('entry = "pipeline"', 'entry = "scale"'),
     "entry: 'scale' is a kernel: give a [launch] table"),
])
def test_arguments_are_bound_by_name(tmp_path, prog, text, needle):
    res, spec = run_with(tmp_path, prog, text)
    assert res.exit_code == 1, res.output
    assert f"{spec}: error: {needle.format(prog=prog)}" in res.stderr, res.stderr


def test_arguments_in_another_order(tmp_path, prog):
    res, _ = run_with(tmp_path, prog, 'entry = "pipeline"\n[sizes]\nn = 40\n' + N + OUT + IN)
    assert res.exit_code == 0, res.output
    assert "out: 40 x float32, min 0.0, max 78.0" in res.stdout


def test_save_writes_exactly_the_named_file(tmp_path, prog):
    spec = tmp_path / "s.toml"
    spec.write_text(GOOD)
    target = tmp_path / "outputs.data"
    res = invoke("run", prog, "--spec", spec, "--save", target)
    assert res.exit_code == 0, res.output
    assert f"wrote {target}" in res.stdout
    assert not (tmp_path / "outputs.data.npz").exists()
    np.testing.assert_array_equal(np.load(target)["out"], 2.0 * np.arange(40))


@pytest.mark.parametrize("target,needle,status", [
    ("nodir/o.npz", "--save '{t}': directory '{d}/nodir' does not exist", 1),
    ("prog.cu", "--save '{t}' would overwrite an input of this run", 2),
    ("s.toml", "--save '{t}' would overwrite an input of this run", 2),
])
def test_save_is_checked_before_the_run(tmp_path, prog, target, needle, status):
    spec = tmp_path / "s.toml"
    spec.write_text(GOOD)
    before = {p: p.read_bytes() for p in (prog, spec)}
    t = tmp_path / target
    res = invoke("run", prog, "--spec", spec, "--save", t)
    assert res.exit_code == status, res.output
    assert needle.format(t=t, d=tmp_path) in res.stderr, res.stderr
    assert "out:" not in res.stdout  # nothing ran
    assert {p: p.read_bytes() for p in before} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prog.cu", "s.toml"]


@pytest.mark.skipif(importlib.util.find_spec("pycuda") is not None, reason="PyCUDA installed")
def test_nvcc_backend_without_pycuda(tmp_path, prog):
    spec = tmp_path / "s.toml"
    spec.write_text(GOOD)
    res = invoke("run", prog, "--spec", spec, "--backend", "nvcc")
    assert res.exit_code == 1, res.output
    assert "error: the nvcc backend runs on the GPU through PyCUDA, which is not installed: " \
        "pip install -e '.[gpu]'" in res.stderr
    res = invoke("verify", prog, prog, "--spec", spec, "--backend", "nvcc")
    assert res.exit_code == 1 and "pip install -e '.[gpu]'" in res.stderr
    assert "the original program fails" not in res.stderr  # PyCUDA is missing, not the spec


def test_sanitize_is_for_the_emulator(tmp_path, prog):
    spec = tmp_path / "s.toml"
    spec.write_text(GOOD)
    res = invoke("run", prog, "--spec", spec, "--backend", "nvcc", "--sanitize")
    assert res.exit_code == 2, res.output
    assert "error: --sanitize checks emulated runs (--backend emu)" in res.stderr


def test_stderr_carries_only_diagnostics(tmp_path, prog):
    # The emulation worker once printed runpy's "found in sys.modules" RuntimeWarning.
    spec = tmp_path / "s.toml"
    spec.write_text(GOOD)
    for cmd in (["run", prog, "--spec", spec], ["verify", prog, prog, "--spec", spec]):
        done = subprocess.run([sys.executable, "-m", "cudafuse", *map(str, cmd)],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert done.stderr == ""


def test_complex_outputs_are_compared_whole():
    import warnings

    from cudafuse.runtime.spec import ArgSpec, compare

    a = np.array([1 + 1j, 2, np.nan], np.complex64)
    b = np.array([1 + 1.5j, 2, np.nan], np.complex64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning on stderr
        c = compare(ArgSpec("z", np.dtype(np.complex64), 3), a, b, 1e-5, 1e-6)
    assert c.mismatches == 1 and c.max_abs == pytest.approx(0.5)


def test_an_emulator_report_is_printed_once(tmp_path):
    src = tmp_path / "dead.cu"
    src.write_text("#define CUDAFUSE_BAR_SYNC(i, n) asm volatile(\"bar.sync 1, 64;\")\n"
                   "__global__ void k(int *a) {\n  if (threadIdx.x < 32) return;\n"
                   "  CUDAFUSE_BAR_SYNC(1, 64);\n}\n")
    spec = tmp_path / "s.toml"
    spec.write_text('entry = "k"\n[launch]\ngrid = 1\nblock = 64\n'
                    '[[args]]\nname = "a"\ndtype = "int32"\ncount = 64\nrole = "out"\n')
    done = subprocess.run([sys.executable, "-m", "cudafuse", "run", str(src), "--spec",
                           str(spec)], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.startswith(f"{src}: error: kernel 'k', block (0,0,0): deadlock")
    assert done.stderr.count("deadlock") == 1, done.stderr
