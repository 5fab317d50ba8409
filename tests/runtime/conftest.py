"""The runtime tests build into the run's shared cache (tests/conftest.py, _build_cache)."""

from __future__ import annotations

from pathlib import Path

PROGRAMS = Path(__file__).parent / "programs"
