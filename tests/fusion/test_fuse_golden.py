"""Golden tests of `cudafuse fuse`: each tests/fusion/golden/*.cu names its command on
`// RUN:` lines; the command's standard output is checked with FileCheck against the file's
`// CODE:` lines and its standard error against the `// DIAG:` lines."""

from __future__ import annotations

import functools
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from cudafuse.cli import main

HERE = Path(__file__).parent / "golden"
CASES = sorted(HERE.glob("*.cu"))
FileCheck = Callable[..., tuple[int, str]]


def checked(text: str) -> str:
    """The output is the input rewritten, so it carries the test's own directives: drop them,
    or every CHECK would match itself."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.startswith(("// RUN:", "// CODE", "// DIAG")))


def run(path: Path) -> list[Result]:
    """The results of `path`'s RUN lines: run once per version of the file, as
    test_fuse_golden and test_fused_output_compiles check the same runs (a run of `cudafuse`
    costs some CPU-seconds; issue 27). In this process (the CLI's main, output captured): the
    same code path as the command, minus a Python start and cudafuse's imports (0.4 CPU-s)."""
    return _run(path, path.read_text())


@functools.cache
def _run(path: Path, text: str) -> list[Result]:
    out = []
    for line in text.splitlines():
        if line.startswith("// RUN:"):
            args = shlex.split(line[len("// RUN:"):].replace("%s", str(path)))
            out.append(CliRunner().invoke(main, args, catch_exceptions=False))
    assert out, f"{path.name} has no // RUN: line"
    return out


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_fuse_golden(path: Path, filecheck: FileCheck) -> None:
    text = path.read_text()
    for res in run(path):
        assert res.exit_code == 0, res.stderr
        assert "Traceback" not in res.stderr
        for prefix, stream in (("CODE", res.stdout), ("DIAG", res.stderr)):
            if f"// {prefix}" in text:
                status, said = filecheck(path, checked(stream), f"--check-prefix={prefix}",
                                     "--allow-empty")
                assert status == 0, f"{said}\n--- {prefix} stream:\n{stream}"


# nvcc (about 2 CPU-s a file) compiles in `make test` one golden output of each way fused
# code is emitted, `make test-slow` every one (issue 27): a tile in static shared memory
# (tile), relaunched with another block and grid (block), in dynamic shared memory with
# overlapping blocks (tile_stores), a producer's staged tile recomputed from its input
# (staged_tile), a grid-stride loop kept (grid_stride), sibling launches merged (siblings),
# a channel loop kept per thread (thread_private), value functions over structs
# (element_layouts), over an accumulator (accumulate), with a return on each path
# (early_exit), a live intermediate and a helper's overload taking the view
# (live_intermediate), and the host side: helper calls written as
# copies at the call site (helper_calls), cudaLaunchKernel argument arrays (api_launches), a
# time-step loop fused in place (time_step_loop). The others emit value-at-element
# functions and their calls as these do (their constructs are checked by their FileCheck
# lines here and, built by g++, by their differential tests); refusals.cu's output is its
# input.
NVCC_SLICE = {"tile.cu", "block.cu", "tile_stores.cu", "staged_tile.cu", "grid_stride.cu",
              "siblings.cu", "thread_private.cu", "element_layouts.cu", "accumulate.cu",
              "early_exit.cu", "live_intermediate.cu", "helper_calls.cu", "api_launches.cu",
              "time_step_loop.cu"}


@pytest.mark.nvcc
@pytest.mark.parametrize("path", [
    pytest.param(p, id=p.name, marks=() if p.name in NVCC_SLICE else pytest.mark.slow)
    for p in CASES])
def test_fused_output_compiles(path: Path, tmp_path: Path) -> None:
    res = run(path)[0]
    fused = tmp_path / path.name
    fused.write_text(res.stdout)
    nvcc = shutil.which("nvcc")
    assert nvcc
    comp = subprocess.run([nvcc, "-arch=sm_90", "-c", str(fused), "-o", str(tmp_path / "o.o")],
                          capture_output=True, text=True, timeout=300)
    assert comp.returncode == 0, comp.stderr


def test_the_nvcc_slice_names_golden_files() -> None:
    assert NVCC_SLICE <= {p.name for p in CASES}


def test_refused_pipelines_are_left_byte_identical() -> None:
    path = HERE / "refusals.cu"
    res = run(path)[0]
    assert res.stdout == path.read_text()
