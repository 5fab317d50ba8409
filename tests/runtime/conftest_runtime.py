"""Paths shared by the runtime tests (a plain module: conftest.py cannot be imported)."""

from pathlib import Path

PROGRAMS = Path(__file__).parent / "programs"
EMU_PROGRAMS = Path(__file__).parent.parent / "emu" / "programs"
