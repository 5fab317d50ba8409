"""Paths shared by the emulator tests (a plain module: conftest.py cannot be imported)."""

from pathlib import Path

PROGRAMS = Path(__file__).parent / "programs"
