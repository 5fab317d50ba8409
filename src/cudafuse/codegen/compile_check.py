"""Every file a pass emits is compiled again before it is written.

Two checks, in order:

1. the front end parses the output as the file it will be (its path, so that relative
   `#include`s resolve from the output's own folder): an error, a warning the inputs did not
   give (a header not found, a function skipped because it does not compile) or a function
   the pass generated that the parse lost is a located error (exit status 1);
2. where nvcc is on PATH, `nvcc -arch=<arch> -std=c++17 --extended-lambda -c` of the same
   text with the run's `-I`/`-D`/`-include`, the output's folder first on the include path.
   Results are cached by the hash of everything nvcc sees (under the build cache,
   `$CUDAFUSE_CACHE_DIR`), so a run emitting what an earlier one did pays nothing. A
   failure quotes nvcc's first error. When the inputs themselves do not compile with nvcc
   under these flags (an emulator-only header, a missing -I), the output cannot be judged: a
   warning says so and names why.

`CUDAFUSE_NO_NVCC_CHECK=1` skips step 2 (the test suite sets it: hundreds of emitted files
would cost minutes; tests that exercise it clear it).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity
from cudafuse.frontend import ParseOptions, parse_file
from cudafuse.frontend.parse import check_parse
from cudafuse.ir.program import TranslationUnit

ENV_SKIP = "CUDAFUSE_NO_NVCC_CHECK"
_TIMEOUT_S = 300


def check_output(text: bytes, where: str, options: ParseOptions, *,
                 inputs: Sequence[str] = (), known: Iterable[Diagnostic] = (),
                 generated: Iterable[str] = (), what: str = "output") -> list[Diagnostic]:
    """Raise a located CudafuseError (status 1) when `text`, to be written at `where`, does
    not compile; return warnings worth showing (nvcc could not judge it). `inputs` are the
    files the pass read (their nvcc result decides whether nvcc's verdict on the output
    means anything), `known` the diagnostics their parses gave (not the output's fault);
    `generated` names functions the pass emitted, which must survive the parse."""
    reparse(text, where, options, known=known, generated=generated, what=what)
    return nvcc_check(text, where, options, inputs=inputs, what=what)


def _located(where: str, text: bytes, line: int, col: int, message: str) -> Diagnostic:
    lines = text.decode("utf-8", "replace").splitlines()
    src = lines[line - 1] if 0 < line <= len(lines) else ""
    return Diagnostic(Severity.ERROR, message, where, line, col, source_line=src)


def reparse(text: bytes, where: str, options: ParseOptions, *,
            known: Iterable[Diagnostic] = (), generated: Iterable[str] = (),
            what: str = "output") -> TranslationUnit:
    """The front end's verdict on `text` as the file `where` (see the module's docstring);
    the parsed output, for checks of its meaning."""
    head = f"the {what} does not compile (nothing was written)"
    try:
        result = parse_file(where, options, text=text)
    except CudafuseError as exc:
        first = next((d for d in exc.diagnostics if d.severity is Severity.ERROR),
                     exc.diagnostics[0] if exc.diagnostics else None)
        if first is None:
            raise
        at = first.file if first.file and first.file != where else ""
        raise CudafuseError(_located(
            where, text, first.line if not at else 0, first.col if not at else 0,
            f"{head}: {first.message}" + (f" (in {at}:{first.line})" if at else ""))) from None
    seen = {_gist(d.message) for d in known}
    for d in result.diagnostics:
        if d.severity is Severity.WARNING and _gist(d.message) not in seen:
            line = d.line if d.file == where else 0
            raise CudafuseError(_located(where, text, line, d.col if line else 0,
                                         f"{head}: {d.message}"))
    names = {f.name for f in result.unit.functions if f.body is not None}
    lost = [g for g in generated if g not in names]
    if lost:
        raise CudafuseError(Diagnostic(Severity.ERROR, f"{head}: the front end does not find "
                                       f"the generated {', '.join(lost)}", where))
    return result.unit


def parses_in_place(file: str, options: ParseOptions, output: bytes,
                    source: TranslationUnit | None = None,
                    known: Iterable[Diagnostic] = ()) -> None:
    """A vertical fusion's output must parse, as `file` itself, as the input did (every
    kernel found): one that cudafuse's own front end rejects is cudafuse's bug, reported as
    such (status 3), and nothing is written. (The horizontal pass's output, a new file,
    goes through `reparse`.) `source`: the input's parse, whose functions the output
    keeps as they were need not be lowered again (check_parse); `known`: the input
    parse's diagnostics (the declarations it ignored and why)."""
    try:
        tolerated = check_parse(file, options, output,
                                lowered_texts(source) if source else frozenset())
    except CudafuseError as exc:
        first = next((d for d in exc.diagnostics if d.severity is Severity.ERROR),
                     exc.diagnostics[0])
        raise _own_bug(file, output, first) from None
    # The parse tolerates errors (every one when a header is not found, names of CUDA
    # libraries otherwise): it skips the function or declaration holding one. An error the
    # input's parse did not have too is in what the pass wrote (a view type used before its
    # declaration), and nvcc, which cannot judge a file whose header is missing, would not
    # catch it either.
    theirs = {_gist(m) for _, m in source.skipped} if source else set()
    theirs |= {_gist(d.message) for d in known}
    for d in tolerated:
        if d.severity is Severity.WARNING and _TOLERATED.match(d.message) and \
                not _CANNOT_LOWER.search(d.message) and _gist(d.message) not in theirs:
            raise _own_bug(file, output, d)


# How the front end words an error it tolerated (frontend/parse.py: _skip, _lower); a
# function it could not lower is no compile error (the output's own helpers may be such).
_TOLERATED = re.compile(r"skipping '[^']*': |ignoring a declaration: ")
_CANNOT_LOWER = re.compile(r"^skipping '[^']*': cannot lower it ")


def _own_bug(file: str, output: bytes, first: Diagnostic) -> CudafuseError:
    """cudafuse's own bug (status 3), located in the output that was not written: its line
    and column there, and that line's text."""
    in_output = first.file == file and first.line > 0
    message = re.sub(r"^(?:skipping '[^']*'|ignoring a declaration): ", "", first.message)
    where = f"line {first.line} of the fused program" if in_output else \
        f"{first.file}:{first.line}" if first.file else "the fused program"
    return CudafuseError(_located(
        file, output, first.line if in_output else 0, first.col if in_output else 0,
        f"internal error: the fused program does not parse ({where}: {message}); nothing "
        "was written. Please report this with the input file"), status=3)


def lowered_texts(unit: TranslationUnit) -> frozenset[bytes]:
    """The text of every function definition of `unit`'s own file that its parse lowered."""
    data = unit.source.data
    return frozenset(data[f.span.start:f.span.end] for f in (*unit.functions, *unit.methods)
                     if f.span.file == unit.path and f.span.end > f.span.start)


def _gist(message: str) -> str:
    """A warning's text without what depends on the file's position."""
    return re.sub(r"\d+", "#", message)


def nvcc_check(text: bytes, where: str, options: ParseOptions, *,
               inputs: Sequence[str] = (), what: str = "output") -> list[Diagnostic]:
    if os.environ.get(ENV_SKIP) or shutil.which("nvcc") is None:
        return []
    folder = str(Path(where).resolve().parent)
    first = compile_first_error(text, folder, options)
    if first is None:
        return []
    # Is it the output's fault? Only if the inputs compile under the same flags.
    for path in inputs:
        theirs = compile_first_error(Path(path).read_bytes(),
                                     str(Path(path).resolve().parent), options)
        if theirs is not None:
            return [Diagnostic(Severity.WARNING, f"the {what} was not checked with nvcc: the "
                               f"input {path} does not compile with nvcc -arch="
                               f"{options.arch} either ({theirs[2]}); give the -I/-D it needs",
                               where)]
    line, col, message = first
    raise CudafuseError(_located(where, text, line, col,
                                 f"the {what} does not compile with nvcc -arch={options.arch}"
                                 f" (nothing was written): {message}"))


def _flags(options: ParseOptions, folder: str) -> list[str]:
    # --extended-lambda as PyTorch builds: `[] __device__ (...)` lambdas (ATen's histogram
    # launches) are an error without it, and it changes nothing else.
    flags = [f"-arch={options.arch}", "-std=c++17", "--extended-lambda", f"-I{folder}"]
    flags += [f"-I{Path(d).resolve()}" for d in options.include_dirs]
    flags += [f"-D{d}" for d in options.defines]
    for f in options.forced_includes:
        flags += ["-include", str(Path(f).resolve())]
    return flags


def _cache_root() -> Path:
    root = os.environ.get("CUDAFUSE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cudafuse")
    return Path(root) / "compile_check"


def _nvcc_version() -> str:
    nvcc = shutil.which("nvcc") or ""
    try:
        st = os.stat(nvcc)
        return f"{nvcc}:{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        return nvcc


_ERROR = re.compile(r"^(?P<file>[^\n]*?)\((?P<line>\d+)\): (?:catastrophic )?error:?\s*"
                    r"(?P<msg>[^\n]*)", re.M)
_GCC_ERROR = re.compile(r"^(?P<file>[^\n:]+):(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: "
                        r"(?P<msg>[^\n]*)", re.M)


def compile_first_error(text: bytes, folder: str, options: ParseOptions
                        ) -> tuple[int, int, str] | None:
    """None when nvcc compiles `text` (as a file in `folder`), else the first error's (line,
    col, message), line 0 when it is in another file (named in the message). Cached."""
    flags = _flags(options, folder)
    key = hashlib.sha256("\0".join([_nvcc_version(), *flags]).encode() + b"\0" + text
                         ).hexdigest()
    cache = _cache_root() / f"{key}.txt"
    try:
        got = cache.read_text()
        return None if got == "ok" else _decode(got)
    except OSError:
        pass
    with tempfile.TemporaryDirectory(prefix="cudafuse-check-") as tmp:
        src = Path(tmp) / "output.cu"
        src.write_bytes(text)
        try:
            proc = subprocess.run(["nvcc", *flags, "-c", str(src), "-o", str(Path(tmp) / "o.o")],
                                  capture_output=True, text=True, timeout=_TIMEOUT_S, cwd=tmp)
        except subprocess.TimeoutExpired:
            return (0, 0, f"nvcc did not finish in {_TIMEOUT_S} s")
        out = proc.stdout + proc.stderr
        result = None if proc.returncode == 0 else _first(out, str(src))
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp_cache = cache.with_suffix(f".{os.getpid()}.tmp")
        tmp_cache.write_text("ok" if result is None else _encode(result))
        os.replace(tmp_cache, cache)
    except OSError:
        pass  # a read-only cache only costs time
    return result


def _first(out: str, src: str) -> tuple[int, int, str]:
    found = [(m.start(), m.group("file"), int(m.group("line")), 0, m.group("msg"))
             for m in _ERROR.finditer(out)]
    found += [(m.start(), m.group("file"), int(m.group("line")), int(m.group("col")),
               m.group("msg")) for m in _GCC_ERROR.finditer(out)]
    if not found:
        lines = [ln for ln in out.splitlines() if ln.strip()]
        return (0, 0, lines[0] if lines else "nvcc failed without a message")
    _, file, line, col, msg = min(found)
    if os.path.basename(file) == os.path.basename(src):
        return (line, col, msg.strip())
    return (0, 0, f"{file}:{line}: {msg.strip()}")


def _encode(r: tuple[int, int, str]) -> str:
    return f"{r[0]}\t{r[1]}\t{r[2]}"


def _decode(s: str) -> tuple[int, int, str]:
    line, col, msg = s.split("\t", 2)
    return int(line), int(col), msg
