"""The .cu corpus: every file compiles with nvcc and parses cleanly with our front end, and the
kernels and launches it declares in `// EXPECT-...` comments are the ones the front end finds.

    // EXPECT-KERNEL: name param_count
    // EXPECT-LAUNCH: host_function -> kernel arg_count     (in source order per host function)
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cudafuse.frontend.parse import ParseResult
from cudafuse.ir.nodes import Node

_KERNEL = re.compile(r"^// EXPECT-KERNEL: (\w+) (\d+)$", re.M)
_LAUNCH = re.compile(r"^// EXPECT-LAUNCH: (\w+) -> (\w+) (\d+)$", re.M)

FILES = sorted((Path(__file__).parents[1] / "corpus").glob("*.cu"))
ParseCached = Callable[[Path], ParseResult]
IDS = [p.name for p in FILES]


def expectations(path: Path) -> tuple[dict[str, int], dict[str, list[tuple[str, int]]]]:
    text = path.read_text()
    kernels = {name: int(count) for name, count in _KERNEL.findall(text)}
    launches: dict[str, list[tuple[str, int]]] = {}
    for host, kernel, count in _LAUNCH.findall(text):
        launches.setdefault(host, []).append((kernel, int(count)))
    return kernels, launches


def test_corpus_is_big_enough() -> None:
    assert len(FILES) >= 25
    for path in FILES:
        kernels, _ = expectations(path)
        assert kernels, f"{path.name} declares no EXPECT-KERNEL line"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_corpus_file_parses_as_declared(path: Path, parse_cached: ParseCached) -> None:
    result = parse_cached(path)
    assert [d.format() for d in result.diagnostics] == []
    unit = result.unit
    kernels, launches = expectations(path)
    assert {k.name: len(k.params) for k in unit.kernels} == kernels
    found = {host: [(ln.kernel, len(ln.args)) for ln in ls] for host, ls in unit.launches.items()}
    assert found == launches
    for fn in unit.functions:
        if fn.body is not None:
            _check_spans(fn.body, len(unit.source.data))


def _check_spans(root: Node, size: int) -> None:
    """Every lowered node inside the main file has a span within the file and in its parent."""
    stack: list[tuple[Node, Node | None]] = [(root, None)]
    while stack:
        node, parent = stack.pop()
        sp = node.span
        if sp.file:
            assert 0 <= sp.start <= sp.end <= size, (type(node).__name__, sp)
            assert sp.line >= 1 and sp.col >= 1
            if parent is not None and parent.span.file:
                assert parent.span.start <= sp.start and sp.end <= parent.span.end, (
                    type(parent).__name__, parent.span, type(node).__name__, sp)
        stack.extend((c, node) for c in node.children() if c is not None)


def _nvcc(path: Path) -> tuple[Path, int, str]:
    proc = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(path), "-o", "/dev/null"],
                          capture_output=True, text=True, timeout=300)
    return path, proc.returncode, proc.stderr


# nvcc checks the corpus (the front end's inputs), no cudafuse code: its verdict changes only
# with the files or the toolkit, and it takes about 1 s of CPU a file, so `make test-slow`
# compiles all of them (issue 27; the default suite compiled every 8th, 14 CPU-s).
@pytest.mark.nvcc
@pytest.mark.slow
@pytest.mark.parametrize("files", [pytest.param(FILES, id="all")])
def test_corpus_compiles_with_nvcc(files: list[Path]) -> None:
    # One test, two workers: nvcc dominates and the machines here have two cores.
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(_nvcc, files))
    failures = [f"{p.name} (exit {rc}):\n{err}" for p, rc, err in results if rc != 0]
    assert not failures, "\n".join(failures)


SAMPLE = Path(__file__).parents[2] / "samples" / "blur_pipeline.cu"


def test_demo_sample_parses(parse_cached: ParseCached) -> None:
    result = parse_cached(SAMPLE)
    assert result.diagnostics == []
    unit = result.unit
    assert [k.name for k in unit.kernels] == ["grayscale", "blur3x3", "sobel_mag", "threshold"]
    assert [ln.kernel for ln in unit.launches["edge_pipeline"]] == [
        "grayscale", "blur3x3", "sobel_mag", "threshold"]
    assert "main" in {f.name for f in unit.functions}


# (nvcc compiles the demo sample, with and without its main(), with every other sample in
# tests/samples/test_samples_compile.py, `make test-slow`: issue 27.)
