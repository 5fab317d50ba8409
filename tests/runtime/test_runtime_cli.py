"""Spec files and the `cudafuse run` / `cudafuse verify` commands."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest_runtime import PROGRAMS

from cudafuse.cli import main
from cudafuse.diagnostics import CudafuseError
from cudafuse.runtime.spec import ArgSpec, compare, evaluate, load_spec, make_value


@pytest.fixture(scope="module")
def variants(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """blur.cu built three ways: the original, an equivalent rewrite and a wrong one."""
    root = tmp_path_factory.mktemp("variants")
    text = (PROGRAMS / "blur.cu").read_text()
    out = {}
    for name, bug in (("orig", "(v)"), ("same", "(v)"), ("bad", "(v) + (x == 7 && y == 3)")):
        path = root / f"{name}.cu"
        body = text.replace("#include <cuda_runtime.h>",
                            f"#include <cuda_runtime.h>\n#define BUG(v) {bug}")
        if name == "same":
            body = body.replace("a / 9.0f", "a * (1.0f / 9.0f) + 0.0f * a")
        path.write_text(body)
        out[name] = path
    shutil.copy(PROGRAMS / "blur.toml", root / "blur.toml")
    out["spec"] = root / "blur.toml"
    return out


def invoke(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_run_prints_output_summaries(variants, tmp_path):
    save = tmp_path / "out.npz"
    r = invoke("run", variants["orig"], "--spec", variants["spec"], "--save", save)
    assert r.exit_code == 0, r.output
    assert "out: 900 x float32" in r.output and "tmp: 900 x float32" in r.output
    with np.load(save) as saved:  # (an NpzFile holds its file open until closed)
        out = saved["out"]
    spec = load_spec(str(variants["spec"]))
    img = spec.inputs()[0].reshape(20, 45).astype(np.float64)
    p = np.pad(img, 1, mode="edge")
    blur = sum(p[dy:dy + 20, dx:dx + 45] for dy in range(3) for dx in range(3)) / 9.0
    np.testing.assert_allclose(out.reshape(20, 45), blur * 2.5, rtol=1e-5)


def test_verify_equivalent_programs(variants):
    r = invoke("verify", variants["orig"], variants["same"], "--spec", variants["spec"])
    assert r.exit_code == 0, r.output
    assert "out: max abs err" in r.output and "all outputs match" in r.output


def test_verify_reports_first_difference_as_xy(variants):
    r = invoke("verify", variants["orig"], variants["bad"], "--spec", variants["spec"])
    assert r.exit_code == 1
    assert "out: max abs err 1, " in r.output and "MISMATCH in 1 of 900" in r.output
    assert "first difference at x=7, y=3 (element 142)" in r.output


def test_run_reports_kernel_failures(tmp_path):
    src = tmp_path / "dead.cu"
    src.write_text("__global__ void k(int *a) {\n  if (threadIdx.x < 32) return;\n"
                   '  asm volatile("bar.sync 1, 64;");\n}\n')
    spec = tmp_path / "s.toml"
    spec.write_text('entry = "k"\n[launch]\ngrid = 1\nblock = 64\n'
                    '[[args]]\nname = "a"\ndtype = "int32"\ncount = 64\nrole = "out"\n')
    # Inline PTX barriers are the emulator's own barriers now (emu/ptx_block): the exited
    # warp is reported at the barrier, as for the macro below.
    r = invoke("run", src, "--spec", spec)
    assert r.exit_code == 1 and "exited threads never arrive at a counted barrier" in r.output
    src.write_text("#define CUDAFUSE_BAR_SYNC(i, n) asm volatile(\"bar.sync 1, 64;\")\n"
                   "__global__ void k(int *a) {\n  if (threadIdx.x < 32) return;\n"
                   "  CUDAFUSE_BAR_SYNC(1, 64);\n}\n")
    r = invoke("run", src, "--spec", spec)
    assert r.exit_code == 1 and "deadlock" in r.output and "threads 0-31 have exited" in r.output


def test_kernel_entry_with_launch_table(tmp_path):
    spec = tmp_path / "k.toml"
    spec.write_text('entry = "blur"\n[sizes]\nw = 33\nh = 9\n[launch]\n'
                    'grid = ["(w + 31) / 32", "(h + 7) / 8"]\nblock = [32, 8]\n'
                    '[[args]]\nname = "in"\ndtype = "float32"\ncount = "w*h"\ninit = "ramp"\n'
                    '[[args]]\nname = "out"\ndtype = "float32"\ncount = "w*h"\nrole = "out"\n'
                    '[[args]]\nvalue = "w"\n[[args]]\nvalue = "h"\n')
    src = tmp_path / "k.cu"
    src.write_text((PROGRAMS / "blur.cu").read_text().replace("BUG(", "("))
    r = invoke("verify", src, src, "--spec", spec)
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("body,needle", [
    ('entry = "f"\n[[args]]\nname = "a"\ndtype = "float32"\ncount = "n"\n',
     "unknown size 'n'"),
    ('entry = "f"\n[[args]]\nname = "a"\ndtype = "float32"\ncount = 4\nrole = "output"\n',
     "'a'.role: must be one of in, out, inout"),
    ('entry = "f"\n[[args]]\nname = "a"\ndtype = "float32"\ncount = 4\ninit = "gauss"\n',
     "unknown init 'gauss'"),
    ('entry = "f"\n[[args]]\nname = "a"\n', "give either 'dtype' and 'count'"),
    ('[[args]]\nvalue = 1\n', "missing 'entry'"),
    ('entry = "f"\nbogus = 1\n', "unknown key(s) bogus"),
    ('entry = "f"\n[[args]]\nname = "a"\ndtype = "float32"\ncount = 6\nshape = [4, 2]\n',
     "does not hold 6 elements"),
])
def test_spec_errors(tmp_path, body, needle):
    spec = tmp_path / "bad.toml"
    spec.write_text(body)
    with pytest.raises(CudafuseError) as exc:
        load_spec(str(spec))
    assert needle in exc.value.diagnostics[0].message
    assert exc.value.diagnostics[0].file == str(spec)


def test_spec_expressions_and_inits():
    sizes = {"w": 45, "h": 20}
    assert evaluate("(w + 31) / 32 * max(h, 3) - w % 8", sizes, "t") == 2 * 20 - 5
    a = make_value(ArgSpec("a", np.dtype(np.float32), 5, "ramp(1, 0.5)"))
    np.testing.assert_array_equal(a, [1, 1.5, 2, 2.5, 3])
    b1 = make_value(ArgSpec("b", np.dtype(np.int32), 1000, "uniform(-3, 3)", seed=4))
    b2 = make_value(ArgSpec("b", np.dtype(np.int32), 1000, "uniform(-3, 3)", seed=4))
    np.testing.assert_array_equal(b1, b2)  # deterministic
    assert b1.min() == -3 and b1.max() == 3
    c = make_value(ArgSpec("c", np.dtype(np.float32), 3, "const(2.5)"))
    np.testing.assert_array_equal(c, 2.5)
    r = make_value(ArgSpec("r", np.dtype(np.uint8), 100, "random", seed=1))
    assert r.dtype == np.uint8 and r.max() > 0


def test_compare_tolerances_and_nan():
    arg = ArgSpec("o", np.dtype(np.float32), 4, shape=(2, 2))
    want = np.array([1.0, np.nan, 3.0, 4.0], np.float32)
    got = np.array([1.0, np.nan, 3.0 + 1e-7, 4.5], np.float32)
    c = compare(arg, want, got, rtol=1e-5, atol=1e-6)
    assert c.mismatches == 1 and c.first.startswith("x=1, y=1 (element 3)")
    assert c.max_abs == pytest.approx(0.5)
    ints = ArgSpec("i", np.dtype(np.int32), 3)
    assert compare(ints, np.array([1, 2, 3]), np.array([1, 2, 4]), 1.0, 1.0).mismatches == 1


SKIPPED_HOST = """\
__global__ void k(float *p, int n) { int i = threadIdx.x; if (i < n) p[i] = 1.0f; }
extern "C" void host(float *p, int n) {
  cudaFancyNewThing_t t;
  k<<<1, 32>>>(p, n);
}
extern "C" void ok(float *p, int n) { k<<<1, 32>>>(p, n); }
"""
SKIPPED_SPEC = """\
entry = "ok"
[[args]]
name = "p"
dtype = "float32"
count = 32
role = "out"
[[args]]
name = "n"
value = 32
"""


def test_a_function_the_front_end_skipped_is_shown_before_gs_errors(tmp_path: Path) -> None:
    # Its launches were not rewritten for the emulator: g++ alone would complain at `<<<`.
    src, spec = tmp_path / "s.cu", tmp_path / "s.toml"
    src.write_text(SKIPPED_HOST)
    spec.write_text(SKIPPED_SPEC)
    res = CliRunner().invoke(main, ["run", str(src), "--spec", str(spec)])
    assert res.exit_code == 1
    lines = [ln for ln in res.stderr.splitlines() if ": warning: " in ln or ": error: " in ln]
    assert lines[0] == (f"{src}:2:17: warning: skipping 'host': unknown type name "
                        "'cudaFancyNewThing_t' (not among cudafuse's CUDA declarations)")
    assert lines[1] == (f"{src}: error: cannot build for the emulator: the front end skipped "
                        "the functions above, so their code (launches included) was not "
                        "rewritten for it; g++'s first error follows")
    assert "cudaFancyNewThing_t" in lines[2] and len(lines) == 3


LIBC_NAMED = """\
__global__ void twice(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
extern "C" void pipe(const float *in, float *out, int n) {
  twice<<<(n + 63) / 64, 64>>>(in, out, n);
}
"""


def test_an_entry_named_like_a_libc_function_runs_the_programs(tmp_path: Path) -> None:
    # The program's `pipe` must not be interposed by libc's pipe(2), already in the process.
    from cudafuse.runtime import load

    src = tmp_path / "p.cu"
    src.write_text(LIBC_NAMED)
    x, out = np.arange(100, dtype=np.float32), np.zeros(100, np.float32)
    with load(src) as lib:
        lib.call("pipe", x, out, 100)
    np.testing.assert_array_equal(out, 2.0 * x)
