"""Running `cudafuse hfuse` in-process and the emulated builds of its outputs."""

from __future__ import annotations

import functools
from pathlib import Path

from click.testing import CliRunner, Result

from cudafuse.cli import main
from cudafuse.runtime import load

PROGRAMS = Path(__file__).parent / "programs"


def hfuse(*args: str) -> Result:
    return CliRunner().invoke(main, ["hfuse", *args], catch_exceptions=False)


def fuse_pair(out: Path, src: Path, k1: str, k2: str, block1: str, block2: str,
              *extra: str) -> Path:
    res = hfuse(str(src), "--kernels", f"{k1},{k2}", "--block1", block1, "--block2", block2,
                "-o", str(out), *extra)
    assert res.exit_code == 0, res.output
    return out


@functools.cache
def _library(path: str, mtime: float, seed: int | None):
    return load(path, backend="emu", seed=seed)


def library(path: Path, seed: int | None = None):
    """One emulated build (and worker) per fused file and scheduling seed (None: threads
    in order; N: a seeded random order between barriers)."""
    return _library(str(path), path.stat().st_mtime, seed)
