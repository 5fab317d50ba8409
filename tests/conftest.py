"""Shared fixtures and the `nvcc` / `gpu` skip logic (kept small: every test package uses it).

Helpers are offered as fixtures, not importable functions: with conftest files in several
directories (and packages coming and going), `from conftest import ...` is ambiguous. For
`parametrize` over the corpus, use `sorted(CORPUS.glob("*.cu"))` with
`CORPUS = Path(__file__).parents[k] / "corpus"`.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

import pytest

from cudafuse.frontend import parse_file
from cudafuse.frontend.parse import ParseResult

CORPUS = Path(__file__).parent / "corpus"

# PYTHONDONTWRITEBYTECODE (set on these machines) also stops pytest from keeping the test
# modules it rewrites for assertion messages: every pytest process (each xdist worker, each
# targeted run) then rewrites all of them again while collecting, 8.4 s of CPU for the whole
# suite against 2.6 s with them kept. Keep them (tests/**/__pycache__, git-ignored); pytest
# uses one only while its source's mtime and size match. A clean clone's first run still
# rewrites every module.
sys.dont_write_bytecode = False

# Every emitted file is compiled with nvcc before it is written (codegen/compile_check.py):
# hundreds of emitted files would cost the suite minutes. Tests of that check clear this.
os.environ.setdefault("CUDAFUSE_NO_NVCC_CHECK", "1")
# Likewise the ptxas figures of fused groups (passes/vertical/plan/resources.py): estimates
# instead; tests of the ptxas path clear it.
os.environ.setdefault("CUDAFUSE_NO_PTXAS", "1")
# analyze/plan/fuse show progress lines once a run takes 3 s (progress.DELAY): on a loaded
# machine a test's run may, and tests assert stderr: only tests of those lines show them.
os.environ.setdefault("CUDAFUSE_PROGRESS_DELAY", "3600")
# g++ building emulated programs is most of the suite's CPU: at -O0 a build takes about half
# as long as at -O2 (runtime/build.py, default_opt), and the suite's programs are small
# enough that running them unoptimised costs less. Tests that name an `opt` keep it;
# `make test-slow` builds at -O2, as users' runs do.
os.environ.setdefault("CUDAFUSE_EMU_OPT", "-O0")


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


# CUDAFUSE_TEST_CPU=PREFIX: one JSON line per test in PREFIX.<xdist worker>.jsonl with its
# CPU seconds, the process's own and its waited-for children's (g++, nvcc, emulation workers
# when closed), and of those the emulator builds' (g++ in runtime/build.py). On the shared
# machine the wall durations grow with the load; CPU time is what the suite itself spends.
# benchmarks/suite_cpu.py sums the lines by file (issue 27).
_CPU_LOG = os.environ.get("CUDAFUSE_TEST_CPU")
_CPU_KEY = pytest.StashKey[TextIO]()
_BUILD_CPU = [0.0, 0]  # children's CPU seconds inside runtime.build._compile, calls


def _cpu() -> tuple[float, float]:
    t = os.times()
    return t.user + t.system, t.children_user + t.children_system


def pytest_configure(config: pytest.Config) -> None:
    if not _CPU_LOG or (getattr(config.option, "numprocesses", None)
                        and not os.environ.get("PYTEST_XDIST_WORKER")):
        return  # (the xdist controller runs no tests)
    from cudafuse.runtime import build  # noqa: PLC0415 - only when measuring

    compile_ = build._compile

    def counted(*args: Any, **kw: Any) -> None:
        before = _cpu()[1]
        try:
            return compile_(*args, **kw)
        finally:
            _BUILD_CPU[0] += _cpu()[1] - before
            _BUILD_CPU[1] += 1

    build._compile = counted
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    config.stash[_CPU_KEY] = open(f"{_CPU_LOG}.{worker}.jsonl", "w", buffering=1)  # noqa: SIM115


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None
                            ) -> Iterator[None]:
    log = item.config.stash.get(_CPU_KEY, None)
    if log is None:
        yield
        return
    own, children = _cpu()
    build, builds, start = _BUILD_CPU[0], _BUILD_CPU[1], time.monotonic()
    yield
    own2, children2 = _cpu()
    log.write(json.dumps({"id": item.nodeid, "wall": round(time.monotonic() - start, 3),
                          "self": round(own2 - own, 3), "children": round(children2 - children, 3),
                          "build": round(_BUILD_CPU[0] - build, 3),
                          "builds": _BUILD_CPU[1] - builds}) + "\n")


@pytest.fixture(scope="session", autouse=True)
def _build_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """One emulator build cache for the whole run (CUDAFUSE_CACHE_DIR), shared by the xdist
    workers, whose base temporary directories are siblings in the run's: a program that
    tests on both workers load (a sample, a program of tests/*/programs) is compiled once,
    not once per worker, and no run reads or fills ~/.cache. Two workers building one key
    at once compile it once: the second waits on the key's lock (runtime/build.py); the
    emulator's precompiled header and the builds' records (runtime/emu_pch.py,
    build_record.py) are shared the same way. CUDAFUSE_TEST_KEEP_CACHE keeps the
    environment's cache."""
    if "CUDAFUSE_TEST_KEEP_CACHE" in os.environ:
        return
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    path = root / "cudafuse-cache"
    path.mkdir(exist_ok=True)
    os.environ["CUDAFUSE_CACHE_DIR"] = str(path)


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


@pytest.fixture(scope="session")
def parse_cached() -> Callable[[Path], ParseResult]:
    """parse_file with default options, once per path per session (several modules walk the
    whole corpus). Callers must not mutate the result."""
    return functools.cache(lambda path: parse_file(str(path)))


def _filecheck(checks: Path, text: str, *options: str) -> tuple[int, str]:
    """`filecheck CHECKS OPTIONS...` (PyPI `filecheck`) with `text` as its input, in this
    process: the same Matcher the command runs, minus a Python start (0.2 CPU-s a check;
    golden tests make about a hundred: issue 27). Returns the exit status and what it
    printed."""
    from filecheck.matcher import Matcher  # noqa: PLC0415 - only golden tests need it
    from filecheck.options import parse_argv_options  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="cudafuse-filecheck-") as tmp:
        given = Path(tmp) / "input.txt"
        given.write_text(text, encoding="utf-8")
        opts = parse_argv_options(["filecheck", str(checks), *options,
                                   "--input-file", str(given)])
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                status = Matcher.from_opts(opts).run()
            except SystemExit as ex:  # a malformed check file: status and message as the CLI's
                status = ex.code if isinstance(ex.code, int) else 1
    return status, out.getvalue()


@pytest.fixture(scope="session")
def filecheck() -> Callable[..., tuple[int, str]]:
    """filecheck(checks, text, *options): FileCheck `text` against the file `checks`."""
    return _filecheck


def _drops_only_main(path: Path) -> None:
    """A sample built with -DCUDAFUSE_NO_MAIN compiles the same text less its
    `#ifndef CUDAFUSE_NO_MAIN` block: one directive tests the macro, and that block has no
    #else or #elif at its own depth. Then an nvcc check of the program with its main() also
    covers the library build (issue 27: make test compiles each once, in make test-slow)."""
    text = path.read_text()
    assert len(re.findall(r"^[ \t]*#[ \t]*(?:if|elif).*CUDAFUSE_NO_MAIN", text,
                          re.M)) == 1, path.name
    directive = re.compile(r"^[ \t]*#[ \t]*(ifndef|ifdef|if|else|elif|endif)\b", re.M)
    depth = 0
    for m in directive.finditer(text, text.index("#ifndef CUDAFUSE_NO_MAIN")):
        kind = m.group(1)
        assert not (depth == 1 and kind in ("else", "elif")), f"{path.name}: #{kind}"
        depth += {"endif": -1, "else": 0, "elif": 0}.get(kind, 1)
        if depth == 0:
            break
    assert depth == 0, path.name


@pytest.fixture(scope="session")
def drops_only_main() -> Callable[[Path], None]:
    """drops_only_main(path): assert the sample's library build only leaves out main()."""
    return _drops_only_main
