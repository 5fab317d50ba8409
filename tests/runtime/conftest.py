"""Fixtures for the runtime tests: a private build cache and shared, module-scoped builds."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

PROGRAMS = Path(__file__).parent / "programs"


@pytest.fixture(scope="session", autouse=True)
def _cache_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    if "CUDAFUSE_TEST_KEEP_CACHE" not in os.environ:
        os.environ["CUDAFUSE_CACHE_DIR"] = str(tmp_path_factory.mktemp("cudafuse-cache"))
