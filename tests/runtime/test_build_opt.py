"""The optimisation level of a build (runtime/build.py, default_opt): an explicit `opt` wins;
otherwise -O2, or CUDAFUSE_EMU_OPT for the emulator (the suite sets -O0), and a build's
record follows the level actually used."""

from __future__ import annotations

from pathlib import Path

from cudafuse.runtime import build
from cudafuse.runtime.build import BuildOptions

SAMPLE = Path(__file__).parents[2] / "samples" / "harris.cu"


def _opt_flags(backend: str, opts: BuildOptions) -> list[str]:
    return [f for f in build._flags(SAMPLE, backend, opts) if f.startswith("-O")]


def test_the_environment_sets_the_emulators_default(monkeypatch):
    monkeypatch.setenv("CUDAFUSE_EMU_OPT", "-O1")
    assert _opt_flags("emu", BuildOptions()) == ["-O1"]
    assert _opt_flags("emu", BuildOptions(opt="-O3")) == ["-O3"]
    assert _opt_flags("nvcc", BuildOptions()) == ["-O2"]  # the GPU build is not the suite's
    monkeypatch.delenv("CUDAFUSE_EMU_OPT")
    assert _opt_flags("emu", BuildOptions()) == ["-O2"]


def test_a_record_is_not_shared_across_levels(monkeypatch):
    """A library built at the suite's -O0 is never handed to a build that asks for -O2."""
    monkeypatch.setenv("CUDAFUSE_EMU_OPT", "-O0")
    low = build._record_path(SAMPLE, "emu", BuildOptions())
    monkeypatch.setenv("CUDAFUSE_EMU_OPT", "-O2")
    assert build._record_path(SAMPLE, "emu", BuildOptions()) != low
