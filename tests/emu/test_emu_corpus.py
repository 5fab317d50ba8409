"""Every corpus and sample program builds for the emulator, or is refused with a reason
(slow: about 0.7 s of g++ per file; `make test-slow` or `pytest -m slow`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cudafuse.diagnostics import CudafuseError
from cudafuse.runtime.build import BuildOptions, build

ROOT = Path(__file__).parent.parent.parent
FILES = sorted((ROOT / "tests" / "corpus").glob("*.cu")) + sorted((ROOT / "samples").glob("*.cu"))
REFUSED: dict[str, str] = {}


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_builds_for_emu(path):
    if path.name in REFUSED:
        with pytest.raises(CudafuseError, match=REFUSED[path.name]):
            build(str(path), "emu", BuildOptions(opt="-O0"))
        return
    built = build(str(path), "emu", BuildOptions(opt="-O0"))
    assert built.library.exists() and built.entries
