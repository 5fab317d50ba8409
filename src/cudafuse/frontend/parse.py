"""Parsing a .cu file with libclang into a TranslationUnit, with gcc-style diagnostics."""

from __future__ import annotations

import contextlib
import functools
import os
import re
import stat
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import clang.cindex as ci

from cudafuse.collector import paused
from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity, error
from cudafuse.frontend.clang_api import children, in_main_file
from cudafuse.frontend.clang_diags import (
    CANNOT_OPEN,
    MISSING_HEADER,
    in_bundled_headers,
    is_error,
    is_missing_header,
    line_of,
    to_diagnostic,
)
from cudafuse.frontend.defines import HEADER_NAME as DEFINES_HEADER
from cudafuse.frontend.defines import split as split_defines
from cudafuse.frontend.header_callees import header_callees
from cudafuse.frontend.kernel_census import skipped_ranges, spelled_kernels
from cudafuse.frontend.lower import MAX_DEPTH, K, Lowerer, LoweringError
from cudafuse.frontend.methods import add_method_host
from cudafuse.frontend.pch import CXX_HEADERS, discard, shim_pch
from cudafuse.frontend.respell import clang_spelling
from cudafuse.ir.nodes import KernelLaunch
from cudafuse.ir.program import TranslationUnit
from cudafuse.ir.source import SourceFile


@dataclass(frozen=True)
class ParseOptions:
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()  # NAME or NAME=VALUE
    forced_includes: tuple[str, ...] = ()
    extra_args: tuple[str, ...] = ()
    arch: str = "sm_90"
    compdb: str = ""  # -p: a build directory or compile_commands.json (see compdb.py)
    # Lower the kernels of the user's included files as the file's own (included_kernels.py):
    # for analyze, plan and fuse; the emulator and hfuse take the main file's only.
    included_kernels: bool = False
    # Make a concrete copy of each kernel template instantiation a launch starts
    # (instantiate.py): for vertical fusion (respell.parse_for_fusion).
    instantiate: bool = False
    # Stub only the missing headers the first parse names (clang names one; it is then silent
    # about what later missing headers break, and drops those statements): for the
    # emulator's build alone, which compiles the real text with g++ (Thrust, which the front
    # end cannot parse, included) and reads the IR only for launches and signatures. Every
    # analysis stubs them all (_parse_source), so no statement vanishes without a word.
    one_stub_round: bool = False


@dataclass
class ParseResult:
    unit: TranslationUnit
    diagnostics: list[Diagnostic] = field(default_factory=list)


SHIM = "cudafuse_cuda_shim.h"
_INCLUDE = Path(__file__).resolve().parent / "include"


def include_dir() -> Path:
    # The package is always installed as files (libclang needs real paths to them).
    return _INCLUDE


def _base_args(opts: ParseOptions) -> list[str]:
    """Everything but the shim and the user's -include/-I/-D: what a shim PCH depends on."""
    inc = include_dir()
    return ["-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib",
            "-Wno-unknown-cuda-version", "-std=c++17", f"--cuda-gpu-arch={opts.arch}",
            "-ferror-limit=0", "-isystem", str(inc / "stubs"), "-isystem",
            str(inc / "resource"), *opts.extra_args]


def _user_args(opts: ParseOptions, stub_dir: str | None) -> list[str]:
    """The user's -include/-I/-D after the shim. A -D whose name the shim spells is defined
    in a header read right after the shim instead (defines.py; its text: _defines_file)."""
    kept, header = split_defines(opts.defines, opts.extra_args, include_dir() / SHIM)
    args: list[str] = ["-include", str(include_dir() / DEFINES_HEADER)] if header else []
    for f in opts.forced_includes:
        args += ["-include", f]
    for d in opts.include_dirs:
        args += ["-I", d]
    args += kept
    if stub_dir:
        args += ["-idirafter", stub_dir]
    return args


def _defines_file(opts: ParseOptions) -> list[tuple[str, str]]:
    """The unsaved file that _user_args' -include names, if it names one."""
    _, header = split_defines(opts.defines, opts.extra_args, include_dir() / SHIM)
    return [(str(include_dir() / DEFINES_HEADER), header)] if header else []


def clang_args(opts: ParseOptions, stub_dir: str | None = None) -> list[str]:
    """The full libclang command line, with the shim included from source (a -D the shim
    spells needs _defines_file's unsaved file as well)."""
    shim = str(include_dir() / SHIM)
    return [*_base_args(opts), "-include", shim, *_user_args(opts, stub_dir)]


def read_source(path: str) -> SourceFile:
    if not path:  # Path('') is the current directory: "is a directory" would puzzle
        raise error("an empty path names no source file", status=2)
    p = Path(path)
    if not p.exists():
        raise error("no such file", path)
    if p.is_dir():
        raise error("is a directory, not a .cu file", path)
    try:
        regular = stat.S_ISREG(p.stat().st_mode)
    except OSError as exc:
        raise error(f"cannot read file: {exc.strerror}", path) from None
    if not regular:
        # libclang reads the file again from its path: a pipe would be empty (or block) by
        # then, and a device such as /dev/zero never ends.
        raise error("not a regular file (a pipe, socket or device): cudafuse reads a source "
                    "file twice; save it to a file first", path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise error(f"cannot read file: {exc.strerror}", path) from None
    if b"\0" in data[:65536]:
        raise error("file looks binary (contains NUL bytes), not CUDA source", path)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        source = SourceFile(path, data)
        line, col = source.line_col(exc.start)
        raise error(f"file is not valid UTF-8 text (byte 0x{data[exc.start]:02x})", path, line,
                    col, source_line=source.line_text(line)) from None
    return SourceFile(path, data)


def _parse(path: str, opts: ParseOptions, stub_dir: str | None = None,
           text: bytes | None = None, content: bytes = b"",
           unsaved: Sequence[tuple[str, bytes]] = ()) -> ci.TranslationUnit:
    """`content`: the file's text, to choose the PCH by what it includes; `unsaved`: more
    files (path, text) that exist only for this parse."""
    base = _base_args(opts)
    cxx = _cxx_headers(content, opts)
    for headers in ((cxx, ()) if cxx else ((),)):
        pch = shim_pch(include_dir() / SHIM, include_dir(), base, headers)
        if pch is None:
            continue
        tu = _index_parse(path, [*base, "-include-pch", pch, *_user_args(opts, stub_dir)],
                          text, [*_defines_file(opts), *unsaved])
        if tu is not None and not any(_PCH_TROUBLE.search(d.spelling) for d in tu.diagnostics):
            return tu
        discard(pch)  # stale (a system header changed?) or unusable: rebuilt next time
    tu = _index_parse(path, clang_args(opts, stub_dir), text, [*_defines_file(opts), *unsaved])
    if tu is None:
        raise error("libclang could not parse the file", path)
    return tu


_PCH_TROUBLE = re.compile(r"precompiled header|PCH file|AST file")
_SYSTEM_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*<(\w+)>", re.M)
_RESERVED_MACRO = re.compile(rb"^[ \t]*#[ \t]*(?:define|undef)[ \t]+_[A-Z_]", re.M)


def _cxx_headers(content: bytes, opts: ParseOptions) -> tuple[str, ...]:
    """CXX_HEADERS when the file includes one of them and nothing can make them parse
    differently from the precompiled copy: no reserved macro (_GLIBCXX_DEBUG...) defined by
    the file or on the command line, no forced include, no -I directory holding a header of
    the same name. Otherwise () (the shim's own PCH; the headers parse from source)."""
    named = {m.group(1).decode() for m in _SYSTEM_INCLUDE.finditer(content)}
    if not named & set(CXX_HEADERS) or _RESERVED_MACRO.search(content) or \
            opts.forced_includes or any(d.startswith("_") for d in opts.defines):
        return ()
    if any((Path(d) / h).exists() for d in opts.include_dirs for h in CXX_HEADERS):
        return ()
    return CXX_HEADERS


def _index_parse(path: str, args: list[str], text: bytes | None = None,
                 unsaved: list[tuple[str, str | bytes]] | None = None) -> ci.TranslationUnit | None:
    # excludeDecls: with the shim precompiled, the unit's top level holds only the user's
    # declarations instead of every C library function.
    index = ci.Index.create(excludeDecls=True)
    files = [*([(path, text)] if text is not None else []), *(unsaved or [])]
    try:
        return index.parse(path, args=args, unsaved_files=files or None,
                           options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    except ci.TranslationUnitLoadError:
        return None


def _check_forced_includes(opts: ParseOptions) -> None:
    # clang would report a missing -include as a missing header, which we would stub: wrong,
    # since the user named it explicitly.
    for f in opts.forced_includes:
        p = Path(f)
        if not p.is_file():
            raise error(f"-include file '{f}' " + ("is a directory" if p.is_dir() else
                                                   "not found"))


def _unreadable_includes(tu: ci.TranslationUnit, source: SourceFile,
                         opts: ParseOptions) -> None:
    """Raise for an #include that names a file which exists but cannot be read: clang either
    says so itself (permission denied) or, for a directory or a dangling symlink, reports it
    as not found, which we must not paper over with an empty stand-in."""
    for d in tu.diagnostics:
        if not is_error(d):
            continue
        loc = d.location
        where = loc.file.name if loc.file else source.path
        opened = CANNOT_OPEN.search(d.spelling)
        if opened:
            reason = d.spelling[opened.end():].lstrip(": ") or "cannot be opened"
            raise error(f"cannot read included file '{opened.group(1)}': {reason}", where,
                        loc.line, loc.column, source_line=line_of(where, loc.line, source))
        missing = MISSING_HEADER.search(d.spelling)
        if not missing:
            continue
        name = missing.group(1)
        for base in (Path(where).parent, *map(Path, opts.include_dirs)):
            cand = base / name
            why = ("is a directory" if cand.is_dir() else
                   "it is a dangling symbolic link" if cand.is_symlink() and not cand.exists()
                   else "permission denied" if cand.exists() and not os.access(cand, os.R_OK)
                   else "")
            if why:
                raise error(f"cannot read included file '{name}': {why}", where, loc.line,
                            loc.column, source_line=line_of(where, loc.line, source))


def _write_stubs(stub_dir: str, names: list[str]) -> None:
    for name in names:
        stub = Path(stub_dir) / name
        stub.parent.mkdir(parents=True, exist_ok=True)
        stub.write_text("/* empty stand-in for a header cudafuse could not find */\n")


def parse_file(path: str, opts: ParseOptions = ParseOptions(),
               text: bytes | None = None) -> ParseResult:
    """Parse `path` (with `text` as its content instead of what is on disk, if given: the
    unit keeps the path, and includes resolve from its directory). Raises CudafuseError for
    errors a user must fix.

    A header that cannot be found is replaced by an empty one (with a warning) so that the
    code that does not depend on it can still be analysed; functions that then fail to
    compile are skipped with a warning rather than failing the whole file, unless one of
    them is a kernel: every kernel the file spells must be analysed (kernel_census), or
    the parse is an error.
    """
    source = read_source(path) if text is None else SourceFile(path, text)
    opts, db_diags = effective_options(opts, path)
    with paused():  # the IR stays alive: the collector's passes over it find nothing
        result = _parse_source(path, source, opts, text)
    result.diagnostics[:0] = db_diags
    return result


@dataclass
class _Reuse:
    """For a check of a pass's output (check_parse): the texts of the functions the input's
    parse lowered, and the kernels of the output found with one of those texts."""

    texts: frozenset[bytes]
    kernels: set[str] = field(default_factory=set)


def check_parse(path: str, opts: ParseOptions, text: bytes,
                lowered: frozenset[bytes]) -> list[Diagnostic]:
    """Raise the CudafuseError that parse_file(path, opts, text) would raise, else return
    its warnings (the errors it tolerated, for the caller to judge): for the check that a
    pass's output (`text`, to be written as `path`) parses as its input did. `lowered`
    are the texts of the function definitions the input's parse lowered (from their first
    byte to their last): a function of the output spelled exactly as one of them is not
    lowered again (a fused program keeps most of its input's functions as they were, and
    lowering them is most of a parse's time). libclang still parses the whole text and its
    errors count as in parse_file; the functions the pass wrote or changed are lowered, and
    every kernel the output spells must be found. The diagnostics that are notes and
    warnings only (kernels of included files, preprocessed out) are not computed."""
    source = SourceFile(path, text)
    opts, _ = effective_options(opts, path)
    with paused():
        return _parse_source(path, source, opts, text, _Reuse(lowered)).diagnostics


# Standards the front end parses with instead of its default (c++17) when the build asks:
# older ones parse as C++17 (nvcc's default too), which accepts what they accept.
_NEWER_STD = re.compile(r"^(?:c|gnu)\+\+(?:2[0-9a-z]|[3-9][0-9])$")


def effective_options(opts: ParseOptions, path: str) -> tuple[ParseOptions, list[Diagnostic]]:
    """`opts` with the compilation database's flags for `path` merged in (the database's
    first, the command line's after them), and the database's warnings."""
    if not opts.compdb:
        return opts, []
    from cudafuse.frontend.compdb import lookup

    flags, diags = lookup(opts.compdb, path)
    std = (f"-std={flags.std}",) if _NEWER_STD.match(flags.std) else ()
    merged = ParseOptions((*flags.include_dirs, *opts.include_dirs),
                          (*flags.defines, *opts.defines),
                          (*flags.forced_includes, *opts.forced_includes),
                          (*std, *opts.extra_args), opts.arch,
                          included_kernels=opts.included_kernels,
                          instantiate=opts.instantiate, one_stub_round=opts.one_stub_round)
    return merged, diags


def _parse_source(path: str, source: SourceFile, opts: ParseOptions,
                  text: bytes | None, reuse: _Reuse | None = None) -> ParseResult:
    _check_forced_includes(opts)
    respelled = clang_spelling(text if text is not None else source.data)
    if respelled is not None:
        # The unit carries the respelled text too: everything downstream (emulation,
        # fusion, hfuse) reads launches as `<<<...>>>`; offsets are unchanged.
        text, source = respelled, SourceFile(path, respelled, original=source.data)
    tu = _parse(path, opts, None, text, source.data)
    _unreadable_includes(tu, source, opts)
    missing = sorted({m.group(1) for d in tu.diagnostics
                      if is_error(d) and (m := MISSING_HEADER.search(d.spelling))})
    if not missing:
        tolerant = _only_unknown_cuda_names(tu) or _only_host_pass_calls(tu, opts)
        return _finish(_lower(tu, source, [], tolerant=tolerant, reuse=reuse), tu, opts,
                       reuse)
    diags = [_missing_warning(d, source) for d in tu.diagnostics if is_missing_header(d)]
    import tempfile  # rarely needed: imported here to keep start-up short

    with tempfile.TemporaryDirectory(prefix="cudafuse-stubs-") as stub_dir:
        # A missing header is a fatal error: clang stops there, so each parse reports only
        # the first one it meets, and everything after a second missing header would be
        # dropped without a word (a host statement lost between two launches). Stub and
        # parse again until no header is missing.
        stubbed: set[str] = set()
        for _ in range(_MAX_STUB_ROUNDS):
            _write_stubs(stub_dir, [m for m in missing if m not in stubbed])
            stubbed.update(missing)
            tu = _parse(path, opts, stub_dir, text, source.data)
            _unreadable_includes(tu, source, opts)
            missing = sorted({m.group(1) for d in tu.diagnostics
                              if is_error(d) and (m := MISSING_HEADER.search(d.spelling))}
                             - stubbed)
            if not missing or opts.one_stub_round:
                break
            diags += [_missing_warning(d, source) for d in tu.diagnostics
                      if is_missing_header(d)]
        else:
            raise error(f"more than {_MAX_STUB_ROUNDS} included headers cannot be found"
                        f" (the last: '{missing[0]}'): give their folders with -I", path)
        return _finish(_lower(tu, source, diags, tolerant=True, reuse=reuse), tu, opts,
                       reuse)


# Rounds of stand-ins for missing headers (one header per round: clang stops at the first).
_MAX_STUB_ROUNDS = 64


# A name from a CUDA library or runtime API that the shim does not declare. nvcc would know it,
# so the user's code is not at fault: skip what uses it rather than reject the file.
_UNKNOWN_CUDA_NAME = re.compile(
    r"^(use of undeclared identifier|unknown type name|no member named) "
    r"'(cuda|cu[A-Z]|CU|nv|__|cublas|cusparse|curand|cufft|cudnn|nccl|cub\b|thrust\b)\w*'")


def _only_unknown_cuda_names(tu: ci.TranslationUnit) -> bool:
    errors = [d for d in tu.diagnostics if is_error(d)]
    return bool(errors) and all(_UNKNOWN_CUDA_NAME.search(d.spelling) for d in errors)


# nvcc compiles a file twice, and its device pass (__CUDA_ARCH__ defined, what the emulator
# builds) does not compile host functions: ccminer's host code calls `cuda_swab32`, a
# __device__ function there and a host macro in the host pass. Such a host function is
# skipped (with a warning saying why) rather than the file rejected.
_HOST_PASS_NOTE = "call to __device__ function from __host__ function"
HOST_PASS_WHY = (" (a __device__ function where __CUDA_ARCH__ is defined: nvcc compiles this "
                 "host function in its host pass, which the emulator does not build)")


def _host_pass_call(d: ci.Diagnostic) -> bool:
    """A call from a host function that only a __device__ function would take."""
    notes = [c.spelling for c in d.children if "candidate" in c.spelling]
    return d.spelling.startswith("no matching function for call to ") and bool(notes) and \
        all(_HOST_PASS_NOTE in n for n in notes)


def _only_host_pass_calls(tu: ci.TranslationUnit, opts: ParseOptions) -> bool:
    if not any(d.split("=")[0] == "__CUDA_ARCH__" for d in opts.defines):
        return False
    errors = [d for d in tu.diagnostics if is_error(d)]
    return bool(errors) and all(_host_pass_call(d) or _UNKNOWN_CUDA_NAME.search(d.spelling)
                                for d in errors)


def _finish(result: ParseResult, tu: ci.TranslationUnit, opts: ParseOptions,
            reuse: _Reuse | None = None) -> ParseResult:
    _check_no_kernel_lost(result, tu, reuse.kernels if reuse is not None else set())
    if reuse is not None:
        return result  # a check (check_parse): what follows only adds notes and warnings
    if opts.included_kernels:
        from cudafuse.frontend.included_kernels import lower_included

        with _recursion_limit(4 * MAX_DEPTH + 1000):
            result.diagnostics += lower_included(tu, result.unit, opts.include_dirs,
                                                 str(include_dir()))
    unit = result.unit
    if opts.instantiate:  # host function templates read through explicit specialisations
        again = _with_host_instances(result.unit.path, opts, tu, result)
        if again is not None:
            return again
    from cudafuse.frontend.instantiate import launches_templates
    if opts.instantiate and launches_templates(unit):
        from cudafuse.frontend.included_kernels import user_files
        from cudafuse.frontend.instantiate import lower_instances

        path = result.unit.path
        files, entered, at = user_files(tu, path, opts.include_dirs, str(include_dir()))
        with _recursion_limit(4 * MAX_DEPTH + 1000):
            made = lower_instances(tu, unit, lambda text, files: _parse(path, opts, None, text,
                                                                        text, files),
                                   {f: at[f] for f in files if f in at and entered[f] == 1})
        # An included template whose launches were instantiated is analysed after all.
        gone = {f"kernel '{k}' of the included file {f} is not analysed: it is a template"
                for f, k in made}
        result.diagnostics = [d for d in result.diagnostics if d.message not in gone]
        unit.instantiated = {(os.path.realpath(f), k) for f, k in made}
    result.diagnostics += _kernels_in_user_headers(result.unit, opts)
    result.diagnostics += _kernels_preprocessed_out(result.unit, tu)
    # Not an error: a file of host code or device helpers is valid CUDA; every command then
    # has nothing to do, and the note says why its output is empty. (A kernel template of
    # an included file whose launches were instantiated is one the commands read.)
    if not result.unit.kernels and not unit.instantiated:
        result.diagnostics.append(Diagnostic(Severity.NOTE, "no kernels (__global__ function "
                                             "definitions) found", result.unit.path))
    return result


def _kernels_preprocessed_out(unit: TranslationUnit, tu: ci.TranslationUnit
                              ) -> list[Diagnostic]:
    """A note naming the kernels the main file defines only in branches the preprocessor did
    not take (`#ifdef ENABLE_BF16 ... #else`, `#if 0`): they are not analysed, and a user who
    counts the file's `__global__` functions should see why (a -D would select them)."""
    skipped = skipped_ranges(tu, unit.path)
    if not skipped:
        return []
    seen = {f.name.rsplit("::", 1)[-1] for f in unit.functions if f.is_kernel}
    taken = {k.name for k in spelled_kernels(unit.source.data, skipped)}
    out = []
    for k in spelled_kernels(unit.source.data, []):
        if k.defined and k.name not in seen | taken:
            seen.add(k.name)  # the first definition of each name
            out.append(k)
    if not out:
        return []
    src = unit.source
    line, col = src.line_col(out[0].offset)
    shown = ", ".join(f"'{k.name}' (line {src.line_col(k.offset)[0]})" for k in out[:8])
    more = f" and {len(out) - 8} more" if len(out) > 8 else ""
    return [Diagnostic(Severity.NOTE, f"{len(out)} kernel{'s' if len(out) > 1 else ''} "
                       f"defined only in preprocessor branches not taken, not analysed: "
                       f"{shown}{more}", unit.path, line, col, src.line_text(line))]


def _kernels_in_user_headers(unit: TranslationUnit, opts: ParseOptions) -> list[Diagnostic]:
    """A warning per user header (in the main file's directory tree or an -I directory) that
    defines kernels: only the main file's kernels are analysed, so those are not (a
    program that #includes its kernels' .cu/.cuh file, as Rodinia's do)."""
    roots = [Path(unit.path).resolve().parent, *(Path(d).resolve() for d in opts.include_dirs)]
    out = []
    for header in unit.includes:
        p = Path(header).resolve()
        if not any(p.is_relative_to(r) for r in roots):
            continue
        names = _defined_kernels(str(p))
        if unit.sources:  # those lowered as the file's own are analysed
            from cudafuse.frontend.included_kernels import lowered_kernels

            done = lowered_kernels(unit, header)
            names = [n for n in names if n not in done]
        names = [n for n in names if (os.path.realpath(header), n) not in unit.instantiated]
        if names:
            shown = ", ".join(f"'{n}'" for n in names[:6]) + (", ..." if len(names) > 6 else "")
            why = ("not analysed (see the notes at them, if any; a kernel the preprocessor "
                   "left out has none): " if opts.included_kernels else
                   "not analysed, only this file's: ")
            out.append(Diagnostic(Severity.WARNING, f"kernels defined in the included file "
                                  f"{header} are {why}{shown}; "
                                  "analyse (or fuse) the file that defines them", unit.path))
    return out


def _defined_kernels(path: str) -> list[str]:
    try:
        st = os.stat(path)
    except OSError:
        return []
    return _defined_kernels_of(path, st.st_mtime_ns, st.st_size)


@functools.cache
def _defined_kernels_of(path: str, mtime_ns: int, size: int) -> list[str]:
    del mtime_ns, size  # the cache key: a header that changes is read again
    try:
        data = Path(path).read_bytes()
    except OSError:
        return []
    if b"__global__" not in data:
        return []
    # The text alone (no preprocessor): a kernel under `#if 0` there would be named too.
    return list(dict.fromkeys(k.name for k in spelled_kernels(data, []) if k.defined))


def _check_no_kernel_lost(result: ParseResult, tu: ci.TranslationUnit,
                          reused: set[str]) -> None:
    """Raise when the main file spells a `__global__` function that the parse did not
    yield: skipped with a warning (it failed to compile here), or dropped without a word by
    clang's recovery from an earlier error. Analysing the rest as if it were the whole file
    would mislead: a pipeline would lose a stage, a pair a kernel."""
    unit = result.unit
    seen = {f.name.rsplit("::", 1)[-1] for f in unit.functions if f.is_kernel}
    seen |= {name.rsplit("::", 1)[-1] for name in reused}
    skipped = {unit.text(span).rsplit("::", 1)[-1].split("<", 1)[0]
               for span, _ in unit.skipped}
    spelled = spelled_kernels(unit.source.data, skipped_ranges(tu, unit.path))
    lost = [k for k in spelled if k.name not in seen]
    if not lost:
        return
    names = list(dict.fromkeys(k.name for k in lost))
    total = len({k.name for k in spelled})
    src = unit.source
    dropped = [k for k in lost if k.name not in skipped]
    first = (dropped or lost)[0]
    line, col = src.line_col(first.offset)
    shown = ", ".join(f"'{n}'" for n in names[:8]) + (", ..." if len(names) > 8 else "")
    why = ("clang dropped their declarations after an earlier error" if dropped
           else "see the warnings above for why each was skipped")
    diags = [Diagnostic(Severity.ERROR, f"{len(names)} of the {total} kernels this file "
                        f"defines could not be analysed ({shown}): {why}", unit.path, line,
                        col, src.line_text(line))]
    cause = _first_cause(tu, src, first.offset) if dropped else None
    if cause is not None:
        diags.append(Diagnostic(Severity.NOTE, f"the first error clang reported: "
                                f"{cause.message}", cause.file, cause.line, cause.col,
                                cause.source_line))
    raise CudafuseError([*result.diagnostics, *diags])


def _first_cause(tu: ci.TranslationUnit, source: SourceFile, before: int
                 ) -> Diagnostic | None:
    """clang's first error, preferring one located before `before` in the main file."""
    root = str(include_dir())
    errors = [d for d in tu.diagnostics if is_error(d)]
    if not errors:
        return None
    early = [d for d in errors if d.location.file is None
             or d.location.file.name != source.path or d.location.offset <= before]
    return to_diagnostic((early or errors)[0], source, root)


def _missing_warning(d: ci.Diagnostic, source: SourceFile) -> Diagnostic:
    loc = d.location
    where = loc.file.name if loc.file else source.path
    return Diagnostic(Severity.WARNING, d.spelling + "; analysing without it", where, loc.line,
                      loc.column, line_of(where, loc.line, source))


_MAX_ERRORS = 20


def _errors(tu: ci.TranslationUnit, source: SourceFile) -> list[tuple[Diagnostic, int]]:
    """Errors (but not missing headers) as (diagnostic, byte offset in the main file or -1)."""
    root = str(include_dir())
    out = []
    for d in tu.diagnostics:
        if is_error(d) and not is_missing_header(d):
            loc = d.location
            in_main = loc.file is not None and loc.file.name == source.path
            diag = to_diagnostic(d, source, root)
            if _host_pass_call(d):
                diag = replace(diag, message=diag.message + HOST_PASS_WHY)
            out.append((diag, loc.offset if in_main else -1))
    return out


def _fail(errors: list[tuple[Diagnostic, int]], diags: list[Diagnostic]) -> CudafuseError:
    shown = [e for e, _ in errors[:_MAX_ERRORS]]
    if len(errors) > _MAX_ERRORS:
        shown.append(Diagnostic(Severity.NOTE, f"{len(errors) - _MAX_ERRORS} more errors not "
                                "shown", errors[0][0].file))
    return CudafuseError(diags + shown)


def _lower(tu: ci.TranslationUnit, source: SourceFile, diags: list[Diagnostic],
           tolerant: bool, reuse: _Reuse | None = None) -> ParseResult:
    path = source.path
    errors = _errors(tu, source)
    if errors and not tolerant:
        raise _fail(errors, diags)
    unit = TranslationUnit(path, source)
    unit.includes = _includes(tu, path)
    unit.inactive = skipped_ranges(tu, path)
    lowerer = Lowerer(source, tu)
    used: set[int] = set()
    with _recursion_limit(4 * MAX_DEPTH + 1000):
        _lower_all(tu, unit, lowerer, errors, used, diags, reuse)
        unit.header_functions = header_callees(tu, unit, lowerer, str(include_dir()))
    # Errors outside every function and global (a struct, a typedef, a user header): the
    # declarations involved are unusable, which the skipped functions already show; say so.
    for i, (err, _) in enumerate(errors):
        if i not in used:
            diags.append(Diagnostic(Severity.WARNING, f"ignoring a declaration: {err.message}",
                                    err.file, err.line, err.col, err.source_line))
    diags.extend(_deprecations(tu, source))
    return ParseResult(unit, diags)


def _deprecations(tu: ci.TranslationUnit, source: SourceFile) -> list[Diagnostic]:
    """clang's other warnings are not reported; uses of deprecated declarations are (the shim
    marks CUDA calls that CUDA 13 removed or deprecated), where the user wrote them."""
    root = str(include_dir())
    return [to_diagnostic(d, source, root) for d in tu.diagnostics
            if d.severity == ci.Diagnostic.Warning and d.option == "-Wdeprecated-declarations"
            and d.location.file is not None
            and not in_bundled_headers(d.location.file.name, root)]


@contextlib.contextmanager
def _recursion_limit(limit: int) -> Iterator[None]:
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _lower_all(tu: ci.TranslationUnit, unit: TranslationUnit, lowerer: Lowerer,
               errors: list[tuple[Diagnostic, int]], used: set[int],
               diags: list[Diagnostic], reuse: _Reuse | None = None) -> None:
    for cursor in _top_level(tu.cursor, unit.path):
        broken = []
        if errors:  # (an extent costs several calls into libclang: only when needed)
            start, end = cursor.extent.start.offset, cursor.extent.end.offset
            broken = [i for i, (_, off) in enumerate(errors) if start <= off <= end]
        if broken:
            used.update(broken)
            first = errors[broken[0]][0]
            why = first.message
            if _UNKNOWN_CUDA_NAME.search(why):
                why += " (not among cudafuse's CUDA declarations)"
            _skip(unit, diags, lowerer, cursor, why, first)
            continue
        if cursor.kind == K.VAR_DECL:
            unit.globals.append(lowerer.global_var(cursor))
            continue
        if reuse is not None:
            # A check raises only for a kernel lost: other functions are skipped with a
            # warning at worst, and kernels spelled as the input's were lowered then.
            if "global" not in lowerer.attrs(cursor):
                continue
            sp = lowerer.span(cursor)
            if sp.end > sp.start and unit.source.data[sp.start:sp.end] in reuse.texts:
                reuse.kernels.add(cursor.spelling)
                continue
        try:
            fn = lowerer.function(cursor)
        except (LoweringError, ValueError, AttributeError) as exc:
            _skip(unit, diags, lowerer, cursor, f"cannot lower it ({exc})", None)
            continue
        if fn.parent:
            unit.methods.append(fn)
            add_method_host(unit, lowerer, cursor, fn)
            continue
        unit.functions.append(fn)
        if fn.body is not None and fn.space != "global":
            launches = [x for x in fn.body.walk() if isinstance(x, KernelLaunch)]
            if launches:
                unit.launches[fn.name] = launches


def _with_host_instances(path: str, opts: ParseOptions, tu: ci.TranslationUnit,
                         result: ParseResult) -> ParseResult | None:
    """The file parsed again with an explicit specialisation written after each host
    function template for each instantiation it uses (frontend/host_instances.py), if it
    has any and they parse with no more errors; None otherwise (the reasons kept)."""
    from cudafuse.frontend.host_instances import ENABLED, WRITING, host_templates, specialised

    if WRITING.get() or not ENABLED.get():
        return None
    found = specialised(tu, result.unit)
    if found is None:
        return None
    source, where = found
    if source is None:
        result.unit.host_instances = where
        return None
    errors = sum(d.severity is Severity.ERROR for d in result.diagnostics)
    # (once: a copy's calls may name instantiations of other host templates, which stay
    # the templates' own; copies written in a second round would move the first's ranges)
    token = WRITING.set(True)
    try:
        again = _parse_source(path, source, opts, source.data)
    except CudafuseError:
        again = None
    finally:
        WRITING.reset(token)
    # (a host function clang rejects is skipped with a warning, not an error: each copy
    # must be lowered, and nothing else skipped)
    lowered = {f.span.start for f in again.unit.functions} if again is not None else set()
    if again is None or sum(d.severity is Severity.ERROR for d in again.diagnostics) > \
            errors or len(again.unit.kernels) != len(result.unit.kernels) or \
            len(again.unit.skipped) > len(result.unit.skipped) or \
            any(not any(s < at < e for at in lowered) for rs in where.values()
                if not isinstance(rs, str) for s, e in rs):
        result.unit.host_instances = {f.span.start: "its copies do not compile"
                                      for f in host_templates(result.unit)}
        return None
    again.unit.host_instances = where
    return again


def _skip(unit: TranslationUnit, diags: list[Diagnostic], lowerer: Lowerer, cursor: ci.Cursor,
          why: str, err: Diagnostic | None) -> None:
    sp = lowerer.name_span(cursor)
    if err is not None:
        d = Diagnostic(Severity.WARNING, f"skipping '{cursor.spelling}': {why}", err.file,
                       err.line, err.col, err.source_line)
    else:
        line = cursor.location.line
        d = Diagnostic(Severity.WARNING, f"skipping '{cursor.spelling}': {why}", unit.path,
                       line, cursor.location.column, unit.source.line_text(line))
    diags.append(d)
    unit.skipped.append((sp, d.message))


def _macro_linkage_in_main_file(c: ci.Cursor) -> bool:
    """An `extern "C"` written by a macro in the main file (OpenMM's `#define KERNEL extern
    "C" __global__`, from a header): the linkage spec's location is in the macro's
    definition, its expansion in the main file."""
    if c.kind != K.LINKAGE_SPEC:
        return False
    where = c.location.file  # the expansion location's file
    return where is not None and where.name == c.translation_unit.spelling


def _top_level(cursor: ci.Cursor, path: str,
               templates: set[int] | None = None) -> Iterator[ci.Cursor]:
    """Function definitions/declarations and globals of the main file, through namespaces and
    extern "C" blocks, in source order."""
    templates = set() if templates is None else templates
    for c in children(cursor):  # (the raw visit: a unit has thousands of declarations)
        if not in_main_file(c) and not _macro_linkage_in_main_file(c):
            continue
        kind = c.kind
        if kind in (K.LINKAGE_SPEC, K.NAMESPACE, K.UNEXPOSED_DECL):
            yield from _top_level(c, path, templates)
        elif kind == K.FUNCTION_TEMPLATE:
            templates.add(c.location.offset)
            yield c
        elif kind == K.FUNCTION_DECL:
            # An index that excludes PCH declarations also lists implicit instantiations
            # (k<float, 3> for a launch), located at their template: not user code.
            if c.get_num_template_arguments() >= 0 and c.location.offset in templates:
                continue
            yield c
        elif kind == K.VAR_DECL:
            yield c
        elif kind in _CLASSES:
            if kind == K.CLASS_TEMPLATE:
                templates.add(c.location.offset)
            elif c.location.offset in templates:
                continue  # an implicit instantiation (Holder<float>), as for functions above
            yield from _members(c)
        elif kind in _METHODS:
            # An out-of-line member definition (float Foo::bar() {...}) is lexically here;
            # members of implicitly instantiated class templates are listed here too, but
            # belong lexically to the instantiation.
            lexical = c.lexical_parent
            if lexical is None or lexical.kind not in _CLASSES:
                yield c


_CLASSES = frozenset({K.STRUCT_DECL, K.CLASS_DECL, K.CLASS_TEMPLATE, K.UNION_DECL,
                      K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION})
_METHODS = frozenset({K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR, K.CONVERSION_FUNCTION})


def _members(cls: ci.Cursor) -> Iterator[ci.Cursor]:
    """Member functions (and member templates) of a class, and of the classes nested in it."""
    for c in cls.get_children():
        kind = c.kind
        if kind in _METHODS or kind == K.FUNCTION_TEMPLATE:
            yield c
        elif kind in _CLASSES:
            yield from _members(c)


def _clean_path(name: str) -> str:
    """A readable path to the same file. libclang's wheel says /../lib/gcc/.../../../../include
    for the C++ headers; lexical normalisation of that is wrong where /lib is a symlink (as on
    merged-/usr systems), so fall back to resolving links when the short form is another file."""
    short = os.path.normpath(name)
    try:
        if os.path.samefile(short, name):
            return short
    except OSError:
        pass
    return os.path.realpath(name)


def _includes(tu: ci.TranslationUnit, path: str) -> list[str]:
    """Every file the parse read for the user (not the shim or its stubs), in first-seen order."""
    seen: dict[str, None] = {}
    root = str(include_dir())
    for i in tu.get_includes():
        name = i.include.name
        if in_bundled_headers(name, root) or name == path:
            continue
        seen.setdefault(_clean_path(name))
    return list(seen)
