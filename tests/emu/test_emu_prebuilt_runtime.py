"""The emulator's runtime compiled once (emu/runtime.cpp, runtime/build.py's _runtime_object)
and linked into every program: made again whenever its source, the headers or the options
that shape its code change, and not for a program's own macros. (That every emulated program
links it and runs is what the rest of tests/emu shows.)"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from cudafuse.runtime import build


def test_the_object_is_keyed_by_its_source_headers_and_options(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[list[str]] = []

    def fake_compile(cmd: list[str], out: Path, *args: object, **kw: object) -> None:
        compiled.append(cmd)
        out.write_bytes(b"")

    monkeypatch.setenv("CUDAFUSE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(build, "_compile", fake_compile)
    o2 = build.BuildOptions(opt="-O2")
    first = build._runtime_object("g++", o2)
    assert build._runtime_object("g++", o2) == first and len(compiled) == 1  # cached
    # The program's own macros and include directories do not shape the runtime's code.
    assert build._runtime_object("g++", build.BuildOptions(
        opt="-O2", defines=("BLOCK=512",), include_dirs=(str(tmp_path),))) == first
    assert not any("-DBLOCK=512" in c for c in compiled)
    others = {build._runtime_object("g++", build.BuildOptions(opt="-O0")),
              build._runtime_object("g++", build.BuildOptions(opt="-O2", std="-std=c++20")),
              build._runtime_object("g++", build.BuildOptions(opt="-O2", sanitize=True)),
              build._runtime_object("clang++", o2)}
    assert first not in others and len(others) == 4
    assert "-fsanitize=address" in compiled[3]
    # A changed runtime.cpp (or header) is compiled again.
    changed = tmp_path / "runtime.cpp"
    changed.write_bytes(build.runtime_path().read_bytes() + b"\n// changed\n")
    monkeypatch.setattr(build, "runtime_path", lambda: changed)
    assert build._runtime_object("g++", o2) != first
    assert compiled[-1][-1] == str(changed)


def test_a_launch_compiles_only_its_kernel_dependent_code(tmp_path: Path) -> None:
    """A launch instantiates only what depends on its kernel (the body's thunks): the launch
    machinery (checks, the block and fiber schedulers, the pool, the kernel registry's map,
    tail launches) is type-erased into runtime.cpp, compiled once (issue 27). Before, each
    program emitted ~1,600 functions for one launch; now ~170."""

    if not shutil.which("g++") or not shutil.which("nm"):
        pytest.skip("needs g++ and nm")
    src = tmp_path / "one.cpp"
    src.write_text(
        "__global__ void k(float *a, int n) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) a[i] += 1;\n}\n"
        "__CF_KERNEL(::k, \"k\", false, true);\n"
        "void run(float *d, int n) {\n"
        "  ::cudafuse_emu::launch(\"k\", __FILE__, __LINE__, false, true)(1, 32)"
        ".run([&](auto... a) { k(a...); }, d, n);\n}\n")
    obj = tmp_path / "one.o"
    subprocess.run(["g++", "-std=c++17", "-O0", "-g0", "-fPIC", "-w", "-x", "c++", "-include",
                    str(build.header_path()), "-I", str(build.include_dir()), "-c", str(src),
                    "-o", str(obj)], check=True)
    names = subprocess.run(["nm", "-C", "--defined-only", str(obj)], check=True,
                           capture_output=True, text=True).stdout.splitlines()
    code = [n for n in names if n.split(" ")[1:2] and n.split(" ")[1] in "TtWw"]
    for machinery in ("run_block_fibers", "run_grid_fibers", "ParallelLaunch", "pool_run",
                      "KernelInfo", "order_check", "ChildGrid"):
        assert not [n for n in code if machinery in n], machinery
    assert len(code) < 400, len(code)
