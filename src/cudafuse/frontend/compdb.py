"""A file's flags from the build's compilation database (compile_commands.json), as clang
tools take them with `-p BUILD_DIR`.

CMake (CMAKE_EXPORT_COMPILE_COMMANDS) and Bear write one entry per translation unit, with the
compiler's own command line: g++/clang++ spellings or nvcc's (`--include-path`,
`--define-macro`, `-Xcompiler a,b`, `--options-file`, `--std c++17`, comma lists). What the
front end needs of it: include directories, macros, forced includes and the language
standard. Directories of the CUDA toolkit itself are left out: the front end parses against
its own CUDA declarations, and the toolkit's headers (written for nvcc or a matching clang)
would replace them.
"""

from __future__ import annotations

import functools
import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from cudafuse.diagnostics import Diagnostic, Severity, error

DB_NAME = "compile_commands.json"


@dataclass(frozen=True)
class FileFlags:
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    forced_includes: tuple[str, ...] = ()
    std: str = ""  # e.g. c++20; empty: the front end's default


def db_path(where: str) -> Path:
    """The database named by `-p`: a build directory holding compile_commands.json, or the
    file itself. Raises a located error when there is none."""
    p = Path(where)
    if p.is_dir():
        p = p / DB_NAME
    if not p.is_file():
        raise error(f"no compilation database: '{p}' does not exist (-p takes a build "
                    f"directory with {DB_NAME}, or the file)")
    return p


@functools.lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> tuple[dict[str, object], ...]:
    raw = Path(path).read_bytes()
    try:
        entries = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        line, col = (exc.lineno, exc.colno) if isinstance(exc, json.JSONDecodeError) else (0, 0)
        raise error(f"not a valid compilation database: {exc.msg if line else exc}", path,
                    line, col) from None
    if not isinstance(entries, list) or not all(
            isinstance(e, dict) and isinstance(e.get("file"), str) and isinstance(
                e.get("directory", ""), str) and (isinstance(e.get("arguments"), list)
                                                 or isinstance(e.get("command"), str))
            for e in entries):
        raise error("not a valid compilation database: expected a list of entries, each "
                    "with 'directory', 'file' and 'arguments' or 'command'", path)
    return tuple(entries)


def load(where: str) -> tuple[Path, tuple[dict[str, object], ...]]:
    p = db_path(where)
    return p, _load(str(p), p.stat().st_mtime)


def _entry_file(entry: dict[str, object]) -> Path:
    return (Path(str(entry.get("directory", ""))) / str(entry["file"])).resolve()


def lookup(where: str, source: str) -> tuple[FileFlags, list[Diagnostic]]:
    """The flags of `source`'s entry. A file the build does not compile itself (a source
    that cudafuse fuses into NAME.fused.cu, which the build compiles instead) takes the flags
    of the nearest entry, as clang tools interpolate: one whose file name starts with the
    source's stem, else one in its directory, else the longest common path; a note says
    which. No entry at all: a warning, and the command line's flags only."""
    p, entries = load(where)
    target = Path(source).resolve()
    files = [_entry_file(e) for e in entries]
    for entry, f in zip(entries, files, strict=True):
        if f == target:
            return _flags_at(p, entry, f), []
    if not entries:
        return FileFlags(), [Diagnostic(Severity.WARNING, f"no entry for this file in {p}; "
                                        "using the command line's flags only", source)]

    def closeness(f: Path) -> tuple[bool, bool, int]:
        common = len(os.path.commonpath([str(f), str(target)]))
        return f.name.startswith(target.stem + "."), f.parent == target.parent, common

    best = max(range(len(entries)), key=lambda i: closeness(files[i]))
    return _flags_at(p, entries[best], files[best]), [Diagnostic(
        Severity.NOTE, f"no entry for this file in {p}; using the flags of {files[best]}",
        source)]


def _flags_at(db: Path, entry: dict[str, object], file: Path) -> FileFlags:
    """flags_of(entry), or an error at the database when its command cannot be split into
    arguments (an unterminated quote: the build could not have run it either)."""
    try:
        return flags_of(entry)
    except ValueError as exc:
        raise error(f"not a valid compilation database: the command of {file} cannot be "
                    f"split into arguments ({exc})", str(db)) from None


def _argv(entry: dict[str, object]) -> list[str]:
    args = entry.get("arguments")
    if isinstance(args, list):
        return [str(a) for a in args]
    return shlex.split(str(entry["command"]))


# Options whose value follows as the next argument, by the spelling the compilers accept;
# the value is what the front end needs (kind) or is skipped (None).
_SEPARATE = {
    "-I": "inc", "--include-path": "inc", "-isystem": "inc", "-iquote": "inc",
    "-idirafter": "inc", "--system-include": "inc",
    "-D": "def", "--define-macro": "def", "-U": None, "--undefine-macro": None,
    "-include": "pre", "--pre-include": "pre", "-std": "std", "--std": "std",
    "-Xcompiler": "xc", "--compiler-options": "xc", "-optf": "optf", "--options-file": "optf",
    "-o": None, "--output-file": None, "-x": None, "-arch": None, "--gpu-architecture": None,
    "-gencode": None, "--generate-code": None, "-code": None, "--gpu-code": None,
    "-MF": None, "-MT": None, "-MQ": None, "-ccbin": None, "--compiler-bindir": None,
    "-Xptxas": None, "-Xlinker": None, "-Xnvlink": None, "-Xarchive": None,
    "--ptxas-options": None, "--linker-options": None, "-maxrregcount": None,
    "-rdc": None, "--relocatable-device-code": None, "-L": None, "-l": None,
    "-imacros": None, "--threads": None, "-t": None,
}
_JOINED = ("-I", "-isystem", "-iquote", "-idirafter", "-D", "-std=", "--std=", "-include")
# nvcc takes comma-separated lists for these (e.g. -I a,b or -Xcompiler -Wall,-fPIC).
_NVCC_LISTS = {"inc", "def", "pre", "xc", "optf"}


def flags_of(entry: dict[str, object]) -> FileFlags:
    directory = Path(str(entry.get("directory", "") or "."))
    argv = _argv(entry)
    nvcc = bool(argv) and Path(argv[0]).name.startswith("nvcc")
    out: dict[str, list[str]] = {"inc": [], "def": [], "pre": [], "std": []}
    _scan(argv[1:], directory, nvcc, out, depth=0)
    incs = [d for d in dict.fromkeys(out["inc"]) if not _is_toolkit_dir(d)]
    return FileFlags(tuple(incs), tuple(out["def"]), tuple(out["pre"]),
                     out["std"][-1] if out["std"] else "")


def _scan(args: list[str], directory: Path, nvcc: bool, out: dict[str, list[str]],
          depth: int) -> None:
    i = 0
    while i < len(args):
        a = args[i]
        kind, value = None, None
        if a.startswith("@") and len(a) > 1 and depth < 8:  # a gcc/clang response file
            _scan(_read_args(directory / a[1:]), directory, nvcc, out, depth + 1)
            i += 1
            continue
        if "=" in a and a.startswith("--") and a.split("=", 1)[0] in _SEPARATE:
            name, value = a.split("=", 1)
            kind = _SEPARATE[name]
        elif a in _SEPARATE:
            kind = _SEPARATE[a]
            value = args[i + 1] if i + 1 < len(args) else None
            i += 1
        else:
            joined = next((j for j in _JOINED if a.startswith(j) and len(a) > len(j)), None)
            if joined is not None:
                kind = {"-I": "inc", "-isystem": "inc", "-iquote": "inc", "-idirafter": "inc",
                        "-D": "def", "-std=": "std", "--std=": "std", "-include": "pre"}[joined]
                value = a[len(joined):]
        i += 1
        if kind is None or value is None:
            continue
        values = value.split(",") if nvcc and kind in _NVCC_LISTS else [value]
        for v in values:
            if kind == "inc":
                out["inc"].append(os.path.normpath(directory / v))
            elif kind == "pre":
                out["pre"].append(os.path.normpath(directory / v))
            elif kind == "def":
                out["def"].append(v)
            elif kind == "std":
                out["std"].append(v)
            elif kind == "xc":  # host compiler options: scanned as g++'s
                _scan(shlex.split(v) if not nvcc else [v], directory, False, out, depth + 1)
            elif kind == "optf" and depth < 8:
                _scan(_read_args(directory / v), directory, nvcc, out, depth + 1)


def _read_args(path: Path) -> list[str]:
    try:
        return shlex.split(path.read_text())
    except (OSError, ValueError, UnicodeDecodeError):
        return []  # as the compiler would have failed on it, the entry is as good as absent


def _is_toolkit_dir(d: str) -> bool:
    """A directory of the CUDA toolkit's headers (or one below them: cccl, crt)."""
    p = Path(d)
    for cand in (p, *list(p.parents)[:3]):
        if (cand / "cuda_runtime_api.h").is_file():
            return True
    return False
