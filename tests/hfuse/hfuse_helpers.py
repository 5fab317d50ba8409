"""Running `cudafuse hfuse` in-process and the emulated builds of its outputs."""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from pathlib import Path

from click.testing import CliRunner, Result

from cudafuse.cli import main
from cudafuse.runtime import KernelError, Library, load

PROGRAMS = Path(__file__).parent / "programs"


def hfuse(*args: str) -> Result:
    return CliRunner().invoke(main, ["hfuse", *args], catch_exceptions=False)


def fuse_pair(out: Path, src: Path, k1: str, k2: str, block1: str, block2: str,
              *extra: str) -> Path:
    res = hfuse(str(src), "--kernels", f"{k1},{k2}", "--block1", block1, "--block2", block2,
                "-o", str(out), *extra)
    assert res.exit_code == 0, res.output
    return out


# The libraries kept open for reuse, least recently used first. Each holds an emulation
# worker (a process): keeping every fused file's for the whole run had dozens alive at once.
# One closed here only stops its worker; a later call on it starts a new one.
_OPEN: OrderedDict[tuple[str, float, int | None], Library] = OrderedDict()
MAX_OPEN = 2  # an original and its transformed file


def library(path: Path, seed: int | None = None) -> Library:
    """One emulated build per fused file and scheduling seed (None: threads in order; N: a
    seeded random order between barriers), its worker kept while it is among the MAX_OPEN
    most recently used."""
    key = (str(path), path.stat().st_mtime, seed)
    lib = _OPEN.pop(key, None) or load(path, backend="emu", seed=seed)
    _OPEN[key] = lib
    while len(_OPEN) > MAX_OPEN:
        with contextlib.suppress(KernelError):  # as before: an open library was never closed
            _OPEN.popitem(last=False)[1].close()
    return lib
