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


@pytest.mark.nvcc
@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_fused_output_compiles(path: Path, tmp_path: Path) -> None:
    res = run(path)[0]
    fused = tmp_path / path.name
    fused.write_text(res.stdout)
    nvcc = shutil.which("nvcc")
    assert nvcc
    comp = subprocess.run([nvcc, "-arch=sm_90", "-c", str(fused), "-o", str(tmp_path / "o.o")],
                          capture_output=True, text=True, timeout=300)
    assert comp.returncode == 0, comp.stderr


def test_refused_pipelines_are_left_byte_identical() -> None:
    path = HERE / "refusals.cu"
    res = run(path)[0]
    assert res.stdout == path.read_text()
