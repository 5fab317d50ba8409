"""Bounds-checked runs: an access past a spec array is an error naming the kernel, the
argument, the index and the spec's count (by default through guard regions; with
--sanitize through AddressSanitizer, with the line of the access); `verify` blames the spec
or the original, not the transformation; a crashed program never "matches"."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner, Result

from cudafuse.cli import main
from cudafuse.runtime import KernelError, load

PROG = """#include <cuda_runtime.h>
__global__ void scale(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
void pipeline(const float *in, float *out, int n) {
  scale<<<(n + 31) / 32, 32>>>(in, out, n);
}
"""


def spec_text(n_in: int | str, n_out: int | str) -> str:
    return (f'entry = "pipeline"\n[sizes]\nn = 40\n'
            f'[[args]]\nname = "in"\ndtype = "float32"\ncount = {n_in}\ninit = "ramp"\n'
            f'[[args]]\nname = "out"\ndtype = "float32"\ncount = {n_out}\nrole = "out"\n'
            '[[args]]\nname = "n"\nvalue = "n"\n')


def invoke(*args: object) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def prog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The original, one file for the module (no test changes it): its builds, plain and
    with AddressSanitizer, are made once, not once per test."""
    path = tmp_path_factory.mktemp("bounds") / "prog.cu"
    path.write_text(PROG)
    return path


@pytest.fixture
def files(tmp_path: Path, prog: Path) -> dict[str, Path]:
    fused = tmp_path / "fused.cu"  # a correct "transformation": the same program
    fused.write_text(PROG)
    small_in, small_out = tmp_path / "small_in.toml", tmp_path / "small_out.toml"
    small_in.write_text(spec_text(30, '"n"'))
    small_out.write_text(spec_text('"n"', 33))
    return {"prog": prog, "fused": fused, "small_in": small_in, "small_out": small_out}


CASES = [("small_in", "reads 'in' at index 30, past the end of its 30 elements",
          "args[0] 'in'.count is 30 (float32)"),
         ("small_out", "writes 'out' at index 33, past the end of its 33 elements",
          "args[1] 'out'.count is 33 (float32)")]


@pytest.mark.parametrize("spec,access,count", CASES)
def test_run_reports_the_first_bad_access(files, spec, access, count):
    res = invoke("run", files["prog"], "--spec", files[spec])
    assert res.exit_code == 1, res.output
    block, thread = divmod(int(access.split("index ")[1].split(",")[0]), 32)
    assert (f"{files['prog']}:7: error: kernel 'scale' (launched here; block ({block},0,0), "
            f"thread ({thread},0,0)) {access}") in res.stderr, res.stderr
    assert f"{files[spec]}: note: {count}; the program needs more" in res.stderr
    assert "out:" not in res.stdout


@pytest.mark.parametrize("spec,access,count", CASES)
def test_run_sanitize_gives_the_line_of_the_access(files, spec, access, count):
    res = invoke("run", files["prog"], "--spec", files[spec], "--sanitize")
    assert res.exit_code == 1, res.output
    assert f"{files['prog']}:4:" in res.stderr, res.stderr
    assert f"error: kernel 'scale' {access}" in res.stderr
    assert f"{files[spec]}: note: {count}" in res.stderr


@pytest.mark.parametrize("sanitize", [(), ("--sanitize",)])
@pytest.mark.parametrize("spec,access,count", CASES)
def test_verify_blames_the_spec_not_the_transformation(files, spec, access, count, sanitize):
    res = invoke("verify", files["prog"], files["fused"], "--spec", files[spec], *sanitize)
    assert res.exit_code == 1, res.output
    assert "error: kernel 'scale'" in res.stderr and access in res.stderr
    assert count in res.stderr
    assert (f"{files['prog']}: note: the original program fails with this spec, so the "
            "transformed program was not checked: the spec (array counts, sizes, launch) or "
            "the original is at fault, not the transformation") in res.stderr
    assert "match" not in res.output and "MISMATCH" not in res.output


def test_verify_blames_a_transformation_that_overflows(files, tmp_path):
    files["fused"].write_text(PROG.replace("out[i] = 2.0f", "out[i + 1] = 2.0f"))
    spec = tmp_path / "ok.toml"
    spec.write_text(spec_text('"n"', '"n"'))
    res = invoke("verify", files["prog"], files["fused"], "--spec", spec)
    assert res.exit_code == 1, res.output
    assert f"{files['fused']}:7: error: kernel 'scale'" in res.stderr
    assert "writes 'out' at index 40, past the end of its 40 elements" in res.stderr
    assert "the original program fails" not in res.stderr
    assert "all outputs match" not in res.output


def test_a_crash_after_the_results_is_an_error(files, tmp_path):
    # The program ends badly after its results were sent back (as glibc's heap checks do
    # on a corrupted heap): the results are not to be trusted.
    files["fused"].write_text(PROG + "#include <cstdlib>\nstruct Boom { ~Boom() { abort(); } };"
                              "\nstatic Boom boom;\n")
    spec = tmp_path / "ok.toml"
    spec.write_text(spec_text('"n"', '"n"'))
    res = invoke("verify", files["prog"], files["fused"], "--spec", spec)
    assert res.exit_code == 1, res.output
    assert f"{files['fused']}: error: at exit, after the last call's results were read (they " \
        "are not to be trusted): the program crashed with SIGABRT" in res.stderr, res.stderr
    assert "all outputs match" not in res.output
    res = invoke("run", files["fused"], "--spec", spec)
    assert res.exit_code == 1 and "SIGABRT" in res.stderr and "out:" not in res.stdout


def test_library_calls_in_bounds_are_untouched(files):
    # The guard placement hands the program exactly the caller's data, and copies it back.
    with load(files["prog"]) as lib:
        a = np.arange(40, dtype=np.float32)
        out = np.zeros(40, np.float32)
        lib.call("pipeline", a, out, 40)
        np.testing.assert_array_equal(out, 2 * a)
        with pytest.raises(KernelError, match=r"out-of-bounds access: a read in 'scale' "
                           r"\(launched at .*prog.cu:7\), byte 40 of argument 1"):
            lib.call("pipeline", a[:10].copy(), out, 40)


def test_host_code_reading_past_an_array(tmp_path):
    prog = tmp_path / "host.cu"
    prog.write_text("float total(const float *in, float *out, int n) {\n  float s = 0;\n"
                    "  for (int i = 0; i <= n; ++i) s += in[i];\n  out[0] = s;\n"
                    "  return s;\n}\n")
    spec = tmp_path / "h.toml"
    spec.write_text(spec_text('"n"', 1).replace('"pipeline"', '"total"'))
    res = invoke("run", prog, "--spec", spec)
    assert res.exit_code == 1, res.output
    assert (f"{prog}: error: host function 'total' reads 'in' at index 40, past the end of "
            "its 40 elements") in res.stderr, res.stderr
    res = invoke("run", prog, "--spec", spec, "--sanitize")
    assert res.exit_code == 1, res.output
    assert f"{prog}:3:" in res.stderr and "host function 'total' reads 'in' at index 40" \
        in res.stderr, res.stderr
