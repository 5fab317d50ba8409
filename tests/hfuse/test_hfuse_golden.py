"""Golden tests of `cudafuse hfuse`: each tests/hfuse/golden/*.cu names its command on a
`// RUN:` line (%s: the file, %S: its directory); its standard output is checked with
FileCheck against the file's `// CODE:` lines and its standard error against the `// DIAG:`
lines. The emitted files are also compiled with nvcc where it is installed."""

from __future__ import annotations

import functools
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hfuse_helpers import PROGRAMS, fuse_pair

from cudafuse.cli import main

HERE = Path(__file__).parent / "golden"
CASES = sorted(HERE.glob("*.cu"))
FileCheck = Callable[..., tuple[int, str]]


def checked(text: str) -> str:
    """The output carries the input, directives included: drop them, or every CHECK would
    match itself."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.startswith(("// RUN:", "// CODE", "// DIAG")))


def run(path: Path) -> Result:
    """The result of `path`'s RUN line: run once per version of the file, as
    test_hfuse_golden and test_golden_output_compiles check the same run (issue 27). In this
    process (the CLI's main, output captured): the command's code path minus a Python start
    and cudafuse's imports (0.4 CPU-s a run)."""
    return _run(path, path.read_text())


@functools.cache
def _run(path: Path, text: str) -> Result:
    line = next(x for x in text.splitlines() if x.startswith("// RUN:"))
    # %s: this file; %S: its directory (for a case whose first input lives elsewhere).
    args = shlex.split(line[len("// RUN:"):].replace("%S", str(path.parent))
                       .replace("%s", str(path)))
    return CliRunner().invoke(main, args, catch_exceptions=False)


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_hfuse_golden(path: Path, filecheck: FileCheck) -> None:
    text = path.read_text()
    res = run(path)
    assert res.exit_code == 0, res.stderr
    for prefix, stream in (("CODE", res.stdout), ("DIAG", res.stderr)):
        if f"// {prefix}" in text:
            status, said = filecheck(path, checked(stream), f"--check-prefix={prefix}",
                                 "--allow-empty")
            assert status == 0, f"{said}\n--- {prefix} stream:\n{stream}"


def _nvcc(path: Path) -> None:
    nvcc = shutil.which("nvcc")
    assert nvcc
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(path), "-o",
                          str(path.with_suffix(".o"))], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr
    assert "warning" not in res.stderr, res.stderr


# cooperative_groups.cu's output (thread mode, a part's block group and tiles) compiles in
# `make test-slow` only: nvcc spends 8 CPU-s on CUDA's cooperative_groups headers, and
# test_hfuse_coop.py compiles two fused files of the same emission in `make test` (issue 27).
NVCC_SLOW = {"cooperative_groups.cu"}


@pytest.mark.nvcc
@pytest.mark.parametrize("path", [
    pytest.param(p, id=p.name, marks=pytest.mark.slow if p.name in NVCC_SLOW else ())
    for p in CASES])
def test_golden_output_compiles(path: Path, tmp_path: Path) -> None:
    out = tmp_path / path.name
    out.write_text(run(path).stdout)
    _nvcc(out)


NVCC_PAIRS = [
    ("saxpy", "scale2d", "128", "32x4", "thread"),
    ("rotate_dynamic", "prefix_dynamic", "128", "64", "thread"),
    ("warp_sum", "fill3d", "64", "8x4x2", "thread"),
    ("guarded_reverse", "block_sum_static", "128", "256", "block"),
    ("sum_abs", "sum_sq", "128", "64", "thread"),
    ("sum_abs", "histogram", "128", "64", "block"),
    ("rotate_dynamic", "shift_file_scope_dynamic", "64", "96", "thread"),
]
# In `make test-slow` only (issue 27): saxpy+scale2d, a 1D and a 2D part in thread mode, as
# thread_mode.cu's golden output (reduce,copy2d: compiled above) has them, with a barrier.
NVCC_PAIRS_SLOW = {("saxpy", "scale2d")}


@pytest.mark.nvcc
@pytest.mark.parametrize("k1,k2,b1,b2,mode", [
    pytest.param(*p, id=f"{p[0]}+{p[1]}",
                 marks=pytest.mark.slow if p[:2] in NVCC_PAIRS_SLOW else ())
    for p in NVCC_PAIRS])
def test_fused_pairs_compile(tmp_path: Path, k1: str, k2: str, b1: str, b2: str,
                             mode: str) -> None:
    _nvcc(fuse_pair(tmp_path / "f.cu", PROGRAMS / "pairs.cu", k1, k2, b1, b2, "--mode", mode))
