"""lit-style golden tests: each .cu here names its command on `// RUN:` lines and carries
`// CHECK:` lines; the command's stdout is checked with FileCheck (the `filecheck` package).

    // RUN: analyze %s --format json

runs `cudafuse analyze <file> --format json` (several RUN lines: each output is checked
against the same CHECK lines, so use one per file unless they agree).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASES = sorted(HERE.glob("*.cu"))


def filecheck_cmd() -> list[str]:
    exe = Path(sys.executable).parent / "filecheck"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "filecheck"]


def run_lines(path: Path) -> list[list[str]]:
    out = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("// RUN:"):
            args = shlex.split(line[len("// RUN:"):].replace("%s", str(path)))
            out.append(args)
    return out


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_golden(path: Path) -> None:
    runs = run_lines(path)
    assert runs, f"{path.name} has no // RUN: line"
    for args in runs:
        tool = subprocess.run([sys.executable, "-m", "cudafuse", *args], capture_output=True,
                              text=True, timeout=60)
        assert tool.returncode == 0, tool.stderr
        check = subprocess.run([*filecheck_cmd(), str(path)], input=tool.stdout,
                               capture_output=True, text=True, timeout=60)
        assert check.returncode == 0, f"{check.stdout}\n{check.stderr}\n--- output:\n{tool.stdout}"
