"""The precompiled shim: same result as parsing the shim from source, and never a hard failure."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cudafuse.frontend import parse_file
from cudafuse.frontend.parse import ParseOptions
from cudafuse.ir.program import TranslationUnit

SAMPLES = [p for p in sorted((Path(__file__).parents[1] / "corpus").glob("*.cu")) if p.name in (
    "template_stencil.cu", "host_pipeline_streams.cu", "includes_std.cu", "namespaces.cu",
    "includes_cxx.cu")]


def summary(unit: TranslationUnit) -> list[object]:
    # Node equality ignores spans; compare them separately via the function spans.
    return [(f, f.span, f.body) for f in unit.functions] + [unit.globals, unit.launches]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("CUDAFUSE_NO_PCH", raising=False)
    return tmp_path / "cudafuse"


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One cache for the samples below: the first builds the PCH, the others load it (a
    build costs ~0.7 CPU-s; the tests after them check building, replacing and refusing)."""
    with pytest.MonkeyPatch.context() as mp:
        base = tmp_path_factory.mktemp("pch")
        mp.setenv("XDG_CACHE_HOME", str(base))
        mp.delenv("CUDAFUSE_NO_PCH", raising=False)
        yield base / "cudafuse"


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_same_ir_with_and_without_pch(path: Path, shared_cache: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    cache = shared_cache
    with_pch = parse_file(str(path))
    assert list(cache.glob("shim-*.pch"))
    monkeypatch.setenv("CUDAFUSE_NO_PCH", "1")
    without = parse_file(str(path))
    assert summary(with_pch.unit) == summary(without.unit)
    assert with_pch.diagnostics == without.diagnostics


def test_a_corrupt_pch_is_replaced(cache: Path, tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(float *p) { p[threadIdx.x] = 1; }\n")
    parse_file(str(src))
    (pch,) = cache.glob("shim-*.pch")
    pch.write_bytes(b"not a precompiled header")
    assert [k.name for k in parse_file(str(src)).unit.kernels] == ["k"]
    assert not pch.exists() or pch.read_bytes() != b"not a precompiled header"


def test_an_unwritable_cache_only_costs_speed(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file: no directory can go there
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(float *p) { p[0] = 1; }\n")
    assert [k.name for k in parse_file(str(src)).unit.kernels] == ["k"]


def test_user_defines_apply_on_top_of_the_pch(cache: Path, tmp_path: Path) -> None:
    src = tmp_path / "d.cu"
    src.write_text("#include <cmath>\n#ifdef FAST\n__global__ void k(float *p) "
                   "{ p[0] = sqrtf(FAST); }\n#endif\n")
    assert parse_file(str(src)).unit.kernels == []
    fast = parse_file(str(src), ParseOptions(defines=("FAST=2.0f",)))
    assert [k.name for k in fast.unit.kernels] == ["k"]


CXX_FILE = """#include <vector>
#include <algorithm>
__global__ void k(float *p) { p[threadIdx.x] = 1.0f; }
int count(const std::vector<int> &v) { return (int)std::count(v.begin(), v.end(), 1); }
"""


def test_cxx_headers_come_from_their_own_pch(cache: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    plain = tmp_path / "plain.cu"
    plain.write_text("#include <cstdio>\n__global__ void k(float *p) { p[0] = 1; }\n")
    parse_file(str(plain))
    assert not list(cache.glob("shim-cxx-*.pch"))  # a C-only file keeps the small PCH
    src = tmp_path / "cxx.cu"
    src.write_text(CXX_FILE)
    with_pch = parse_file(str(src))
    assert len(list(cache.glob("shim-cxx-*.pch"))) == 1
    monkeypatch.setenv("CUDAFUSE_NO_PCH", "1")
    without = parse_file(str(src))
    assert summary(with_pch.unit) == summary(without.unit)
    assert [f.name for f in with_pch.unit.functions] == ["k", "count"]


@pytest.mark.parametrize("why", ["#define _GLIBCXX_ASSERTIONS 1\n", "-D_GLIBCXX_ASSERTIONS",
                                 "-include", "-I"])
def test_cxx_pch_is_not_used_when_the_headers_could_parse_differently(
        why: str, cache: Path, tmp_path: Path) -> None:
    src = tmp_path / "cxx.cu"
    src.write_text((why if why.startswith("#") else "") + CXX_FILE)
    opts = ParseOptions()
    if why.startswith("-D"):
        opts = ParseOptions(defines=(why[2:],))
    elif why == "-include":
        forced = tmp_path / "forced.h"
        forced.write_text("#define CUDAFUSE_FORCED 1\n")
        opts = ParseOptions(forced_includes=(str(forced),))
    elif why == "-I":
        shadow = tmp_path / "inc"
        shadow.mkdir()
        (shadow / "vector").write_text("#include_next <vector>\n")
        opts = ParseOptions(include_dirs=(str(shadow),))
    result = parse_file(str(src), opts)
    assert [f.name for f in result.unit.functions] == ["k", "count"]
    assert not list(cache.glob("shim-cxx-*.pch"))


def test_a_cxx_pch_that_does_not_build_is_not_retried(cache: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from cudafuse.frontend import parse, pch

    # A header clang rejects stands for a library version the PCH cannot be built with.
    monkeypatch.setattr(parse, "CXX_HEADERS", (*pch.CXX_HEADERS, "no_such_header_cf"))
    src = tmp_path / "cxx.cu"
    src.write_text(CXX_FILE)
    builds: list[str] = []
    real_parse = pch.ci.Index.parse

    def counting(self, path, *args, **kwargs):  # type: ignore[no-untyped-def]
        builds.append(str(path))
        return real_parse(self, path, *args, **kwargs)

    monkeypatch.setattr(pch.ci.Index, "parse", counting)
    for _ in range(2):
        result = parse_file(str(src))
        assert [f.name for f in result.unit.functions] == ["k", "count"]
    (failed,) = cache.glob("shim-cxx-*.failed")
    assert "no_such_header_cf" in failed.read_text()
    assert len([b for b in builds if b.endswith(".h") and "shim-cxx-" in b]) == 1
