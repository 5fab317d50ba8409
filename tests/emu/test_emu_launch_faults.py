"""A launch the GPU refuses (an empty grid: `n / 1024` blocks for a small n) under the
emulator: as on a GPU the kernel does not run, the launch's error is
cudaErrorInvalidConfiguration and the program goes on; `run` warns at the launch, `verify`
refuses to compare such a run (the original's or the transformed program's). A launch from a
spec or Python stays an error (test_emu_barriers.py); docs/emulation.md, "Launches a GPU
refuses"."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from cudafuse.cli import main

# `checked` reads the launch's error twice: the second read finds it cleared, as on a GPU.
EMPTY = """__global__ void k(float *p) { p[threadIdx.x] = 1; }
void run(float *p, int n) { k<<<n / 1024, 256>>>(p); }
void checked(float *p, int *err, int n) {
  k<<<n / 1024, 256>>>(p);
  err[0] = (int)cudaGetLastError();
  err[1] = (int)cudaGetLastError();
}
"""
ROUNDED = """__global__ void k(float *p) { p[threadIdx.x] = 1; }
void run(float *p, int n) { k<<<(n + 1023) / 1024, 256>>>(p); }
"""
SPEC = """entry = "{entry}"
[[args]]
name = "p"
dtype = "float32"
count = 256
role = "out"
{extra}[[args]]
name = "n"
value = 1
"""
ERR = """[[args]]
name = "err"
dtype = "int32"
count = 2
role = "out"
"""
REFUSED = ("launch of 'k' with an empty grid (0,1,1) or block (256,1,1): on a GPU it fails "
           "with cudaErrorInvalidConfiguration and the kernel does not run")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # One folder for the module: each program is built once (the build's key has its path).
    path = tmp_path_factory.mktemp("faults")
    (path / "empty.cu").write_text(EMPTY)
    (path / "rounded.cu").write_text(ROUNDED)
    (path / "run.toml").write_text(SPEC.format(entry="run", extra=""))
    (path / "checked.toml").write_text(SPEC.format(entry="checked", extra=ERR))
    return path


@pytest.fixture
def work(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(folder)
    return folder


def test_run_goes_on_as_on_a_gpu_with_a_warning_at_the_launch(work: Path) -> None:
    res = CliRunner().invoke(main, ["run", "empty.cu", "--spec", "run.toml"])
    assert res.exit_code == 0, res.output
    assert res.stderr == f"empty.cu:2: warning: {REFUSED}\n"
    assert "p: 256 x float32, min 0.0, max 0.0, sum 0" in res.stdout  # the kernel never ran


def test_the_program_sees_the_error_once(work: Path) -> None:
    res = CliRunner().invoke(main, ["run", "empty.cu", "--spec", "checked.toml"])
    assert res.exit_code == 0, res.output
    assert res.stderr == f"empty.cu:4: warning: {REFUSED}\n"
    # cudaErrorInvalidConfiguration is 9; cudaGetLastError clears it.
    assert "err: 2 x int32, min 0, max 9, sum 9" in res.stdout


def test_verify_blames_the_original(work: Path) -> None:
    res = CliRunner().invoke(main, ["verify", "empty.cu", "rounded.cu", "--spec", "run.toml"])
    assert res.exit_code == 1, res.output
    lines = res.stderr.splitlines()
    assert lines[0] == (f"empty.cu:2: error: the original's {REFUSED}; a run where the GPU "
                        "refuses a launch is not compared")
    assert lines[1].startswith("empty.cu: note: the original program fails with this spec")
    assert "match" not in res.stdout


@pytest.mark.slow  # a second build (~5 s of CPU)
def test_verify_refuses_a_transformed_program_the_gpu_refuses(work: Path) -> None:
    res = CliRunner().invoke(main, ["verify", "rounded.cu", "empty.cu", "--spec", "run.toml"])
    assert res.exit_code == 1, res.output
    assert res.stderr == (f"empty.cu:2: error: the transformed program's {REFUSED}; a run "
                          "where the GPU refuses a launch is not compared\n")
    assert "match" not in res.stdout
