"""Every parsing command takes compiler flags as Makefiles and CMake spell them: attached
(`-Iinc`, `-DNAME=V`, `-isystemDIR`, `-std=c++17`) or separated (`-I inc`, `-D NAME`,
`--std c++17`), and clang options after `--` (cli/compiler_flags.py).

The program's kernels exist only when the flags reach the front end: `scale.cuh` is found
only on the -I directory, `ka` is compiled only under -DWITH_KA, `kb` only when WITH_KB
(defined by the -isystem directory's header) is not undone by -U, and `constexpr auto` in a
lambda needs C++17 from -std."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from cudafuse.cli import main
from cudafuse.cli.compiler_flags import split_attached, take_paths

PROGRAM = """#include "scale.cuh"
#include <sysdefs.cuh>
#ifdef WITH_KA
__global__ void ka(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * SCALE;
}
#endif
#ifndef NO_KB
__global__ void kb(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] + KB_ADD;
}
#endif
void pipeline(float *x, float *y, int n) {
  ka<<<(n + 127) / 128, 128>>>(x, n);
  kb<<<(n + 127) / 128, 128>>>(y, n);
}
"""
SPEC = """entry = "pipeline"
seed = 3
[sizes]
n = 300
[[args]]
name = "x"
dtype = "float32"
count = "n"
init = "uniform(0, 1)"
role = "inout"
[[args]]
name = "y"
dtype = "float32"
count = "n"
init = "uniform(0, 1)"
role = "inout"
[[args]]
name = "n"
value = "n"
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "scale.cuh").write_text("#define SCALE 2.0f\n")
    (tmp_path / "sys").mkdir()
    (tmp_path / "sys" / "sysdefs.cuh").write_text("#define KB_ADD 1.0f\n")
    (tmp_path / "p.cu").write_text(PROGRAM)
    (tmp_path / "p.toml").write_text(SPEC)
    monkeypatch.chdir(tmp_path)
    return tmp_path


# Attached spellings only; the front end then finds both kernels.
ATTACHED = ["-Iinc", "-isystemsys", "-DWITH_KA=1", "-DNO_KB", "-UNO_KB", "-std=c++17"]
SEPARATED = ["-I", "inc", "-isystem", "sys", "-D", "WITH_KA", "--std", "c++17"]


def _ok(args: list[str]) -> str:
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("flags", [ATTACHED, SEPARATED], ids=["attached", "separated"])
def test_analyze_sees_both_kernels(work: Path, flags: list[str]) -> None:
    out = _ok(["analyze", "p.cu", *flags])
    assert "kernel ka" in out and "kernel kb" in out


def test_flags_before_the_file_and_after_dashdash(work: Path) -> None:
    out = _ok(["analyze", "-Iinc", "-DWITH_KA", "p.cu", "--", "-isystem", "sys", "-std=c++17"])
    assert "kernel ka" in out and "kernel kb" in out


def test_plan_and_fuse(work: Path) -> None:
    assert "ka" in _ok(["plan", "p.cu", *ATTACHED])
    _ok(["fuse", "p.cu", "-o", "f.cu", *ATTACHED])
    assert "__global__" in (work / "f.cu").read_text()


def test_hfuse_attached(work: Path) -> None:
    _ok(["hfuse", "p.cu", "--kernels", "ka,kb", "--block1", "128", "--block2", "128",
         "-o", "h.cu", *ATTACHED])
    assert "ka_kb_hfused" in (work / "h.cu").read_text()


def test_hfuse_dashdash_options_are_not_files(work: Path) -> None:
    # `--` used to make `-Iinc` a second input ('no such file').
    _ok(["hfuse", "p.cu", "--kernels", "ka,kb", "--block1", "128", "--block2", "128",
         "-o", "h.cu", "-isystemsys", "--", "-Iinc", "-DWITH_KA"])


def test_run_attached(work: Path) -> None:
    # -I and -D (attached) reach the emulator's build as well as the front end.
    out = _ok(["run", "p.cu", "--spec", "p.toml", "-Iinc", "-DWITH_KA", "-I", "sys"])
    assert "x: 300 x float32" in out and "y: 300 x float32" in out


@pytest.mark.slow
def test_verify_attached(work: Path) -> None:
    flags = ["-Iinc", "-DWITH_KA", "-Isys"]
    _ok(["fuse", "p.cu", "-o", "f.cu", *flags])
    _ok(["verify", "p.cu", "f.cu", "--spec", "p.toml", *flags])


def test_hfuse_plan_takes_the_flags(work: Path) -> None:
    # Only the parse: an unknown --kernels name fails after the file parsed with the flags
    # (without them: 'ka' is not defined, or the header is not found).
    result = CliRunner().invoke(main, ["hfuse-plan", "p.cu", "--kernels", "ka,nope",
                                       "--block1", "128", "--block2", "128", *ATTACHED])
    assert "no kernel named 'nope' (kernels: ka, kb)" in result.output, result.output


def test_split_leaves_option_values_alone() -> None:
    from cudafuse.cli.hfuse import hfuse

    args, after = split_attached(hfuse, ["a.cu", "--nvcc-flag", "-isystemX", "-iquoteq",
                                         "-includef.h", "--", "-Iy"])
    assert args == ["a.cu", "--nvcc-flag", "-isystemX", "-iquote", "q", "-include", "f.h"]
    assert after == ["-Iy"]
    assert take_paths(("-Ia", "-I", "b", "-DX=1", "-D", "Y", "-fno-rtti")) == \
        (("a", "b"), ("X=1", "Y"), ("-fno-rtti",))
