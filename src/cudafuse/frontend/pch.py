"""A precompiled header for the CUDA shim, cached on disk.

The shim pulls in <math.h>, <stdlib.h> and <stdio.h> as nvcc's own headers do. Parsing those
is most of the fixed cost of every parse (about 90 ms of 110 ms for a small file), and their
ten thousand declarations made walking the translation unit slow. Loading them from a PCH
takes a few milliseconds, and an index created with `excludeDecls` then lists only the user's
declarations.

The PCH is built with -fpch-instantiate-templates. Without it, libstdc++'s <cmath> (which
<math.h> is in C++) leaves template instantiations pending in the PCH, and every parse that
loads it performed them again: half of the PCH's declarations read back, about 40 ms per
parse, more than the rest of loading it.

The cache key covers everything the PCH depends on: the shim and stand-in headers (and the
runtime API's declarations they include, cuda_api/), the
libclang build, and the arguments the PCH is built with. User -D/-I options are not part of
the PCH (clang accepts extra macros and search paths on top of one). Whenever a PCH cannot be
built, saved or loaded, parsing goes on without it: it only ever costs speed. A PCH whose
headers clang rejects leaves a `.failed` file with clang's messages under the same key, so
that the build is not attempted again on every parse. Set CUDAFUSE_NO_PCH=1 to bypass it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import clang.cindex as ci

from cudafuse import cuda_api


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cudafuse"


# Arguments only the PCH build takes (the parses that load it do not need them).
BUILD_ONLY = ["-fpch-instantiate-templates"]


def _key(include_root: Path, args: list[str]) -> str:
    h = hashlib.sha256()
    h.update(str(ci.conf.lib._name).encode())
    for header in [*sorted(include_root.rglob("*.h")), *cuda_api.headers()]:
        h.update(str(header).encode())
        h.update(header.read_bytes())
    h.update("\0".join([*args, *BUILD_ONLY]).encode())
    return h.hexdigest()[:24]


# C++ standard library headers that CUDA host code commonly includes. libstdc++ parses them
# slowly (<vector> 60 ms, <vector>+<iostream>+<algorithm>+<string> 290 ms on the 2-core CI
# machine); a second PCH holds them after the shim, and is used for files that include one of
# them (loading it costs ~10 ms more than the shim's alone, so other files do not).
CXX_HEADERS = ("algorithm", "array", "cassert", "cfloat", "chrono", "climits", "cstdint",
               "cstring", "fstream", "functional", "iomanip", "iostream", "limits", "list",
               "map", "memory", "numeric", "optional", "queue", "random", "set", "sstream",
               "stdexcept", "string", "tuple", "unordered_map", "utility", "vector")


def shim_pch(shim: Path, include_root: Path, args: list[str],
             headers: tuple[str, ...] = ()) -> str | None:
    """Path of a PCH of `shim` followed by `#include <h>` for each of `headers`, parsed with
    `args` (building it if needed), or None."""
    if os.environ.get("CUDAFUSE_NO_PCH"):
        return None
    try:
        key = _key(include_root, [*args, *headers])
        target = cache_dir() / (f"shim-cxx-{key}.pch" if headers else f"shim-{key}.pch")
        if target.is_file():
            return str(target)
        failed = target.with_suffix(".failed")
        if failed.is_file():
            return None  # it does not build here (a header clang rejects): do not retry
        target.parent.mkdir(parents=True, exist_ok=True)
        source = shim
        if headers:
            # The PCH's own source must stay where it was built: clang checks it on loading.
            source = target.with_suffix(".h")
            text = f'#include "{shim}"\n' + "".join(f"#include <{h}>\n" for h in headers)
            if not source.is_file() or source.read_text() != text:
                _write_atomically(source, text)
        tu = ci.Index.create().parse(
            str(source), args=[*args, *BUILD_ONLY], options=ci.TranslationUnit.PARSE_INCOMPLETE
            | ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
        if any(d.severity >= ci.Diagnostic.Error for d in tu.diagnostics):
            # Remembered, with why, under the same key: the build costs up to a second, and
            # would fail the same way on every parse until the headers or libclang change.
            _write_atomically(failed, "\n".join(d.spelling for d in tu.diagnostics) + "\n")
            return None
        import tempfile  # only when building: keeps start-up short

        fd, tmp = tempfile.mkstemp(prefix=".shim-", suffix=".pch", dir=target.parent)
        os.close(fd)
        try:
            tu.save(tmp)
            os.replace(tmp, target)  # atomic: concurrent runs never read half a PCH
        finally:
            Path(tmp).unlink(missing_ok=True)
        return str(target)
    except (OSError, ci.TranslationUnitLoadError, ci.TranslationUnitSaveError):
        return None


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


def discard(path: str) -> None:
    """Drop a PCH that failed to load (e.g. a system header changed since it was built)."""
    Path(path).unlink(missing_ok=True)
