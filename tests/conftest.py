"""Shared fixtures and the `nvcc` / `gpu` skip logic (kept small: every test package uses it)."""

from __future__ import annotations

import functools
import shutil
import sys
from pathlib import Path

import pytest

from cudafuse.frontend import parse_file
from cudafuse.frontend.parse import ParseResult

TESTS = Path(__file__).parent
CORPUS = TESTS / "corpus"


def corpus_files() -> list[Path]:
    """The .cu corpus in a stable order (usable in `parametrize`, which runs before fixtures)."""
    return sorted(CORPUS.glob("*.cu"))


@functools.cache
def parse_corpus_file(path: Path) -> ParseResult:
    """Parse a corpus file once per session (several test modules walk the whole corpus)."""
    return parse_file(str(path))


@functools.cache
def have_nvcc() -> bool:
    return shutil.which("nvcc") is not None


@functools.cache
def have_gpu() -> bool:
    """True when PyCUDA loads and can open a context on device 0."""
    try:
        import pycuda.driver as drv  # noqa: PLC0415 - optional dependency

        drv.init()
        ctx = drv.Device(0).make_context()
        ctx.pop()
        return True
    except Exception:  # noqa: BLE001 - any failure means: no usable GPU here
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "nvcc" in item.keywords and not have_nvcc():
            item.add_marker(pytest.mark.skip(reason="nvcc not on PATH"))
        if "gpu" in item.keywords and not have_gpu():
            item.add_marker(pytest.mark.skip(reason="no GPU (PyCUDA cannot create a context)"))


@pytest.fixture(scope="session")
def cudafuse_exe() -> str:
    """The `cudafuse` console script of the running interpreter's environment."""
    exe = Path(sys.executable).parent / "cudafuse"
    if not exe.exists():
        pytest.skip("the cudafuse console script is not installed next to this python")
    return str(exe)


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    return CORPUS
