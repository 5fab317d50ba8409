"""Every sample pipeline in samples/ compiles with nvcc, both as a program and as a library
(-DCUDAFUSE_NO_MAIN), and exports an `extern "C"` entry point named `*_pipeline`."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
FILES = sorted(SAMPLES.glob("*.cu"))
# The benchmark pipelines (samples/ may hold other .cu files, e.g. the front-end demo).
PIPELINES = ["harris", "shitomasi", "sobel", "unsharp", "enhance", "night", "blur", "canny"]

_ENTRY = re.compile(r'extern\s+"C"\s+[\w\s\*]*?\b(\w+_pipeline)\s*\(')


def _compile(path: Path, defines: tuple[str, ...], tmp: Path) -> tuple[str, int, str]:
    out = tmp / f"{path.stem}{'_lib' if defines else ''}.o"
    cmd = ["nvcc", "-arch=sm_90", *defines, "-c", str(path), "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return " ".join(cmd), proc.returncode, proc.stderr


def test_every_pipeline_is_present() -> None:
    assert {p.stem for p in FILES} >= set(PIPELINES)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_sample_exports_extern_c_pipeline(path: Path) -> None:
    assert _ENTRY.search(path.read_text()), \
        f'{path.name} defines no extern "C" function named ..._pipeline'


@pytest.mark.parametrize("name", PIPELINES)
def test_benchmark_pipeline_entry_and_guarded_main(name: str) -> None:
    text = (SAMPLES / f"{name}.cu").read_text()
    assert f"{name}_pipeline" in _ENTRY.findall(text)
    assert "#ifndef CUDAFUSE_NO_MAIN" in text


def _compile_all(jobs: list[tuple[Path, tuple[str, ...]]]) -> None:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not on PATH")
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda job: _compile(*job, Path(tmp)), jobs))
    failures = [f"$ {cmd}\n{err}" for cmd, rc, err in results if rc != 0]
    assert not failures, "\n".join(failures)


# nvcc checks the samples (inputs, as users would build them), no cudafuse code: its verdict
# changes only with the samples or the toolkit, and it takes about 2 CPU-s a compile, so
# `make test-slow` compiles every sample with its main() and as a library (issue 27).
# -DCUDAFUSE_NO_MAIN compiles the same text less its `#ifndef CUDAFUSE_NO_MAIN` block, which
# has no #else in any sample (test_the_library_build_only_drops_main checks it in `make test`).


def test_the_library_build_only_drops_main(drops_only_main) -> None:
    for path in FILES:
        drops_only_main(path)


@pytest.mark.nvcc
@pytest.mark.slow
def test_samples_compile_with_nvcc() -> None:
    _compile_all([(p, d) for p in FILES for d in ((), ("-DCUDAFUSE_NO_MAIN",))])
