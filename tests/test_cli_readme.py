"""The README's tour runs as written: every command of its code block, in a shell whose PATH
is what `. .venv/bin/activate` gives (the Set-up section says to run that line), from a
directory that looks like the repository root (the samples), each exiting 0."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]


def tour_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## A tour", 1)[1].split("\n## ", 1)[0]
    block = "\n".join(ln[4:] for ln in section.splitlines() if ln.startswith("    "))
    commands = block.replace("\\\n", " ").splitlines()
    return [re.sub(r"\s+#.*$", "", c).strip() for c in commands if c.strip()]


def test_setup_says_how_to_get_cudafuse_on_the_path() -> None:
    setup = (ROOT / "README.md").read_text().split("## Set-up", 1)[1].split("\n## ", 1)[0]
    assert "\n    . .venv/bin/activate" in setup


def test_the_tour_runs_as_written(cudafuse_exe: str, tmp_path: Path) -> None:
    commands = tour_commands()
    assert [c.split()[:2] for c in commands] == [
        ["cudafuse", "analyze"], ["cudafuse", "analyze"], ["cudafuse", "plan"],
        ["cudafuse", "fuse"], ["cudafuse", "verify"]]
    (tmp_path / "samples").symlink_to(ROOT / "samples")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
                                 f"{os.environ.get('PATH', '')}"}
    for command in commands:
        proc = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"{command}\n{proc.stderr}"
        assert "warning" not in proc.stderr, f"{command}\n{proc.stderr}"
    assert "all outputs match" in proc.stdout
    assert (tmp_path / "harris.fused.cu").exists()
