"""The record of a finished build (runtime/build_record.py): a second build of unchanged inputs
does not parse; a change to the program, to a header it includes or to the options does, and
so does a record that cannot be read or whose library is gone."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cudafuse.runtime import build
from cudafuse.runtime.build import BuildOptions, Built

SAMPLE = Path(__file__).parents[2] / "samples" / "harris.cu"


@pytest.fixture
def counted(monkeypatch) -> list[str]:
    """The programs build.prepare (the parse, rewrite and trampolines) ran on."""
    calls: list[str] = []
    real = build.prepare

    def prepare(path, *args, **kw):
        calls.append(path)
        return real(path, *args, **kw)

    monkeypatch.setattr(build, "prepare", prepare)
    return calls


def test_a_cached_build_comes_back_whole_without_a_parse(counted):
    """Harris (built by many tests with these options: a library in the run's cache) read
    back from its record: the same library and the very entries a parse gives."""
    first = build.build(str(SAMPLE), "emu", BuildOptions())
    again = build.build(str(SAMPLE), "emu", BuildOptions())
    assert counted.count(str(SAMPLE)) <= 1  # the first build's parse at most
    assert again.library == first.library and again.library.is_file()
    parsed = build.prepare(str(SAMPLE), "emu", BuildOptions())
    assert again.entries == parsed.entries and again.fiber_kernels == parsed.fiber_kernels
    assert [e.name for e in again.entries] and again.includes == parsed.includes


@pytest.fixture
def fake_compile(tmp_path, monkeypatch) -> list[str]:
    """build._build without the compiler (its library an empty file): which programs it
    built; the record logic is what is tested."""
    monkeypatch.setenv("CUDAFUSE_CACHE_DIR", str(tmp_path / "cache"))
    built: list[str] = []

    def fake(src: Path, backend: str, opts: BuildOptions) -> Built:
        prep = build.prepare(str(src), backend, opts)
        lib = build.cache_dir() / f"fake-{len(built)}.so"
        lib.write_bytes(b"")
        built.append(src.read_text())
        return Built(lib, prep.entries, prep.fiber_kernels, {}, prep.includes)

    monkeypatch.setattr(build, "_build", fake)
    return built


PROGRAM = '#include "scale.h"\n__global__ void scale(float *a) { a[threadIdx.x] *= FACTOR; }\n'


def test_what_the_build_read_decides(tmp_path, fake_compile):
    header, src = tmp_path / "scale.h", tmp_path / "s.cu"
    header.write_text("#define FACTOR 2.0f\n")
    src.write_text(PROGRAM)
    first = build.build(str(src), "emu", BuildOptions())
    assert build.build(str(src), "emu", BuildOptions()).library == first.library
    assert len(fake_compile) == 1
    header.write_text("#define FACTOR 3.0f\n")  # an included file: its digest is recorded
    build.build(str(src), "emu", BuildOptions())
    assert len(fake_compile) == 2
    src.write_text(PROGRAM.replace("FACTOR", "FACTOR + 1"))
    build.build(str(src), "emu", BuildOptions())
    assert len(fake_compile) == 3
    build.build(str(src), "emu", BuildOptions(defines=("UNUSED=1",)))
    build.build(str(src), "emu", BuildOptions(opt="-O0"))
    assert len(fake_compile) == 5
    build.build(str(src), "emu", BuildOptions(opt="-O0"))
    assert len(fake_compile) == 5


def test_a_broken_record_or_a_lost_library_is_a_miss(tmp_path, fake_compile):
    (tmp_path / "scale.h").write_text("#define FACTOR 2.0f\n")
    src = tmp_path / "s.cu"
    src.write_text(PROGRAM)
    first = build.build(str(src), "emu", BuildOptions())
    [record] = build.cache_dir().glob("*.record.json")
    record.write_text("{not json")
    build.build(str(src), "emu", BuildOptions())
    assert len(fake_compile) == 2
    first.library.unlink()
    build.cache_dir().joinpath("fake-1.so").unlink()
    again = build.build(str(src), "emu", BuildOptions())
    assert len(fake_compile) == 3 and again.library.is_file()


def test_one_build_of_a_key_at_a_time(tmp_path, monkeypatch):
    """Two builds of one program at once (xdist workers share the cache): the second waits
    for the first and takes its library; the compiler runs once."""
    monkeypatch.setenv("CUDAFUSE_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "scale.h").write_text("#define FACTOR 2.0f\n")
    src = tmp_path / "s.cu"
    src.write_text(PROGRAM)
    compiled: list[Path] = []

    def fake_compile(cmd, out, *args, **kw):
        compiled.append(out)
        time.sleep(0.5)  # long enough for the other thread to arrive meanwhile
        out.write_bytes(b"")

    monkeypatch.setattr(build, "_compile", fake_compile)
    monkeypatch.setattr(build, "_guard_object", lambda *a: tmp_path / "guard.o")
    monkeypatch.setattr(build, "_runtime_object", lambda *a: tmp_path / "runtime.o")
    with ThreadPoolExecutor(max_workers=2) as pool:
        libs = list(pool.map(lambda _: build._build(src, "emu", BuildOptions()), range(2)))
    assert len(compiled) == 1 and libs[0].library == libs[1].library == compiled[0]


def test_a_header_that_would_now_be_found_first(tmp_path, fake_compile):
    """The record names the header the parse found; one added earlier in the search order
    (an -I directory before the one holding it) changes that directory, and the record is
    not used."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (second / "scale.h").write_text("#define FACTOR 2.0f\n")
    src = tmp_path / "p" / "s.cu"
    src.parent.mkdir()
    src.write_text(PROGRAM)
    opts = BuildOptions(include_dirs=(str(first), str(second)))
    build.build(str(src), "emu", opts)
    build.build(str(src), "emu", opts)
    assert len(fake_compile) == 1
    (first / "scale.h").write_text("#define FACTOR 5.0f\n")
    again = build.build(str(src), "emu", opts)
    assert len(fake_compile) == 2 and str(first / "scale.h") in again.includes
