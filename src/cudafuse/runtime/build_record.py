"""A finished build's record, found again without parsing the program.

`build()` keys its library by the text it compiles, which takes a libclang parse, the
emulator's rewrite and the trampolines to produce: about 0.3 s of a small program, paid on
every `load` even when the library is cached (verify loads three programs, the test suite
thousands). The record maps what the build reads *before* parsing (the program's bytes and
resolved path, the options and compiler flags, the emulator's headers, the environment
variables the build reads, cudafuse's own code) to what the parse gave: the library, its
entries and the included files. A record is used only while every included file still has
the content the build saw; anything else is a miss, and a miss only costs the parse.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path

from cudafuse.diagnostics import Diagnostic, Severity
from cudafuse.runtime.trampoline import Entry

RECORD_VERSION = "1"
# Environment variables whose values change what a build finds (emu/cccl.py's CCCL, the
# compiler): part of the key.
_ENVIRONMENT = ("CUDA_HOME", "CUDA_PATH", "CXX", "PATH")


@functools.cache
def code_fingerprint() -> str:
    """cudafuse's own files (their names, sizes and modification times): a record made by
    other code (an edited checkout, another version) is never used."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if "__pycache__" in p.parts:
            continue
        try:
            st = p.stat()
        except OSError:  # removed meanwhile
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        h.update(f"{p.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()[:24]


def key(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for p in (RECORD_VERSION, code_fingerprint(), *(os.environ.get(v, "") for v in
                                                   _ENVIRONMENT), *parts):
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()[:24]


def includes_digest(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()


def save(path: Path, library: Path, includes: list[str], digest: str, entries: list[Entry],
         fiber_kernels: frozenset[str], uncallable: dict[str, Diagnostic]) -> None:
    """Write the record (under a temporary name, renamed into place: a concurrent reader
    sees the whole record or none)."""
    record = {"library": library.name, "includes": includes, "digest": digest,
              "entries": [asdict(e) for e in entries], "fibers": sorted(fiber_kernels),
              "uncallable": {n: asdict(d) for n, d in uncallable.items()}}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        json.dump(record, fh)
    os.replace(tmp, path)


def load(path: Path, digest_of: Callable[[list[str]], str]
         ) -> tuple[Path, list[Entry], frozenset[str], dict[str, Diagnostic], list[str]] | None:
    """The record at `path` when its library exists and `digest_of(includes)` is still the
    digest recorded; None otherwise."""
    try:
        record = json.loads(path.read_text())
        library = path.parent / record["library"]
        if not library.is_file() or digest_of(record["includes"]) != record["digest"]:
            return None
        # JSON has lists where an Entry has tuples (params, scope, where)
        entries = [Entry(**{k: tuple(v) if isinstance(v, list) else v for k, v in e.items()})
                   for e in record["entries"]]
        uncallable = {n: Diagnostic(**{**d, "severity": Severity(d["severity"])})
                      for n, d in record["uncallable"].items()}
        return library, entries, frozenset(record["fibers"]), uncallable, \
            record["includes"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


@contextlib.contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing) for the block: one process at a
    time makes what the cache holds under a key."""
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
