"""Building a .cu file into a shared library for one backend, cached by content hash."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity, error
from cudafuse.emu import cccl, header_path, headers_blob, include_dir, toolkit
from cudafuse.emu import defines as emu_defines
from cudafuse.emu.libraries import check_library_uses, check_unsupported, gxx_refusal
from cudafuse.emu.overlay import INCLUDE_DIRS, overlay
from cudafuse.emu.rewrite import check_text, namespaces, qualified_names, rewrite
from cudafuse.frontend import ParseOptions, parse_file
from cudafuse.runtime import build_record, emu_pch, linker_names, standins, trampoline
from cudafuse.runtime.trampoline import Entry

_GCC_DIAG = re.compile(r"^(.*?):(\d+):(\d+): (?:fatal )?error: (.*)$")
_NVCC_DIAG = re.compile(r"^(.*?)\((\d+)\): error: (.*)$")
BUILD_VERSION = "3"  # bump when the generated code changes shape
# The nvcc build's own version (in its keys only, so the emulator's builds stay cached):
# "2" compiles, then links with stand-ins (standins.py), the trampolines catching throws;
# "3" their message kept in a static (not inline) thread_local.
NVCC_LINK = "3"
TRAMPOLINES = "<cudafuse trampolines>"  # the file name g++ gives the trampolines' lines
# The emulator's link with gold where it is installed: a third of ld.bfd's CPU on a library
# (0.06 instead of 0.17 s with the runtime's object, issue 27). A link it refuses is done
# again with the default linker (_compile), so errors read as before.
FAST_LINK = "-fuse-ld=gold"


@dataclass(frozen=True)
class BuildOptions:
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()  # NAME or NAME=VALUE
    opt: str = ""  # "": the backend's default (default_opt)
    sanitize: bool = False
    arch: str = "sm_90"
    forced_includes: tuple[str, ...] = ()
    std: str = ""  # a -std= for the compiler instead of -std=c++17
    # nvcc only: more flags, after the others (e.g. --fmad=false for `--profile`'s
    # exactness check, or the user's own). Part of the build's key, as every flag is.
    nvcc_flags: tuple[str, ...] = ()
    # The user's -isystem/-iquote/-idirafter DIR, -imacros FILE and -U NAME, as pairs (flag,
    # value; paths absolute): the front end's parse and the compiler take them as clang does.
    search: tuple[str, ...] = ()


@dataclass
class Built:
    library: Path
    entries: list[Entry]
    fiber_kernels: frozenset[str] = field(default_factory=frozenset)
    # Functions left without a trampoline (g++ rejected theirs): why, at the definition.
    uncallable: dict[str, Diagnostic] = field(default_factory=dict)
    includes: list[str] = field(default_factory=list)  # the files the program included


def default_opt(backend: str) -> str:
    """The optimisation level of a build that names none: -O2, or for the emulator
    CUDAFUSE_EMU_OPT when set. The test suite sets -O0: g++ spends about half as long on a
    program (2.0 s instead of 3.6 s with the precompiled header), and its programs are
    small enough that running them slower costs less than that."""
    if backend == "emu":
        return os.environ.get("CUDAFUSE_EMU_OPT") or "-O2"
    return "-O2"


def cache_dir() -> Path:
    root = os.environ.get("CUDAFUSE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cudafuse")
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def _diagnostics(output: str, pattern: re.Pattern[str], has_col: bool) -> list[Diagnostic]:
    diags = []
    for line in output.splitlines():
        m = pattern.match(line)
        if not m:
            continue
        file, ln = m.group(1), int(m.group(2))
        col = int(m.group(3)) if has_col else 0
        msg = m.group(4) if has_col else m.group(3)
        msg = gxx_refusal(msg) or msg  # a library the emulator has a stand-in header for
        diags.append(Diagnostic(Severity.ERROR, msg, file, ln, col, _source_line(file, ln)))
    return diags


def _source_line(file: str, line: int) -> str:
    """Line `line` (1-based) of `file` for a diagnostic to show; '' when it cannot be read."""
    if line < 1:  # not a line ([-1] would be the last one)
        return ""
    try:
        return Path(file).read_text("utf-8", "replace").splitlines()[line - 1]
    except (OSError, IndexError):
        return ""


_ASM_ERROR = re.compile(r"^(.*?):(\d+): Error: (.*)$", re.M)


def _assembler_refusals(stderr: str) -> list[Diagnostic]:
    """The host assembler rejecting inline assembly that reached it: PTX in a header (the
    main file's is refused before the build). The #line directives of the build give its
    place in the user's file."""
    if "Assembler messages:" not in stderr:
        return []
    return [Diagnostic(Severity.ERROR, "inline assembly is not supported by the emulator "
                       "(only the CUDAFUSE_BAR_SYNC(id, n) macro and the PTX of "
                       "docs/emulation.md, \"Inline PTX\", are): the host "
                       f"assembler rejects it ({m.group(3)})", m.group(1), int(m.group(2)))
            for m in _ASM_ERROR.finditer(stderr)]


class CompileFailed(CudafuseError):
    """A compiler's errors, with its whole output (to find the trampolines it names)."""

    def __init__(self, diagnostics: list[Diagnostic], output: str):
        super().__init__(diagnostics)
        self.output = output


def _link_with_stubs(cmd: list[str], out: Path, tmp: Path, missing: list[str],
                     files: list[str], heads: dict[str, str]) -> bool:
    """Link again with stubs for the undefined functions (emu/undefined.py), which stop
    with `heads` (by name: where and by what it was called) naming `files` (those that seem
    to define them) when called; False when that is not possible."""
    from cudafuse.emu.undefined import stub_source

    loose = subprocess.run([*cmd, "-Wl,--unresolved-symbols=ignore-all", "-o", str(tmp)],
                           capture_output=True, text=True)
    code = stub_source(tmp, missing, files, heads) if loose.returncode == 0 else None
    tmp.unlink(missing_ok=True)
    if code is None:
        return False
    stubs = tmp.with_name(tmp.stem + "-undefined.cpp")
    stubs.write_text(code)
    done = subprocess.run([*cmd, "-x", "c++", str(stubs), "-o", str(tmp)],
                          capture_output=True, text=True)
    stubs.unlink(missing_ok=True)
    if done.returncode != 0:
        tmp.unlink(missing_ok=True)
        return False
    os.replace(tmp, out)
    return True


def _compile(cmd: list[str], out: Path, pattern: re.Pattern[str], has_col: bool,
             what: str, search: tuple[Path, list[Path]] | None = None,
             defined: list[linker_names.Definition] | None = None) -> None:
    """Compile (and link) with `cmd` into `out`. A link that lacks what another source file
    in `search`'s folders (the program, its folders) seems to define gets stubs that stop
    the run, located at their caller among `defined` (the program's definitions)."""
    # Per process and thread: --profile builds programs on a thread pool, and on a cold
    # cache two of them compile the same shared object (the emulator's guard) at once.
    tmp = out.with_name(f"{out.stem}.{os.getpid()}.{threading.get_ident()}.tmp{out.suffix}")
    proc = subprocess.run([*cmd, "-o", str(tmp)], capture_output=True, text=True)
    if proc.returncode != 0 and FAST_LINK in cmd and "collect2" in proc.stderr:
        # A link gold refused: again with the default linker, whose messages (an undefined
        # reference's caller, `in function 'f'`) the reports and stubs below read.
        cmd = [a for a in cmd if a != FAST_LINK]
        proc = subprocess.run([*cmd, "-o", str(tmp)], capture_output=True, text=True)
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        diags = _diagnostics(proc.stderr + proc.stdout, pattern, has_col)
        # Read as the nvcc link's are (standins.py): ld quotes `so' or, in a UTF-8 locale
        # with its translations, ‘so’.
        refs = standins.users(proc.stderr)
        missing = sorted(refs)
        where = list(standins.defined_in(missing, search[1], search[0])) \
            if not diags and missing and search else []
        if where and search:
            heads = {m: standins.located(m, "was called", str(search[0]), refs[m],
                                         defined or []) for m in missing}
            if _link_with_stubs(cmd, out, tmp, missing, where, heads):
                return  # what another file of the program defines: stubs (emu/undefined.py)
        if not diags and missing:
            verb = "seems" if len(where) == 1 else "seem"
            it = "it" if len(missing) == 1 else "them"
            note = (f"; {', '.join(where)} {verb} to define {it}, but only the program's own "
                    "file is built" if where else "")
            raise error(f"{what}: undefined reference to {', '.join(missing[:8])} (declared "
                        f"but not defined in the program{note})")
        if not diags:
            diags = _assembler_refusals(proc.stderr)
        if not diags:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-20:]
            raise error(f"{what} failed: {_gist(tail, proc.returncode)}\n" + "\n".join(tail))
        raise CompileFailed(diags[:20], proc.stderr + proc.stdout)
    os.replace(tmp, out)


def _gist(lines: list[str], status: int) -> str:
    """The line of a failed compiler's output that says what went wrong, for the first line of
    the message (reach tables show only that): the first one naming an error ("collect2:
    error: ...", "g++: fatal error: Killed signal terminated program cc1plus"), else the
    last one, else the exit status."""
    for line in lines:
        if "error" in line.lower():
            return line.strip()
    return lines[-1].strip() if lines else f"exit status {status}, no output"


def _key(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()[:24]


def _includes_blob(paths: list[str]) -> bytes:
    blob = []
    for p in paths:
        try:
            blob.append(p.encode() + b"\0" + Path(p).read_bytes())
        except OSError:
            blob.append(p.encode())
    return b"\0".join(blob)


@dataclass
class Prepared:
    """The full program text a backend compiles, and what the runtime must know about it."""

    text: str
    entries: list[Entry]
    fiber_kernels: frozenset[str]
    includes: list[str]
    headers: dict[str, bytes] = field(default_factory=dict)  # emu: rewritten own headers
    # The front end's warnings for the functions it skipped: their launches were not
    # rewritten for the emulator, which is what a failing emu build then shows first.
    skipped: list[Diagnostic] = field(default_factory=list)
    thrust: list[str] = field(default_factory=list)  # emu: the Thrust headers it includes
    program: str = ""  # the text before the trampolines
    backend: str = ""
    owned: dict[str, list[int]] = field(default_factory=dict)  # trampoline lines per entry
    # The program's function definitions, methods too: where a stand-in's caller is.
    defined: list[linker_names.Definition] = field(default_factory=list)

    def with_entries(self, entries: list[Entry]) -> Prepared:
        """The same program with other trampolines (some named by type, some left out)."""
        text, owned = trampoline.source(entries, self.backend, self.fiber_kernels)
        return replace(self, text=self.program + text, entries=entries, owned=owned)


def prepare(path: str, backend: str, opts: BuildOptions) -> Prepared:
    """Parse, rewrite (emu) or keep (nvcc) the program, and append the trampolines."""
    src = Path(path)
    refused: CudafuseError | None = None
    if backend == "emu" and src.is_file():
        check_text(str(src), src.read_bytes())
        try:
            check_unsupported(str(src), src.read_bytes())
            cccl.check(str(src), src.read_bytes())
        except CudafuseError as e:  # perhaps only in branches the preprocessor drops: below
            refused = e
    extra = ((opts.std,) if opts.std else ()) + opts.search
    # The emulator compiles kernels and host code in one pass with __CUDA_ARCH__ defined (the
    # device code is what it runs; with Thrust, after Thrust's headers, see emu/cccl.py); the
    # front end must see the same branches.
    arch = backend == "emu"
    defines = (*opts.defines, cuda_arch_define(opts.arch)) if arch else opts.defines
    try:
        unit = parse_file(str(src), ParseOptions(opts.include_dirs, defines,
                                                 opts.forced_includes, extra, opts.arch,
                                                 one_stub_round=True)).unit
    except CudafuseError:
        if refused is not None:
            raise refused from None
        raise
    if refused is not None:  # the refusals in live code, now that the parse knows which
        check_unsupported(str(src), unit.source.data, unit.inactive)
        cccl.check(str(src), unit.source.data)
    if backend == "emu":
        own = {f.name for f in [*unit.functions, *unit.methods]}
        check_library_uses(str(src), unit.source.data, unit.inactive,
                           _own_headers(src, unit.includes, opts.include_dirs), own)
        emu = rewrite(unit)
        text, fibers, qualified = emu.text, emu.fiber_kernels, emu.qualified
    else:
        text, fibers, qualified = unit.source.data.decode(), frozenset(), qualified_names(unit)
    entries = trampoline.entries(unit, qualified, namespaces(unit.source.data),
                                 with_main=backend == "emu")
    program = f'#line 1 "{src.resolve()}"\n{text}\n#line 1 "{TRAMPOLINES}"\n'
    tramp, owned = trampoline.source(entries, backend, fibers)
    headers = overlay(src, unit.includes, opts.include_dirs) if backend == "emu" else {}
    skipped = [Diagnostic(Severity.WARNING, why, unit.path, span.line, span.col,
                          unit.source.line_text(span.line)) for span, why in unit.skipped]
    thrust = _thrust_headers(src, unit.includes, opts.include_dirs) if backend == "emu" else []
    defined = linker_names.definitions([*unit.functions, *unit.methods], unit.path)
    return Prepared(program + tramp, entries, fibers, unit.includes, headers, skipped, thrust,
                    program, backend, owned, defined)


def _own_headers(src: Path, includes: list[str], include_dirs: tuple[str, ...]) -> list[bytes]:
    """The text of the program's own headers it includes (below its directory or an -I
    one): which libraries it includes, for emu/libraries.py."""
    roots = [src.resolve().parent, *(Path(d).resolve() for d in include_dirs)]
    found = []
    for path in (Path(p).resolve() for p in includes):
        if path != src.resolve() and any(r in path.parents for r in roots):
            try:
                found.append(path.read_bytes())
            except OSError:
                continue
    return found


def _thrust_headers(src: Path, includes: list[str], include_dirs: tuple[str, ...]) -> list[str]:
    """The Thrust headers the program or its own headers (below its directory or an -I one)
    include (emu/cccl.py)."""
    roots = [src.resolve().parent, *(Path(d).resolve() for d in include_dirs)]
    found: list[str] = []
    for path in [src.resolve(), *(Path(p).resolve() for p in includes)]:
        if path != src.resolve() and not any(r in path.parents for r in roots):
            continue
        try:
            found += cccl.thrust_headers(path.read_bytes())
        except OSError:
            continue
    return found


def build(path: str, backend: str, opts: BuildOptions) -> Built:
    """Compile `path` for `backend` into a shared library (or reuse the cached one)."""
    src = Path(path)
    record = _record_path(src, backend, opts)
    roots = [src.parent, *(Path(d) for d in opts.include_dirs)]

    def digest(includes: list[str]) -> str:
        return _includes_digest(includes, roots)

    found = build_record.load(record, digest) if record else None
    if found is not None:  # built before, from these very inputs: no parse needed
        return Built(*found)
    built = _build(src, backend, opts)
    if record:
        build_record.save(record, built.library, built.includes, digest(built.includes),
                          built.entries, built.fiber_kernels, built.uncallable)
    return built


def _record_path(src: Path, backend: str, opts: BuildOptions) -> Path | None:
    """Where the record of `src`'s build is (build_record.py), keyed by what the build reads
    before parsing it; None when the program cannot be read (the parse says why)."""
    try:
        data = src.read_bytes()
    except OSError:
        return None
    name = os.environ.get("CXX", "g++") if backend == "emu" else "nvcc"
    extra = headers_blob() + guard_path().read_bytes() + runtime_path().read_bytes() \
        if backend == "emu" else NVCC_LINK.encode()
    key = build_record.key(BUILD_VERSION, backend, str(src.resolve()), data, repr(opts),
                           shutil.which(name) or name, extra,
                           "\0".join(_flags(src, backend, opts)))
    return cache_dir() / f"{backend}-{key}.record.json"


def _includes_digest(includes: list[str], roots: list[Path]) -> str:
    """The included files' names and contents, and the modification times of the
    directories they were found in and of the program's search roots: a header added where
    it would now be found first (the program's directory, an -I directory, beside another
    header) changes one of those, and the record is not used."""
    dirs = sorted({*(str(r) for r in roots), *(os.path.dirname(p) for p in includes)})
    stamps = []
    for d in dirs:
        try:
            stamps.append(f"{d}\0{os.stat(d).st_mtime_ns}".encode())
        except OSError:
            stamps.append(d.encode())
    return build_record.includes_digest(_includes_blob(includes) + b"\0".join(stamps))


def _build(src: Path, backend: str, opts: BuildOptions) -> Built:
    path = str(src)
    prep = prepare(path, backend, opts)
    flags = _flags(src, backend, opts)
    if prep.headers:
        flags = _with_overlay(flags, prep.headers)
    if prep.thrust:
        flags = cccl.with_cccl(flags, include_dir(), prep.thrust)
    extra = headers_blob() + runtime_path().read_bytes() if backend == "emu" else \
        NVCC_LINK.encode()
    guarded = backend == "emu" and not opts.sanitize
    if guarded:
        extra += guard_path().read_bytes()
    tool = _tool(backend)
    key = _key(BUILD_VERSION, backend, prep.text, extra, " ".join(flags), tool,
               _includes_blob(prep.includes))
    root = cache_dir()
    lib = root / f"{backend}-{key}.so"
    left_out = root / f"{backend}-{key}.uncallable.json"
    # One build of a key at a time across processes (xdist workers, parallel make jobs):
    # the second waits and finds the library instead of compiling it again.
    with build_record.exclusive(root / f"{backend}-{key}.lock"):
        if lib.exists():
            entries, uncallable = _left_out(prep, left_out)
            return Built(lib, entries, prep.fiber_kernels, uncallable, prep.includes)
        suffix = ".cpp" if backend == "emu" else ".cu"
        src_copy = root / f"{backend}-{key}{suffix}"
        dirs = [src.resolve().parent, *(Path(d) for d in opts.include_dirs)]
        opt = opts.opt or default_opt(backend)
        guard = ["-x", "none", str(_guard_object(tool, opt))] if guarded else []
        if backend == "emu":  # the runtime's functions, compiled once (emu/runtime.cpp)
            guard = ["-x", "none", str(_runtime_object(tool, opts)), *guard]
            flags = emu_pch.with_pch([*flags, *trampoline.EMU_LINK_FLAGS], tool, root)

        def compile_(text: str) -> None:
            with tempfile.NamedTemporaryFile("w", dir=root, suffix=suffix, delete=False) as fh:
                fh.write(text)
            os.replace(fh.name, src_copy)
            if backend == "emu":
                _compile([tool, *flags, str(src_copy), *guard], lib, _GCC_DIAG, True, "g++",
                         (src.resolve(), dirs), prep.defined)
            else:  # compiled, then linked with stand-ins where needed (standins.py)
                obj = lib.with_name(f"{lib.stem}.{os.getpid()}.{threading.get_ident()}.o")
                try:
                    _compile([tool, *flags, "-c", str(src_copy)], obj, _NVCC_DIAG, False,
                             "nvcc")
                    standins.link([tool, *flags], obj, lib, str(src.resolve()),
                                  lambda names: standins.defined_in(names, dirs,
                                                                    src.resolve()),
                                  prep.defined)
                finally:
                    obj.unlink(missing_ok=True)

        try:
            prep, uncallable = _compile_trampolines(prep, compile_)
        except CudafuseError as exc:
            if backend != "emu" or not prep.skipped:
                raise
            raise CudafuseError([*prep.skipped, Diagnostic(
                Severity.ERROR, "cannot build for the emulator: the front end skipped "
                "the functions above, so their code (launches included) was not "
                "rewritten for it; g++'s first error follows", str(src)),
                *exc.diagnostics[:1]]) from None
        typed = [e.name for e in prep.entries if e.typed and not e.symbol]
        if typed or uncallable:
            left_out.write_text(json.dumps({"typed": typed, "uncallable": {
                name: d.message for name, d in uncallable.items()}}))
        return Built(lib, prep.entries, prep.fiber_kernels, uncallable, prep.includes)


_TRAMPOLINE_LINE = re.compile(rf"{re.escape(TRAMPOLINES)}(?::|\()(\d+)|"
                              rf"at line (\d+) of {re.escape(TRAMPOLINES)}")
_NVCC_SAME_FILE = re.compile(r"at line (\d+)$")  # nvcc: a line of the error's own file


def _blamed(prep: Prepared, output: str) -> dict[str, str]:
    """The entries (by symbol) whose trampolines the compiler's errors point at, each with
    the first error message: an error in the shared templates is blamed on the entries
    whose lines its "required from" notes (g++, before the error) or "at line" notes
    (nvcc, after it) name."""
    owner = {line: sym for sym, lines in prep.owned.items() for line in lines}
    blamed: dict[str, str] = {}
    pending: set[str] = set()
    message, in_trampolines = "", False
    for line in output.splitlines():
        nums = [int(a or b) for a, b in _TRAMPOLINE_LINE.findall(line)]
        same = _NVCC_SAME_FILE.search(line.rstrip())
        if same and in_trampolines:
            nums.append(int(same.group(1)))
        syms = {owner[n] for n in nums if n in owner}
        if "In instantiation of" in line or "In function" in line:
            pending = set()
        m = re.search(r"\berror\b:? (.*)$", line)
        if m:
            message = m.group(1).strip()
            in_trampolines = line.startswith(TRAMPOLINES)
            for sym in pending | syms:
                blamed.setdefault(sym, message)
            pending = set()
        elif "at line" in line and message:  # nvcc names the instantiation after the error
            for sym in syms:
                blamed.setdefault(sym, message)
        else:  # g++ names it before
            pending |= syms
    return blamed


def _compile_trampolines(prep: Prepared, compile_: Callable[[str], None]
                         ) -> tuple[Prepared, dict[str, Diagnostic]]:
    """Compile the program with every entry's trampoline; an entry whose trampoline the
    compiler rejects is named through its spelled type next (`&name` may be ambiguous),
    then left out with a warning at its definition: a function Python cannot call never
    stops the build of the program."""
    uncallable: dict[str, Diagnostic] = {}
    for _ in range(3):
        try:
            compile_(prep.text)
            return prep, uncallable
        except CompileFailed as exc:
            blamed = _blamed(prep, exc.output)
            if not blamed:
                raise
            entries = []
            for e in prep.entries:
                if e.sym not in blamed:
                    entries.append(e)
                elif not e.typed:
                    entries.append(e.spelled())
                else:
                    uncallable[e.name] = _uncallable(e, blamed[e.sym])
            prep = prep.with_entries(entries)
    compile_(prep.text)
    return prep, uncallable


def _uncallable(e: Entry, why: str, message: str = "") -> Diagnostic:
    file, line, col = e.where
    message = message or (f"'{e.name}' cannot be called from Python or a spec: the "
                          f"compiler rejects its trampoline ({why})")
    return Diagnostic(Severity.WARNING, message, file, line, col, _source_line(file, line))



def _left_out(prep: Prepared, path: Path) -> tuple[list[Entry], dict[str, Diagnostic]]:
    """The entries of a cached build: those the build that made it named by type or left
    out (recorded beside the library)."""
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return prep.entries, {}
    typed, dropped = set(record.get("typed", ())), record.get("uncallable", {})
    entries = [e.spelled() if e.name in typed else e for e in prep.entries
               if e.name not in dropped]
    uncallable = {e.name: _uncallable(e, "", dropped[e.name]) for e in prep.entries
                  if e.name in dropped}
    return entries, uncallable


def _with_overlay(flags: list[str], headers: dict[str, bytes]) -> list[str]:
    """The program's headers rewritten for the emulator (emu/overlay.py), written once into
    a directory named by their content and searched before the program's directory."""
    root = cache_dir() / f"emu-headers-{_key(*(p for kv in sorted(headers.items()) for p in kv))}"
    if not root.is_dir():
        tmp = Path(tempfile.mkdtemp(dir=cache_dir()))
        for rel, data in headers.items():
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_bytes(data)
        try:
            os.replace(tmp, root)
        except OSError:  # another build wrote it first
            shutil.rmtree(tmp, ignore_errors=True)
    at = flags.index("-iquote")
    return [*flags[:at], "-iquote", str(root), "-I", str(root / INCLUDE_DIRS), *flags[at:]]


def guard_path() -> Path:
    """The fault handler that reports accesses past a spec array (see emu/guard.cpp)."""
    return include_dir().parent / "guard.cpp"


def _guard_object(tool: str, opt: str) -> Path:
    """guard.cpp compiled once per header, compiler and optimisation level, and linked into
    every emu library: compiling it with each program would cost 0.7 s per build (it takes
    in the whole emulator header)."""
    flags = ["-std=c++17", opt, "-g0", "-fPIC", "-w", "-x", "c++", "-include",
             str(header_path()), "-I", str(include_dir())]
    key = _key(BUILD_VERSION, guard_path().read_bytes(), headers_blob(),
               " ".join(flags), tool)
    obj = cache_dir() / f"guard-{key}.o"
    if not obj.exists():
        _compile([tool, *flags, "-c", str(guard_path())], obj, _GCC_DIAG, True, "g++")
    return obj


def runtime_path() -> Path:
    """The bodies of the emulator runtime's functions that are not templates."""
    return include_dir().parent / "runtime.cpp"


def _runtime_object(tool: str, opts: BuildOptions) -> Path:
    """emu/runtime.cpp compiled once per content of the headers and of runtime.cpp, compiler
    and the options that change its code (language standard, optimisation, sanitizer), and
    linked into every emu library: compiled into each program it cost about 1 s of g++'s CPU
    a build (issue 27). Without the program's -D macros and include directories: the
    runtime's code does not depend on them. One process compiles it, others wait for it."""
    flags = [opts.std or "-std=c++17", opts.opt or default_opt("emu"), "-g0", "-fPIC", "-w",
             "-fno-strict-aliasing", "-fno-semantic-interposition", "-x", "c++", "-include",
             str(header_path()), "-I", str(include_dir())]
    if opts.sanitize:
        flags += ["-fsanitize=address", "-fno-omit-frame-pointer", "-g"]
    key = _key(BUILD_VERSION, runtime_path().read_bytes(), headers_blob(), " ".join(flags),
               tool)
    obj = cache_dir() / f"emu-runtime-{key}.o"
    if not obj.exists():
        with build_record.exclusive(cache_dir() / f"emu-runtime-{key}.lock"):
            if not obj.exists():
                _compile([tool, *flags, "-c", str(runtime_path())], obj, _GCC_DIAG, True,
                         "g++ (the emulator's runtime)")
    return obj


def _tool(backend: str) -> str:
    name = os.environ.get("CXX", "g++") if backend == "emu" else "nvcc"
    found = shutil.which(name)
    if not found:
        raise error(f"'{name}' not found on PATH (needed by the {backend} backend)")
    return found


def cuda_arch_define(arch: str) -> str:
    """`__CUDA_ARCH__=900` for sm_90 (and sm_90a): what nvcc defines in device passes."""
    digits = re.sub(r"\D", "", arch) or "90"
    return f"__CUDA_ARCH__={int(digits) * 10}"


def _flags(src: Path, backend: str, opts: BuildOptions) -> list[str]:
    user_dirs = [f"-I{d}" for d in opts.include_dirs]
    common = [f"-D{d}" for d in opts.defines]
    if backend == "emu":
        # the -D macros whose names the emulator's headers spell: defined after them
        kept, after = emu_defines.split(opts.defines, opts.search, cache_dir())
        common = [*kept, f"-D{cuda_arch_define(opts.arch)}", *after]
    # After the emulator's own header (emu) or the runtime's (nvcc), as nvcc -include puts
    # them after cuda_runtime.h.
    common += [a for f in opts.forced_includes for a in ("-include", str(Path(f).resolve()))]
    std = opts.std or "-std=c++17"
    opt = opts.opt or default_opt(backend)
    if backend == "emu":
        # The user's -I directories before the emulator's stand-ins, as with nvcc and the
        # front end: a program's own helper_cuda.h wins over the stand-in of that name.
        # -Bsymbolic: the program's own functions bind to themselves, not to a library's of
        # the same name already in the process (an entry called `pipe` ran libc's pipe()).
        # -fno-semantic-interposition: as -Bsymbolic binds them, so g++ may inline them: a
        # __device__ function called per pixel (nvcc inlines it) costs a call otherwise.
        flags = [std, opt, "-g0", "-fPIC", "-shared", "-w", "-fno-strict-aliasing",
                 "-fno-semantic-interposition", *_link_flags(), "-Wl,-Bsymbolic", "-x",
                 "c++", "-include",
                 str(header_path()),
                 "-iquote", str(src.resolve().parent), *user_dirs, "-I", str(include_dir()),
                 *common]
        flags += opts.search
        as_is = toolkit.as_is_dir(cache_dir())
        if as_is is not None:  # host-only toolkit headers, as NVIDIA ships them
            flags += ["-idirafter", str(as_is)]
        if opts.sanitize:
            # -g: the report's stack names file:line:col of the faulting access
            flags += ["-fsanitize=address", "-fno-omit-frame-pointer", "-g"]
        else:  # a function declared but never defined: fail the build, not the first call
            flags += ["-Wl,--no-undefined"]
        return flags
    return ["-shared", "-Xcompiler", "-fPIC", "-Xlinker", "-Bsymbolic", f"-arch={opts.arch}",
            std, opt,
            "-I", str(src.resolve().parent), *user_dirs, *common, *_nvcc_search(opts.search),
            *opts.nvcc_flags]


def _link_flags() -> list[str]:
    """-pipe (the assembly goes to `as` through a pipe, not a file) and gold when the
    compiler can find it (CUDAFUSE_EMU_LD=bfd keeps the default linker)."""
    if os.environ.get("CUDAFUSE_EMU_LD") == "bfd" or not shutil.which("ld.gold"):
        return ["-pipe"]
    return ["-pipe", FAST_LINK]


def _nvcc_search(search: tuple[str, ...]) -> list[str]:
    """nvcc's spelling of the user's search flags: -isystem and -U are its own; -iquote,
    -idirafter and -imacros reach the host compiler, whose preprocessor both passes use."""
    out: list[str] = []
    for flag, value in zip(search[::2], search[1::2], strict=True):
        out += [flag, value] if flag in ("-isystem", "-U") else ["-Xcompiler", f"{flag},{value}"]
    return out
