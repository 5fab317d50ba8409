"""lit-style golden tests: each .cu here names its command on `// RUN:` lines and carries
`// CHECK:` lines; the command's stdout is checked with FileCheck (the `filecheck` package).

    // RUN: analyze %s --format json

runs `cudafuse analyze <file> --format json` (several RUN lines: each output is checked
against the same CHECK lines, so use one per file unless they agree).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from cudafuse.cli import main

HERE = Path(__file__).parent
CASES = sorted(HERE.glob("*.cu"))


def run_lines(path: Path) -> list[list[str]]:
    out = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("// RUN:"):
            args = shlex.split(line[len("// RUN:"):].replace("%s", str(path)))
            out.append(args)
    return out


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_golden(path: Path, filecheck: Callable[..., tuple[int, str]]) -> None:
    runs = run_lines(path)
    assert runs, f"{path.name} has no // RUN: line"
    for args in runs:
        # In this process (the CLI's main, output captured): the command's code path minus a
        # Python start and cudafuse's imports (0.4 CPU-s a run; issue 27).
        tool = CliRunner().invoke(main, args, catch_exceptions=False)
        assert tool.exit_code == 0, tool.stderr
        status, said = filecheck(path, tool.stdout)
        assert status == 0, f"{said}\n--- output:\n{tool.stdout}"
