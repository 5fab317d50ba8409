"""Parsing a .cu file with libclang into a TranslationUnit, with gcc-style diagnostics."""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import clang.cindex as ci

from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity, error
from cudafuse.frontend.lower import K, Lowerer, LoweringError
from cudafuse.ir.program import TranslationUnit
from cudafuse.ir.source import SourceFile

_MISSING = re.compile(r"'([^']+)' file not found")
_SEVERITY = {ci.Diagnostic.Warning: Severity.WARNING, ci.Diagnostic.Error: Severity.ERROR,
             ci.Diagnostic.Fatal: Severity.ERROR, ci.Diagnostic.Note: Severity.NOTE}


@dataclass(frozen=True)
class ParseOptions:
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()  # NAME or NAME=VALUE
    forced_includes: tuple[str, ...] = ()
    extra_args: tuple[str, ...] = ()
    arch: str = "sm_90"


@dataclass
class ParseResult:
    unit: TranslationUnit
    diagnostics: list[Diagnostic] = field(default_factory=list)


def include_dir() -> Path:
    return Path(str(resources.files("cudafuse.frontend") / "include"))


def clang_args(opts: ParseOptions, stub_dir: str | None = None) -> list[str]:
    inc = include_dir()
    args = ["-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib",
            "-Wno-unknown-cuda-version", "-std=c++17", f"--cuda-gpu-arch={opts.arch}",
            "-ferror-limit=0", "-include", str(inc / "cudafuse_cuda_shim.h")]
    for f in opts.forced_includes:
        args += ["-include", f]
    for d in opts.include_dirs:
        args += ["-I", d]
    for d in opts.defines:
        args.append(f"-D{d}")
    args += ["-isystem", str(inc / "stubs"), "-isystem", str(inc / "resource")]
    if stub_dir:
        args += ["-idirafter", stub_dir]
    return args + list(opts.extra_args)


def read_source(path: str) -> SourceFile:
    p = Path(path)
    if not p.exists():
        raise error("no such file", path)
    if p.is_dir():
        raise error("is a directory, not a .cu file", path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise error(f"cannot read file: {exc.strerror}", path) from None
    if b"\0" in data[:65536]:
        raise error("file looks binary (contains NUL bytes), not CUDA source", path)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise error("file is not valid UTF-8 text", path, line) from None
    return SourceFile(path, data)


def _diag(d: ci.Diagnostic, source: SourceFile) -> Diagnostic:
    loc = d.location
    fname = loc.file.name if loc.file else ""
    sev = _SEVERITY.get(d.severity, Severity.NOTE)
    shown = _user_path(fname, source)
    text = source.line_text(loc.line) if fname == source.path else ""
    return Diagnostic(sev, d.spelling, shown, loc.line, loc.column, text)


def _user_path(fname: str, source: SourceFile) -> str:
    if "cudafuse_cuda_shim" in fname:
        return "<cudafuse shim>"
    return fname


def _parse(path: str, args: list[str]) -> ci.TranslationUnit:
    index = ci.Index.create()
    try:
        return index.parse(path, args=args,
                           options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    except ci.TranslationUnitLoadError:
        raise error("libclang could not parse the file", path) from None


def _unreadable_include(tu: ci.TranslationUnit, path: str) -> None:
    for d in tu.diagnostics:
        m = _MISSING.search(d.spelling)
        if not m or d.severity < ci.Diagnostic.Error:
            continue
        loc = d.location
        base = Path(loc.file.name).parent if loc.file else Path(path).parent
        cand = base / m.group(1)
        if cand.exists() and not os.access(cand, os.R_OK):
            raise error(f"cannot read included file '{m.group(1)}': permission denied",
                        loc.file.name if loc.file else path, loc.line, loc.column)


def parse_file(path: str, opts: ParseOptions = ParseOptions()) -> ParseResult:
    """Parse `path`. Raises CudafuseError for errors a user must fix.

    A header that cannot be found is replaced by an empty one (with a warning) so that the
    kernels that do not depend on it can still be analysed; functions that then fail to
    compile are skipped with a warning rather than failing the whole file.
    """
    source = read_source(path)
    tu = _parse(path, clang_args(opts))
    _unreadable_include(tu, path)
    missing = sorted({m.group(1) for d in tu.diagnostics
                      if (m := _MISSING.search(d.spelling)) and d.severity >= ci.Diagnostic.Error})
    diags: list[Diagnostic] = []
    with tempfile.TemporaryDirectory(prefix="cudafuse-stubs-") as stub_dir:
        if missing:
            for name in missing:
                stub = Path(stub_dir) / name
                stub.parent.mkdir(parents=True, exist_ok=True)
                stub.write_text("/* empty stand-in for a header cudafuse could not find */\n")
            for d in tu.diagnostics:
                if _MISSING.search(d.spelling):
                    diags.append(Diagnostic(
                        Severity.WARNING, d.spelling + "; analysing without it",
                        _user_path(d.location.file.name if d.location.file else path, source),
                        d.location.line, d.location.column))
            tu = _parse(path, clang_args(opts, stub_dir))
        return _lower(tu, source, diags, tolerant=bool(missing))


def _lower(tu: ci.TranslationUnit, source: SourceFile, diags: list[Diagnostic],
           tolerant: bool) -> ParseResult:
    path = source.path
    errors = [_diag(d, source) for d in tu.diagnostics
              if d.severity >= ci.Diagnostic.Error and not _MISSING.search(d.spelling)]
    errors = [e for e in errors if e.file]
    unit = TranslationUnit(path, source)
    unit.includes = _includes(tu, path)
    lowerer = Lowerer(source)
    bad_lines = {e.line for e in errors if e.file == path}
    if errors and not tolerant:
        main_errors = [e for e in errors if e.file == path] or errors
        raise CudafuseError(main_errors + diags)
    for cursor in _top_level(tu.cursor, path):
        if cursor.kind == K.VAR_DECL:
            unit.globals.append(lowerer.global_var(cursor))
            continue
        first, last = cursor.extent.start.line, cursor.extent.end.line
        broken = sorted(ln for ln in bad_lines if first <= ln <= last)
        if broken:
            err = next(e for e in errors if e.file == path and e.line == broken[0])
            diags.append(Diagnostic(
                Severity.WARNING, f"skipping '{cursor.spelling}': {err.message}",
                path, err.line, err.col, err.source_line))
            continue
        try:
            fn = lowerer.function(cursor)
        except (LoweringError, ValueError, AttributeError) as exc:
            line = cursor.extent.start.line
            diags.append(Diagnostic(Severity.WARNING,
                                    f"skipping '{cursor.spelling}': cannot lower it ({exc})",
                                    path, line, cursor.extent.start.column))
            continue
        unit.functions.append(fn)
        if fn.body is not None and fn.space != "global":
            from cudafuse.ir.nodes import KernelLaunch

            launches = [x for x in fn.body.walk() if isinstance(x, KernelLaunch)]
            if launches:
                unit.launches[fn.name] = launches
    return ParseResult(unit, diags)


def _top_level(cursor: ci.Cursor, path: str):
    """Function definitions/declarations and globals of the main file, through namespaces and
    extern "C" blocks, in source order."""
    for c in cursor.get_children():
        loc = c.location
        if loc.file is None or loc.file.name != path:
            continue
        if c.kind in (K.LINKAGE_SPEC, K.NAMESPACE, K.UNEXPOSED_DECL):
            yield from _top_level(c, path)
        elif c.kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE):
            yield c
        elif c.kind == K.VAR_DECL:
            yield c


def _includes(tu: ci.TranslationUnit, path: str) -> list[str]:
    """Every file the parse read for the user (not the shim or its stubs), in first-seen order."""
    seen: list[str] = []
    inc = str(include_dir())
    for i in tu.get_includes():
        name = i.include.name
        if name.startswith(inc) or "cudafuse-stubs-" in name or name in seen or name == path:
            continue
        seen.append(name)
    return seen
